/**
 * Upstreams as named instances: which upstreams this deployment may buy from,
 * each with its kind, address and credentials. Pure: it reads an environment and returns the
 * instances or throws a ConfigError naming the variable at fault, and it never echoes a
 * credential.
 *
 *   UPSTREAMS=datahub,ck
 *   UPSTREAM_DATAHUB_KIND=ported-number   UPSTREAM_DATAHUB_BASE_URL=...   UPSTREAM_DATAHUB_TOKEN=...
 *   UPSTREAM_CK_KIND=clubkonnect          UPSTREAM_CK_USER_ID=...         UPSTREAM_CK_API_KEY=...
 *
 * The instance named `vtpass` is configured by the existing VTPASS_* variables and needs no
 * declaration. Instances are parsed and checked only; routing purchases to them arrives in a
 * later change.
 */
import { ConfigError, type Env } from '../../runtime/env-schema.js';
import { checkUrl } from '../../runtime/url.js';

/** The adapters an instance can be. */
const UPSTREAM_KINDS = ['vtpass', 'clubkonnect', 'ported-number', 'sandbox'] as const;
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number];

/** One configured upstream. Credentials are kept as given; they are never logged. */
export type UpstreamInstance =
  | { name: string; kind: 'vtpass'; baseUrl: string; apiKey: string; publicKey: string; secretKey: string }
  | { name: string; kind: 'clubkonnect'; baseUrl: string; userId: string; apiKey: string }
  | { name: string; kind: 'ported-number'; baseUrl: string; token: string }
  | { name: string; kind: 'sandbox' };

/**
 * VTpass's address when VTPASS_BASE_URL is unset, for a named instance and the core's own
 * configuration alike: its sandbox, so a deployment reaches the live API only when told to.
 */
export const DEFAULT_VTPASS_BASE_URL = 'https://sandbox.vtpass.com/api/';
/** ClubKonnect's API host; (unsure) see docs/upstreams.md: ClubKonnect's documentation could not confirm it. */
const CLUBKONNECT_DEFAULT_BASE_URL = 'https://www.nellobytesystems.com/';

/** An instance name: lower case, as it appears in UPSTREAMS and in routes. */
const NAME_PATTERN = /^[a-z][a-z0-9]{0,23}$/;
/** The settings each kind takes after UPSTREAM_<NAME>_. */
const SETTINGS: Readonly<Record<UpstreamKind, readonly string[]>> = {
  vtpass: [],
  clubkonnect: ['KIND', 'BASE_URL', 'USER_ID', 'API_KEY'],
  'ported-number': ['KIND', 'BASE_URL', 'TOKEN'],
  sandbox: ['KIND'],
};

/** Reads UPSTREAMS, UPSTREAM_<NAME>_* and VTPASS_* into the configured instances, in declaration order. */
export function parseUpstreams(env: Env): UpstreamInstance[] {
  const declared = declaredNames(env);
  const instances: UpstreamInstance[] = [];
  for (const name of declared) {
    if (name === 'vtpass') continue;
    instances.push(readInstance(env, name));
  }
  const vtpass = readVtpass(env, declared.includes('vtpass'));
  if (vtpass !== undefined) {
    const at = declared.indexOf('vtpass');
    instances.splice(at === -1 ? 0 : at, 0, vtpass);
  }
  refuseStrays(env, declared);
  return instances;
}

function declaredNames(env: Env): string[] {
  const raw = env['UPSTREAMS'];
  if (raw === undefined || raw.trim() === '') return [];
  const names = raw.split(',').map((part) => part.trim());
  const seen = new Set<string>();
  for (const name of names) {
    if (!NAME_PATTERN.test(name)) {
      throw new ConfigError(
        'UPSTREAMS',
        'must be upstream names separated by commas, each a lower-case letter then up to 23 letters or digits; ' +
          `got ${JSON.stringify(name.slice(0, 40))}.`,
      );
    }
    if (seen.has(name)) throw new ConfigError('UPSTREAMS', `names ${name} twice.`);
    seen.add(name);
  }
  return names;
}

function variableOf(name: string, setting: string): string {
  return `UPSTREAM_${name.toUpperCase()}_${setting}`;
}

function readInstance(env: Env, name: string): UpstreamInstance {
  const kindVariable = variableOf(name, 'KIND');
  const kind = env[kindVariable];
  if (kind === undefined || kind === '')
    throw new ConfigError(kindVariable, `is required because UPSTREAMS names ${name}; one of ${kindsText()}.`);
  if (kind === 'vtpass')
    throw new ConfigError(
      kindVariable,
      'cannot be vtpass: the one VTpass instance is named vtpass and configured by the VTPASS_* variables.',
    );
  if (!(UPSTREAM_KINDS as readonly string[]).includes(kind))
    throw new ConfigError(kindVariable, `must be one of ${kindsText()}; got ${JSON.stringify(kind.slice(0, 40))}.`);
  const allowed = SETTINGS[kind as UpstreamKind];
  for (const key of Object.keys(env)) {
    const prefix = `UPSTREAM_${name.toUpperCase()}_`;
    if (key.startsWith(prefix) && env[key] !== undefined && !allowed.includes(key.slice(prefix.length))) {
      throw new ConfigError(
        key,
        `is not a setting of a ${kind} upstream; it takes ${allowed.map((s) => prefix + s).join(', ')}.`,
      );
    }
  }
  switch (kind as Exclude<UpstreamKind, 'vtpass'>) {
    case 'sandbox':
      return { name, kind: 'sandbox' };
    case 'clubkonnect':
      return {
        name,
        kind: 'clubkonnect',
        baseUrl: upstreamUrl(
          variableOf(name, 'BASE_URL'),
          env[variableOf(name, 'BASE_URL')] ?? CLUBKONNECT_DEFAULT_BASE_URL,
        ),
        userId: credential(env, variableOf(name, 'USER_ID'), name),
        apiKey: credential(env, variableOf(name, 'API_KEY'), name),
      };
    case 'ported-number': {
      const urlVariable = variableOf(name, 'BASE_URL');
      const base = env[urlVariable];
      if (base === undefined || base === '')
        throw new ConfigError(
          urlVariable,
          `is required for the ported-number upstream ${name}: ` +
            'every site has its own address, such as https://site.example/api/.',
        );
      return {
        name,
        kind: 'ported-number',
        baseUrl: upstreamUrl(urlVariable, base),
        token: credential(env, variableOf(name, 'TOKEN'), name),
      };
    }
  }
}

/** The vtpass instance: present when UPSTREAMS names it or any VTpass key is set. */
function readVtpass(env: Env, declared: boolean): UpstreamInstance | undefined {
  const keys = ['VTPASS_API_KEY', 'VTPASS_PUBLIC_KEY', 'VTPASS_SECRET_KEY'] as const;
  if (!declared && keys.every((key) => env[key] === undefined)) return undefined;
  const why = declared ? 'because UPSTREAMS names vtpass' : 'because another VTPASS_*_KEY is set';
  const [apiKey, publicKey, secretKey] = keys.map((key) => credentialValue(key, env[key], why)) as [
    string,
    string,
    string,
  ];
  return {
    name: 'vtpass',
    kind: 'vtpass',
    baseUrl: upstreamUrl('VTPASS_BASE_URL', env['VTPASS_BASE_URL'] ?? DEFAULT_VTPASS_BASE_URL),
    apiKey,
    publicKey,
    secretKey,
  };
}

/** UPSTREAM_<NAME>_* of a name UPSTREAMS does not declare is almost always a typo. */
function refuseStrays(env: Env, declared: readonly string[]): void {
  const prefixes = declared.map((name) => `UPSTREAM_${name.toUpperCase()}_`);
  for (const key of Object.keys(env)) {
    // UPSTREAM_FLOAT_POLL_MS is the float poller's, not an instance's.
    if (!key.startsWith('UPSTREAM_') || env[key] === undefined || key === 'UPSTREAM_FLOAT_POLL_MS') continue;
    if (key.startsWith('UPSTREAM_VTPASS_'))
      throw new ConfigError(key, 'is not read: the vtpass instance is configured by the VTPASS_* variables.');
    if (!prefixes.some((prefix) => key.startsWith(prefix)))
      throw new ConfigError(key, 'belongs to no upstream: add its name to UPSTREAMS or remove it.');
  }
}

function credential(env: Env, variable: string, name: string): string {
  return credentialValue(variable, env[variable], `for the upstream ${name}`);
}

/** A credential: present, one word, at most 200 characters. The value is never echoed. */
function credentialValue(variable: string, value: string | undefined, why: string): string {
  if (value === undefined || value === '') throw new ConfigError(variable, `is required ${why}.`);
  if (value.length > 200 || /\s/.test(value))
    throw new ConfigError(variable, 'must be one word of at most 200 characters.');
  return value;
}

/** https, or http to this machine only (a local fake); never credentials in the URL. */
function upstreamUrl(variable: string, text: string): string {
  const checked = checkUrl(text, { schemes: ['https:', 'http:'], plainHttpOnlyToLoopback: true, noCredentials: true });
  if (checked.problem !== undefined) throw new ConfigError(variable, checked.problem);
  return checked.url.href;
}

function kindsText(): string {
  return UPSTREAM_KINDS.filter((k) => k !== 'vtpass').join(', ');
}
