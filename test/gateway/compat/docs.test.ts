/**
 * docs/compat.md's examples produce what they show: every curl of its MSORG, VTpass and Adex
 * sections, in the page's order, is sent through a TLS terminator to a real gateway (the root
 * form's paths, at `/compat/<dialect>/api/...`) for a new `api`-tier account with the page's
 * ₦50,000, with a token of the dialect in the place of `$TOKEN` (VTpass: its three keys), the
 * account's id in the place of the page's, and its answer compared with the one shown
 * (test/helpers/doc-examples.ts: `...` elides; references, times and ids match by shape and are
 * learned, so a later curl naming a reference the page showed sends the real one). A curl shown
 * without an answer must still be answered 200.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../../helpers/core.js';
import { compare, Substitutions } from '../../helpers/doc-examples.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';
import { startTlsProxy, type TlsProxy } from '../../helpers/tls-proxy.js';
import { call } from './clients.js';
import { sectionCurls } from './doc-curls.js';
import { keysOf } from './vtpass-clients.js';

const test = suite("docs/compat.md's examples");
let core: TestCore;
let gateway: TestGateway;
let tls: TlsProxy;

/** The account id the page's examples show. */
const PAGE_ACCOUNT = 'acc_2728f3885e61be8e';
const START_KOBO = 5_000_000;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core, { compatWaitMs: 2_000, rateLimitPerMinute: 10_000 });
  tls = await startTlsProxy(gateway.port);
});

test.after(async () => {
  await tls?.close();
  await gateway?.close();
  await core?.close();
});

/** Sends a section's curls in order and returns every difference from the page, naming its line. */
async function walk(dialect: string, heading: string, host: string, values: Record<string, string>, accountId: string) {
  const learned = new Substitutions();
  learned.values.set(PAGE_ACCOUNT, accountId);
  const problems: string[] = [];
  const curls = sectionCurls(heading, host);
  for (const curl of curls) {
    const real = (text: string) => text.replace(/\$[A-Z_]+/g, (name) => values[name] ?? name);
    const headers = Object.fromEntries(
      Object.entries(curl.headers)
        .filter(([name]) => name !== 'content-type')
        .map(([name, value]): [string, string] => {
          if (!value.startsWith('Basic ')) return [name, real(value)];
          const [user, pass] = value.slice(6).split(':');
          return [name, `Basic ${Buffer.from(`${learned.real(user!)}:${real(pass!)}`).toString('base64')}`];
        }),
    );
    const path = curl.path
      .split('/')
      .map((segment) => learned.real(segment))
      .join('/');
    const answer = await call(tls.port, curl.method, `/compat/${dialect}${path}`, headers, curl.body);
    if (curl.shown === undefined) {
      if (answer.status !== 200) problems.push(`line ${curl.line}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
      continue;
    }
    const found = compare(curl.shown, answer.json, learned);
    if (found.length > 0) problems.push(`line ${curl.line}: ${found.join('; ')}\n  got ${answer.text.slice(0, 600)}`);
  }
  return { count: curls.length, problems };
}

test('every MSORG curl of docs/compat.md answers what the page shows', async () => {
  const { accountId, publicKey } = await core.createApiAccount({ balanceKobo: START_KOBO });
  await core.admin.setPlanAlias({ accountId, dialect: 'msorg', aliasId: '99', planId: 1n });
  const { token } = await core.admin.createCompatToken({ publicKey, dialect: 'msorg', inFlight: '' });
  const { count, problems } = await walk('msorg', 'MSORG paths', 'compat.example.com', { $TOKEN: token }, accountId);
  assert.ok(count >= 9, `${count} curls: one for every path`);
  assert.equal(problems, [], problems.join('\n'));
});

test('every VTpass curl of docs/compat.md answers what the page shows', async () => {
  const { accountId, publicKey } = await core.createApiAccount({ balanceKobo: START_KOBO });
  const keys = keysOf((await core.admin.createCompatToken({ publicKey, dialect: 'vtpass', inFlight: '' })).token);
  const values = { $API_KEY: keys.apiKey, $PUBLIC_KEY: keys.publicKey, $SECRET_KEY: keys.secretKey };
  const { count, problems } = await walk('vtpass', 'VTpass', 'compat.example.com', values, accountId);
  assert.ok(count >= 6, `${count} curls: one for every path`);
  assert.equal(problems, [], problems.join('\n'));
});

test('every Adex curl of docs/compat.md answers what the page shows', async () => {
  const { accountId, publicKey } = await core.createApiAccount({ balanceKobo: START_KOBO });
  await core.admin.setPlanAlias({ accountId, dialect: 'adex', aliasId: '36', planId: 1n });
  const { token } = await core.admin.createCompatToken({ publicKey, dialect: 'adex', inFlight: '' });
  const { count, problems } = await walk('adex', 'Adex paths', 'adex.example.com', { $TOKEN: token }, accountId);
  assert.ok(count >= 7, `${count} curls: one for every path`);
  assert.equal(problems, [], problems.join('\n'));
});

test.run();
