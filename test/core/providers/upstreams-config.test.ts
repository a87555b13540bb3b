/**
 * The upstream instance configuration (core/providers/upstreams.ts): what each kind needs,
 * the vtpass instance from VTPASS_*, http only to loopback, and a clear error naming the
 * variable for every mistake, without ever echoing a credential.
 */
import * as assert from 'uvu/assert';
import { parseUpstreams, type UpstreamInstance } from '../../../core/providers/upstreams.js';
import { ConfigError, type Env } from '../../../runtime/env-schema.js';
import { suite } from '../../helpers/suite.js';

const test = suite('upstream instances');

const VTPASS: Env = { VTPASS_API_KEY: 'vk', VTPASS_PUBLIC_KEY: 'PK_v', VTPASS_SECRET_KEY: 'SK_v' };
const CK: Env = {
  UPSTREAM_CK_KIND: 'clubkonnect',
  UPSTREAM_CK_USER_ID: 'CK100000001',
  UPSTREAM_CK_API_KEY: 'secret-ck-key',
};
const HUB: Env = {
  UPSTREAM_DATAHUB_KIND: 'ported-number',
  UPSTREAM_DATAHUB_BASE_URL: 'https://datahub.example/api/',
  UPSTREAM_DATAHUB_TOKEN: 'secret-hub-token',
};

const accepted: { title: string; env: Env; expect: UpstreamInstance[] }[] = [
  { title: 'nothing set: no instances', env: {}, expect: [] },
  {
    title: 'VTPASS_* alone configure vtpass without a declaration',
    env: VTPASS,
    expect: [
      {
        name: 'vtpass',
        kind: 'vtpass',
        baseUrl: 'https://sandbox.vtpass.com/api/',
        apiKey: 'vk',
        publicKey: 'PK_v',
        secretKey: 'SK_v',
      },
    ],
  },
  {
    title: 'declared order is kept, vtpass included',
    env: { UPSTREAMS: 'datahub, vtpass,ck', ...VTPASS, ...CK, ...HUB, VTPASS_BASE_URL: 'http://127.0.0.1:4010/api/' },
    expect: [
      { name: 'datahub', kind: 'ported-number', baseUrl: 'https://datahub.example/api/', token: 'secret-hub-token' },
      {
        name: 'vtpass',
        kind: 'vtpass',
        baseUrl: 'http://127.0.0.1:4010/api/',
        apiKey: 'vk',
        publicKey: 'PK_v',
        secretKey: 'SK_v',
      },
      {
        name: 'ck',
        kind: 'clubkonnect',
        baseUrl: 'https://www.nellobytesystems.com/',
        userId: 'CK100000001',
        apiKey: 'secret-ck-key',
      },
    ],
  },
  {
    title: 'clubkonnect base URL may point at a local fake over http',
    env: { UPSTREAMS: 'ck', ...CK, UPSTREAM_CK_BASE_URL: 'http://localhost:9000/' },
    expect: [
      {
        name: 'ck',
        kind: 'clubkonnect',
        baseUrl: 'http://localhost:9000/',
        userId: 'CK100000001',
        apiKey: 'secret-ck-key',
      },
    ],
  },
  {
    title: 'a sandbox instance needs nothing else',
    env: { UPSTREAMS: 'play', UPSTREAM_PLAY_KIND: 'sandbox' },
    expect: [{ name: 'play', kind: 'sandbox' }],
  },
];

for (const { title, env, expect } of accepted) {
  test(title, () => {
    assert.equal(parseUpstreams(env), expect);
  });
}

const refused: { title: string; env: Env; variable: string; says: RegExp }[] = [
  { title: 'a bad name', env: { UPSTREAMS: 'Data-Hub' }, variable: 'UPSTREAMS', says: /lower-case letter/ },
  { title: 'a name twice', env: { UPSTREAMS: 'ck,ck', ...CK }, variable: 'UPSTREAMS', says: /names ck twice/ },
  { title: 'an empty name', env: { UPSTREAMS: 'ck,', ...CK }, variable: 'UPSTREAMS', says: /got ""/ },
  {
    title: 'a declared name without a kind',
    env: { UPSTREAMS: 'datahub' },
    variable: 'UPSTREAM_DATAHUB_KIND',
    says: /is required because UPSTREAMS names datahub/,
  },
  {
    title: 'an unknown kind',
    env: { UPSTREAMS: 'x', UPSTREAM_X_KIND: 'smeplug' },
    variable: 'UPSTREAM_X_KIND',
    says: /one of clubkonnect, ported-number, sandbox; got "smeplug"/,
  },
  {
    title: 'a second vtpass',
    env: { UPSTREAMS: 'vt2', UPSTREAM_VT2_KIND: 'vtpass' },
    variable: 'UPSTREAM_VT2_KIND',
    says: /VTPASS_\* variables/,
  },
  {
    title: 'vtpass declared without its keys',
    env: { UPSTREAMS: 'vtpass' },
    variable: 'VTPASS_API_KEY',
    says: /because UPSTREAMS names vtpass/,
  },
  {
    title: 'one VTpass key without the others',
    env: { VTPASS_API_KEY: 'vk' },
    variable: 'VTPASS_PUBLIC_KEY',
    says: /is required/,
  },
  {
    title: 'UPSTREAM_VTPASS_* is not read',
    env: { ...VTPASS, UPSTREAM_VTPASS_TOKEN: 't' },
    variable: 'UPSTREAM_VTPASS_TOKEN',
    says: /VTPASS_\* variables/,
  },
  {
    title: 'clubkonnect without a user id',
    env: { UPSTREAMS: 'ck', ...CK, UPSTREAM_CK_USER_ID: undefined },
    variable: 'UPSTREAM_CK_USER_ID',
    says: /is required for the upstream ck/,
  },
  {
    title: 'clubkonnect without an API key',
    env: { UPSTREAMS: 'ck', ...CK, UPSTREAM_CK_API_KEY: '' },
    variable: 'UPSTREAM_CK_API_KEY',
    says: /is required/,
  },
  {
    title: 'clubkonnect given a token',
    env: { UPSTREAMS: 'ck', ...CK, UPSTREAM_CK_TOKEN: 't' },
    variable: 'UPSTREAM_CK_TOKEN',
    says: /not a setting of a clubkonnect upstream/,
  },
  {
    title: 'ported-number without a base URL',
    env: { UPSTREAMS: 'datahub', ...HUB, UPSTREAM_DATAHUB_BASE_URL: undefined },
    variable: 'UPSTREAM_DATAHUB_BASE_URL',
    says: /every site has its own address/,
  },
  {
    title: 'ported-number without a token',
    env: { UPSTREAMS: 'datahub', ...HUB, UPSTREAM_DATAHUB_TOKEN: undefined },
    variable: 'UPSTREAM_DATAHUB_TOKEN',
    says: /is required/,
  },
  {
    title: 'a token with a space',
    env: { UPSTREAMS: 'datahub', ...HUB, UPSTREAM_DATAHUB_TOKEN: 'two words' },
    variable: 'UPSTREAM_DATAHUB_TOKEN',
    says: /one word/,
  },
  {
    title: 'plain http to another machine',
    env: { UPSTREAMS: 'datahub', ...HUB, UPSTREAM_DATAHUB_BASE_URL: 'http://datahub.example/api/' },
    variable: 'UPSTREAM_DATAHUB_BASE_URL',
    says: /https:\/\/ URL \(http:\/\/ only to localhost\)/,
  },
  {
    title: 'VTPASS_BASE_URL over http to another machine',
    env: { ...VTPASS, VTPASS_BASE_URL: 'http://10.0.0.5/api/' },
    variable: 'VTPASS_BASE_URL',
    says: /only to localhost/,
  },
  {
    title: 'a URL with credentials in it',
    env: { UPSTREAMS: 'datahub', ...HUB, UPSTREAM_DATAHUB_BASE_URL: 'https://me:pw@datahub.example/' },
    variable: 'UPSTREAM_DATAHUB_BASE_URL',
    says: /user name or password/,
  },
  {
    title: 'not a URL',
    env: { UPSTREAMS: 'ck', ...CK, UPSTREAM_CK_BASE_URL: 'nellobytes' },
    variable: 'UPSTREAM_CK_BASE_URL',
    says: /must be a URL/,
  },
  {
    title: 'a sandbox given a base URL',
    env: { UPSTREAMS: 'play', UPSTREAM_PLAY_KIND: 'sandbox', UPSTREAM_PLAY_BASE_URL: 'https://x/' },
    variable: 'UPSTREAM_PLAY_BASE_URL',
    says: /not a setting of a sandbox/,
  },
  {
    title: 'settings of an undeclared name',
    env: { ...CK },
    variable: 'UPSTREAM_CK_KIND',
    says: /add its name to UPSTREAMS/,
  },
];

for (const { title, env, variable, says } of refused) {
  test(`refused: ${title}`, () => {
    let caught: unknown;
    try {
      parseUpstreams(env);
    } catch (error) {
      caught = error;
    }
    assert.instance(caught, ConfigError);
    const error = caught as ConfigError;
    assert.is(error.variable, variable);
    assert.match(error.message, says);
    for (const secret of ['secret-ck-key', 'secret-hub-token', 'two words', 'SK_v'])
      assert.not.ok(error.message.includes(secret), `no credential in "${error.message}"`);
  });
}

test.run();
