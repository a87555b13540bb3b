/**
 * The dashboard's configuration: one table of environment variables (DASHBOARD_SCHEMA), from
 * which the parser, `--help` and the README's table all come, as for the core and the
 * gateway. An invalid value stops the process with an error that names the variable.
 *
 * The variables that say where the core is (CORE_URL, CORE_TLS_CA, CORE_ALLOW_PLAINTEXT,
 * SERVICE_TOKEN, DATA_DIR) mean what they mean for the gateway, so one environment serves
 * both under `npm start`.
 */
import { BlockList, isIP } from 'node:net';
import {
  ConfigError,
  type Env,
  helpText,
  integer,
  logLevelVariable,
  oneOf,
  readSchema,
  shutdownTimeoutVariable,
  text,
  variable,
} from '../runtime/env-schema.js';
import type { LogLevel } from '../runtime/log.js';
import { ALLOW_PLAINTEXT_VARIABLE, plaintextProblem } from '../runtime/tls.js';
import { loadOrCreateToken, serviceTokenOf } from '../runtime/tokens.js';
import { baseUrlText, checkUrl } from '../runtime/url.js';

/** Everything the dashboard process needs to know at start. */
export interface DashboardConfig {
  /** TCP port of the dashboard's HTTP server; 0 picks a free one (tests). */
  port: number;
  /** Interface the HTTP server binds. */
  host: string;
  /** Where people reach the dashboard, without a trailing slash; invitation links start with it. */
  publicUrl: string;
  /** The public API's base URL, shown on the Developers page and in its curl examples. */
  apiUrl: string;
  /** Where the platform's README is published; the Webhooks page links its signature section. Empty when unset. */
  docsUrl: string;
  /** Whether the session cookie carries `Secure` (never sent over plain http). */
  secureCookies: boolean;
  /** Proxies whose X-Forwarded-For is believed, as written (IPs or CIDRs). */
  trustedProxies: readonly string[];
  /** Where the core's gRPC server listens, for example http://127.0.0.1:50051. */
  coreUrl: string;
  /** PEM file of the CAs an https:// core's certificate must chain to. */
  coreTlsCa?: string;
  /** CORE_ALLOW_PLAINTEXT=yes: http:// to a core on another machine is accepted. */
  coreAllowPlaintext?: true;
  /** The token presented to the core; undefined means read `${dataDir}/service.token`. */
  serviceToken: string | undefined;
  /** Key of the CSRF tokens' HMAC; undefined means read or create `${dataDir}/dashboard.secret`. */
  secret: string | undefined;
  /** The core's data directory (service.token, dashboard.secret). */
  dataDir: string;
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
}

/** The file the dashboard keeps its CSRF key in, beside the core's tokens. */
const DASHBOARD_SECRET_FILE = 'dashboard.secret';

/** Long enough that the HMAC key cannot be guessed: 32 characters of base64url is 192 bits. */
const MIN_SECRET_CHARS = 32;

const CORE_PORT = integer('CORE_PORT', {
  fallback: 50051,
  min: 1,
  max: 65535,
  help: 'Port of the core on this machine; only used to build the default `CORE_URL`.',
});

const DASHBOARD_PORT = integer('DASHBOARD_PORT', {
  fallback: 8081,
  min: 0,
  max: 65535,
  help: 'HTTP port of the developer area (0 picks a free one).',
});

/** The dashboard's variables, in the order --help and README.md list them. */
export const DASHBOARD_SCHEMA = {
  port: DASHBOARD_PORT,
  host: text('DASHBOARD_HOST', {
    fallback: '::',
    help: 'Interface the developer area binds; `::` takes IPv6 and IPv4.',
  }),
  publicUrl: variable(
    'DASHBOARD_PUBLIC_URL',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the help text shows the variable the default is built from.
    'http://localhost:${DASHBOARD_PORT}',
    'The address people open the developer area at (behind a TLS proxy, its https:// address); invitation ' +
      'links start with it.',
    (raw, env) => parseUrl('DASHBOARD_PUBLIC_URL', raw ?? `http://localhost:${DASHBOARD_PORT.read(env) || 8081}`),
  ),
  apiUrl: variable(
    'DASHBOARD_API_URL',
    'http://localhost:8080/api/v1',
    'The public API base URL shown on the Developers page and in its curl examples.',
    (raw) => parseUrl('DASHBOARD_API_URL', raw ?? 'http://localhost:8080/api/v1'),
  ),
  docsUrl: variable(
    'DASHBOARD_DOCS_URL',
    'none',
    "Where the platform's README is published (an http(s) address); the Webhooks page links its `Webhooks and " +
      'events` section. Unset, the page names the section without a link.',
    (raw) => (raw === undefined || raw.trim() === '' ? '' : parseUrl('DASHBOARD_DOCS_URL', raw)),
  ),
  secureCookies: oneOf('DASHBOARD_SECURE_COOKIES', {
    words: ['auto', 'yes', 'no'],
    fallback: 'auto',
    help:
      '`yes` marks the session cookie `Secure` (sent over https only); `auto` does when ' +
      '`DASHBOARD_PUBLIC_URL` is https://, as behind a TLS proxy.',
  }),
  trustedProxies: variable(
    'DASHBOARD_TRUSTED_PROXIES',
    'none',
    'Comma-separated IPs or CIDRs of reverse proxies whose `X-Forwarded-For` is believed (the address sign-in ' +
      'attempts are counted by).',
    (raw) => parseAddressList('DASHBOARD_TRUSTED_PROXIES', raw ?? ''),
  ),
  corePort: CORE_PORT,
  coreUrl: variable(
    'CORE_URL',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the help shows the variable the default is built from.
    'http://127.0.0.1:${CORE_PORT}',
    "The core's gRPC address, for a dashboard running apart from the core.",
    (raw, env) => parseUrl('CORE_URL', raw ?? `http://127.0.0.1:${CORE_PORT.read(env)}`),
  ),
  coreTlsCa: variable(
    'CORE_TLS_CA',
    "the system's roots",
    "PEM file of the CA certificates that signed the core's certificate, for an `https://` `CORE_URL`.",
    (raw) => raw,
  ),
  coreAllowPlaintext: oneOf(ALLOW_PLAINTEXT_VARIABLE, {
    words: ['no', 'yes'],
    fallback: 'no',
    help:
      '`yes` lets an `http://` `CORE_URL` name another machine, so the service token travels unencrypted; ' +
      'only for a private, trusted network.',
  }),
  serviceToken: variable(
    'SERVICE_TOKEN',
    'read from `DATA_DIR/service.token`',
    'The token the dashboard presents to the core.',
    (raw) => raw,
  ),
  secret: variable(
    'DASHBOARD_SECRET',
    'generated in `DATA_DIR/dashboard.secret`',
    `Key of the forms' CSRF tokens (at least ${MIN_SECRET_CHARS} characters); every dashboard behind one ` +
      `address needs the same.`,
    (raw) => {
      // The value is never echoed: it is a secret.
      if (raw !== undefined && raw.length < MIN_SECRET_CHARS)
        throw new ConfigError('DASHBOARD_SECRET', `must be at least ${MIN_SECRET_CHARS} characters.`);
      return raw;
    },
  ),
  dataDir: text('DATA_DIR', {
    fallback: './data',
    help: "The core's data directory (`service.token`, `dashboard.secret`).",
  }),
  logLevel: logLevelVariable(),
  shutdownTimeoutMs: shutdownTimeoutVariable(
    'How long a graceful stop may take; past it open connections are dropped and the process exits 1.',
  ),
} as const;

/** The `--help` text of the dashboard. */
export function dashboardConfigHelp(): string {
  return helpText('Dashboard configuration', DASHBOARD_SCHEMA);
}

/** Reads and validates the dashboard configuration from an environment. */
export function loadDashboardConfig(env: Env = process.env): DashboardConfig {
  const v = readSchema(DASHBOARD_SCHEMA, env);
  const url = new URL(v.coreUrl);
  if (v.coreTlsCa !== undefined && url.protocol !== 'https:')
    throw new ConfigError(
      'CORE_TLS_CA',
      'is set, but CORE_URL is not https://; TLS to the core needs an https:// CORE_URL.',
    );
  const problem = plaintextProblem(url, v.coreAllowPlaintext === 'yes');
  if (problem !== undefined) throw new ConfigError('CORE_URL', problem);
  const publicHttps = v.publicUrl.startsWith('https:');
  if (v.secureCookies === 'no' && publicHttps)
    throw new ConfigError(
      'DASHBOARD_SECURE_COOKIES',
      'is no, but DASHBOARD_PUBLIC_URL is https://; a session cookie sent over plain http could be read on the way.',
    );
  return {
    port: v.port,
    host: v.host,
    publicUrl: v.publicUrl,
    apiUrl: v.apiUrl,
    docsUrl: v.docsUrl,
    secureCookies: v.secureCookies === 'yes' || (v.secureCookies === 'auto' && publicHttps),
    trustedProxies: v.trustedProxies,
    coreUrl: v.coreUrl,
    ...(v.coreTlsCa === undefined ? {} : { coreTlsCa: v.coreTlsCa }),
    ...(v.coreAllowPlaintext === 'yes' ? { coreAllowPlaintext: true as const } : {}),
    serviceToken: v.serviceToken,
    secret: v.secret,
    dataDir: v.dataDir,
    logLevel: v.logLevel,
    shutdownTimeoutMs: v.shutdownTimeoutMs,
  };
}

/** The service token: SERVICE_TOKEN, or the file the core writes on its first start. */
export function resolveDashboardServiceToken(config: DashboardConfig): string {
  return serviceTokenOf(config.dataDir, config.serviceToken);
}

/** The CSRF key: DASHBOARD_SECRET, or the one in the data directory, made on first start. */
export function resolveDashboardSecret(config: DashboardConfig): string {
  return loadOrCreateToken(config.dataDir, DASHBOARD_SECRET_FILE, config.secret ?? null);
}

/** The trusted proxies as a BlockList for lookups. */
export function proxyList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

function parseUrl(name: string, raw: string): string {
  const checked = checkUrl(raw, {
    schemes: ['http:', 'https:'],
    noCredentials: true,
    example: 'https://dashboard.example.com',
  });
  if (checked.problem !== undefined) throw new ConfigError(name, checked.problem);
  return baseUrlText(checked.url);
}

/** A comma-separated list of IPs and CIDRs, as written; empty text is an empty list. */
function parseAddressList(name: string, raw: string): string[] {
  const entries = raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const version = isIP(address);
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
    if (version === 0 || extra !== undefined || !prefixOk)
      throw new ConfigError(name, `"${entry}" is not an IP address or CIDR.`);
  }
  return entries;
}
