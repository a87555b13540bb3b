/**
 * The gateway's configuration: one table of environment variables (GATEWAY_SCHEMA) from
 * which both the parser below and the `--help` output come, read in this file and handed to
 * the rest through factories. An invalid value stops the process with an error that names
 * the variable, never a silent fallback.
 */
import type { BlockList } from 'node:net';
import path from 'node:path';
import { addressList, parseAddressList } from '../runtime/client-ip.js';
import {
  ConfigError,
  checkedDrain,
  type Env,
  helpText,
  integer,
  logLevelVariable,
  mongoDbVariable,
  mongoUriVariable,
  oneOf,
  parseInteger,
  readSchema,
  shutdownDrainVariable,
  shutdownTimeoutVariable,
  text,
  variable,
} from '../runtime/env-schema.js';
import { MAX_CONNECTIONS_PER_ADDRESS, MAX_OPEN_CONNECTIONS } from '../runtime/http-bounds.js';
import type { LogLevel } from '../runtime/log.js';
import { ALLOW_PLAINTEXT_VARIABLE, plaintextProblem } from '../runtime/tls.js';
import { readTokenFile, SERVICE_TOKEN_FILE, TokenFileError } from '../runtime/tokens.js';
import { baseUrlText, checkUrl } from '../runtime/url.js';

/** Everything the gateway process needs to know at start. */
export interface GatewayConfig {
  /** TCP port of the public HTTP server; 0 picks a free one (tests). */
  port: number;
  /** Interface the HTTP server binds. */
  host: string;
  /** Paths the API answers at, for example ["/api/v1", "/api"]; no trailing slash. */
  basePaths: readonly string[];
  /** Where the core's gRPC server listens, for example http://127.0.0.1:50051; https:// means TLS. */
  coreUrl: string;
  /** PEM file of the CAs an https:// core's certificate must chain to; absent means the system's roots. */
  coreTlsCa?: string;
  /** CORE_ALLOW_PLAINTEXT=yes: http:// to a core on another machine is accepted. Absent means refused. */
  coreAllowPlaintext?: true;
  /** The token the gateway presents to the core; undefined means read `${dataDir}/service.token`. */
  serviceToken: string | undefined;
  /** The core's data directory, where it writes service.token on first start. */
  dataDir: string;
  /** Proxies whose X-Forwarded-For is believed, as written (IPs or CIDRs). */
  trustedProxies: readonly string[];
  /** Open connections at once from one client address (an IPv6 client by its /64); trusted proxies uncounted. */
  connectionsPerAddress: number;
  /** Requests per minute per API key, counted after authentication. */
  rateLimitPerMinute: number;
  /** Failed authentications per minute per client IP before it is answered 429. */
  authFailuresPerMinute: number;
  /** Upstream callbacks per minute per client address (callbacks.ts). */
  callbacksPerMinute: number;
  /**
   * How long a verified key pair is trusted without asking the core again, in ms. A revoked
   * key, a new IP lock or a tier without API access takes effect within this time.
   */
  authCacheTtlMs: number;
  /** Largest request body read, in bytes. */
  maxBodyBytes: number;
  /**
   * Where the rate-limit counters are shared with the other gateways (MONGODB_URI and
   * MONGODB_DB); absent means each gateway counts in its own memory.
   */
  mongo?: { uri: string; dbName: string };
  /**
   * The secret path segment of VTpass's callback URL (`POST /callbacks/vtpass/<secret>`);
   * absent turns the endpoint off.
   */
  vtpassCallbackSecret?: string;
  /** Least severe log line written. */
  logLevel: LogLevel;
  /** How long a graceful stop may take before open connections are dropped (exit 1). */
  shutdownTimeoutMs: number;
  /** How long /healthz answers 503 while requests are still taken, before the server stops accepting. */
  shutdownDrainMs: number;
  /** Client addresses (IPs or CIDRs) allowed to read GET /metrics; empty turns it off. */
  metricsAllow: readonly string[];
  /**
   * Who may post funding notifications (FUNDING_CALLBACK_ALLOW); empty: anyone (the signature and the re-query
   * protect the money).
   */
  fundingCallbackAllow: readonly string[];
  /**
   * The port of the compatible endpoints' root form (COMPAT_PORT: `/api/...` at its root, in
   * `compatRootDialect`); absent: only `/compat/<dialect>/api/...` on the main port.
   */
  compatPort?: number;
  compatRootDialect: RootDialect;
  /** How long a compatible endpoint waits for a purchase's outcome (COMPAT_WAIT_S), in ms. */
  compatWaitMs: number;
}

/**
 * The dialects COMPAT_PORT may answer at its root: those gateway/compat/ has (core/domain/compat.ts's
 * AVAILABLE_DIALECTS, written here too so that reading the configuration loads nothing of the core).
 */
const ROOT_DIALECTS = ['msorg', 'adex', 'vtpass'] as const;
type RootDialect = (typeof ROOT_DIALECTS)[number];

/** Under the family's clients' own time-outs (30 s and more), with room for the way there and back. */
const DEFAULT_COMPAT_WAIT_S = 25;
const MAX_COMPAT_WAIT_S = 55;

/** The spec's limit (section 8): 60 requests per minute per key. */
const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
/** Ten wrong key pairs a minute is far above any honest misconfiguration and far below guessing. */
const DEFAULT_AUTH_FAILURES_PER_MINUTE = 10;
/**
 * Callbacks an address may send per minute. An upstream sends one per transaction that
 * changes state, retries included; a leaked callback URL must not become a way to make the
 * core ask VTpass without end (the core also asks at most once per reference per 10 s).
 */
const DEFAULT_CALLBACKS_PER_MINUTE = 600;
/** Five seconds: one core call per key every few seconds, and a revocation bites quickly. */
const DEFAULT_AUTH_CACHE_TTL_MS = 5_000;
/**
 * 256 KiB: a bulk SMS to 10,000 recipients (the core's bound) is about 150 KB of JSON
 * (`"08012345678",` is 14 bytes) plus a 1,600-character message; nothing else comes close.
 */
const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
/** The largest cache TTL accepted: longer would let a revoked key live on for minutes. */
const MAX_AUTH_CACHE_TTL_MS = 60_000;
/** Bodies beyond 10 MiB are never legitimate here and would only cost memory. */
const MAX_MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * A callback secret travels in the URL VTpass posts to: URL-safe characters only, and long
 * enough (32+, e.g. `openssl rand -hex 32`) that guessing it is hopeless.
 */
const CALLBACK_SECRET = /^[A-Za-z0-9_-]{32,256}$/;

/**
 * Who may read GET /metrics by default: this machine and the private networks, where a
 * Prometheus server lives; the public internet gets the same 404 as any unknown path.
 */
const DEFAULT_METRICS_ALLOW = '127.0.0.0/8,::1,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7';

/** CORE_PORT on its own: CORE_URL's default is built from it. */
const CORE_PORT = integer('CORE_PORT', {
  fallback: 50051,
  min: 1,
  max: 65535,
  help: 'Port of the core on this machine; only used to build the default `CORE_URL`.',
});

/** The gateway's variables, in the order --help and README.md list them. */
export const GATEWAY_SCHEMA = {
  port: integer('PORT', {
    fallback: 8080,
    min: 0,
    max: 65535,
    help: 'HTTP port of the public API (0 picks a free one).',
  }),
  host: text('HOST', {
    fallback: '::',
    help:
      'Interface the HTTP server binds; the default :: takes IPv6 and IPv4 (0.0.0.0 where the machine has ' +
      'no IPv6).',
  }),
  basePaths: variable('BASE_PATHS', '/api/v1,/api', 'Comma-separated paths the API answers at.', (raw) =>
    parseBasePaths('BASE_PATHS', raw ?? '/api/v1,/api'),
  ),
  corePort: CORE_PORT,
  coreUrl: variable(
    'CORE_URL',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the help shows the variable the default is built from.
    'http://127.0.0.1:${CORE_PORT}',
    "The core's gRPC address, for a gateway running apart from the core.",
    (raw, env) => parseUrl('CORE_URL', raw ?? `http://127.0.0.1:${CORE_PORT.read(env)}`),
  ),
  coreTlsCa: variable(
    'CORE_TLS_CA',
    "the system's roots",
    "PEM file of the CA certificates that signed the core's certificate, for an `https://` `CORE_URL` (which " +
      'always means TLS, verified).',
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
    'The token the gateway presents to the core; the core writes the file on its first start.',
    (raw) => raw,
  ),
  dataDir: text('DATA_DIR', { fallback: './data', help: "The core's data directory (only read for `service.token`)." }),
  trustedProxies: variable(
    'TRUSTED_PROXIES',
    'none',
    'Comma-separated IPs or CIDRs of reverse proxies whose `X-Forwarded-For` is believed.',
    (raw) => parseAddressList('TRUSTED_PROXIES', raw ?? ''),
  ),
  connectionsPerAddress: integer('CONNECTIONS_PER_ADDRESS', {
    fallback: MAX_CONNECTIONS_PER_ADDRESS,
    min: 1,
    max: MAX_OPEN_CONNECTIONS,
    help:
      `Open connections at once from one client address (an IPv6 client by its /64), at most ${MAX_OPEN_CONNECTIONS} ` +
      "(the port's cap); past it the address's new connections are closed. `TRUSTED_PROXIES` are not counted.",
  }),
  rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', {
    fallback: DEFAULT_RATE_LIMIT_PER_MINUTE,
    min: 1,
    max: 1_000_000,
    help: 'Requests per minute per key.',
  }),
  authFailuresPerMinute: integer('AUTH_FAILURES_PER_MINUTE', {
    fallback: DEFAULT_AUTH_FAILURES_PER_MINUTE,
    min: 1,
    max: 1_000_000,
    help: 'Failed authentications per minute per client address (an IPv6 client by its /64).',
  }),
  callbacksPerMinute: integer('CALLBACKS_PER_MINUTE', {
    fallback: DEFAULT_CALLBACKS_PER_MINUTE,
    min: 1,
    max: 1_000_000,
    help: 'Upstream callbacks (VTpass) per minute per client address.',
  }),
  authCacheTtlMs: integer('AUTH_CACHE_TTL_MS', {
    fallback: DEFAULT_AUTH_CACHE_TTL_MS,
    min: 0,
    max: MAX_AUTH_CACHE_TTL_MS,
    help: `How long a verified key pair is trusted without asking the core (0 to ${MAX_AUTH_CACHE_TTL_MS}).`,
  }),
  maxBodyBytes: integer('MAX_BODY_BYTES', {
    fallback: DEFAULT_MAX_BODY_BYTES,
    min: 1024,
    max: MAX_MAX_BODY_BYTES,
    help: 'Largest request body, in bytes.',
  }),
  mongoUri: mongoUriVariable(
    'none (limits counted in memory)',
    'MongoDB connection string; when set, the rate limits are counted there for every gateway together.',
  ),
  mongoDb: mongoDbVariable('Database of the shared rate-limit counters (`rate_limits` collection).'),
  vtpassCallbackSecret: variable(
    'VTPASS_CALLBACK_SECRET',
    'none (callbacks off)',
    'Secret path segment of the VTpass callback URL, `POST /callbacks/vtpass/<secret>` (32 to 256 letters, ' +
      'digits, `_` or `-`).',
    (raw) => {
      // The value is never echoed: it is a secret.
      if (raw !== undefined && !CALLBACK_SECRET.test(raw))
        throw new ConfigError(
          'VTPASS_CALLBACK_SECRET',
          'must be 32 to 256 letters, digits, "_" or "-" (it is part of a URL).',
        );
      return raw;
    },
  ),
  logLevel: logLevelVariable(),
  shutdownTimeoutMs: shutdownTimeoutVariable(
    'How long a graceful stop (SIGTERM, SIGINT) may take; past it open connections are dropped and the process ' +
      'exits 1.',
  ),
  shutdownDrainMs: shutdownDrainVariable(
    'On a stop, how long `/healthz` answers 503 while requests are still taken, before the gateway stops ' +
      'accepting; what a load balancer needs to notice (counts within `SHUTDOWN_TIMEOUT_MS`).',
  ),
  metricsAllow: variable(
    'METRICS_ALLOW',
    DEFAULT_METRICS_ALLOW,
    'Client IPs or CIDRs that may read `GET /metrics` (this machine and private networks by default); `none` ' +
      'turns it off.',
    (raw) => (raw?.toLowerCase() === 'none' ? [] : parseAddressList('METRICS_ALLOW', raw ?? DEFAULT_METRICS_ALLOW)),
  ),
  fundingCallbackAllow: variable(
    'FUNDING_CALLBACK_ALLOW',
    'any',
    'Client IPs or CIDRs that may post `/callbacks/paystack` and `/callbacks/monnify` (the providers publish ' +
      'theirs: Paystack 52.31.139.75, 52.49.173.169, 52.214.14.220; Monnify 35.242.133.146); `any` by default, ' +
      "since each notification's signature and the core's re-query are what protect the money.",
    (raw) =>
      raw === undefined || raw === '' || raw.toLowerCase() === 'any'
        ? []
        : parseAddressList('FUNDING_CALLBACK_ALLOW', raw),
  ),
  compatPort: variable(
    'COMPAT_PORT',
    'none (root form off)',
    "Port of the compatible endpoints' root form: `/api/...` at its root in `COMPAT_ROOT_DIALECT`, for reseller " +
      'software that builds its URLs from a bare host ([compat.md](compat.md)).',
    (raw) => (raw === undefined || raw === '' ? undefined : parseInteger('COMPAT_PORT', raw, 0, 0, 65535)),
  ),
  compatRootDialect: oneOf('COMPAT_ROOT_DIALECT', {
    words: ROOT_DIALECTS,
    fallback: 'msorg',
    help: 'The dialect `COMPAT_PORT` answers at its root.',
  }),
  compatWaitS: integer('COMPAT_WAIT_S', {
    fallback: DEFAULT_COMPAT_WAIT_S,
    min: 0,
    max: MAX_COMPAT_WAIT_S,
    help:
      "How long a compatible endpoint waits for a purchase's outcome before it answers the token's in-flight word, " +
      "in seconds (under the clients' own time-outs).",
  }),
} as const;

/** The `--help` text of the gateway. */
export function gatewayConfigHelp(): string {
  return helpText('Gateway configuration', GATEWAY_SCHEMA);
}

/** Reads and validates the gateway configuration from an environment. */
export function loadGatewayConfig(env: Env = process.env): GatewayConfig {
  const v = readSchema(GATEWAY_SCHEMA, env);
  return {
    port: v.port,
    host: v.host,
    basePaths: v.basePaths,
    coreUrl: checkedCoreUrl(v.coreUrl, v.coreTlsCa, v.coreAllowPlaintext === 'yes'),
    ...(v.coreTlsCa === undefined ? {} : { coreTlsCa: v.coreTlsCa }),
    ...(v.coreAllowPlaintext === 'yes' ? { coreAllowPlaintext: true as const } : {}),
    serviceToken: v.serviceToken,
    dataDir: v.dataDir,
    trustedProxies: v.trustedProxies,
    connectionsPerAddress: v.connectionsPerAddress,
    rateLimitPerMinute: v.rateLimitPerMinute,
    authFailuresPerMinute: v.authFailuresPerMinute,
    callbacksPerMinute: v.callbacksPerMinute,
    authCacheTtlMs: v.authCacheTtlMs,
    maxBodyBytes: v.maxBodyBytes,
    // Only present when set, so that a gateway without MongoDB has exactly the old shape.
    ...(v.mongoUri === undefined ? {} : { mongo: { uri: v.mongoUri, dbName: v.mongoDb } }),
    ...(v.vtpassCallbackSecret === undefined ? {} : { vtpassCallbackSecret: v.vtpassCallbackSecret }),
    logLevel: v.logLevel,
    shutdownTimeoutMs: v.shutdownTimeoutMs,
    shutdownDrainMs: checkedDrain(v.shutdownDrainMs, v.shutdownTimeoutMs),
    metricsAllow: v.metricsAllow,
    fundingCallbackAllow: v.fundingCallbackAllow,
    ...(v.compatPort === undefined ? {} : { compatPort: v.compatPort }),
    compatRootDialect: v.compatRootDialect,
    compatWaitMs: v.compatWaitS * 1000,
  };
}

/**
 * CORE_URL against the TLS settings: a CA only means something for https://, and http:// to
 * another machine needs the operator's explicit opt-in (the token would travel readable).
 */
function checkedCoreUrl(coreUrl: string, tlsCa: string | undefined, allowPlaintext: boolean): string {
  const url = new URL(coreUrl);
  if (tlsCa !== undefined && url.protocol !== 'https:')
    throw new ConfigError(
      'CORE_TLS_CA',
      'is set, but CORE_URL is not https://; TLS to the core needs an https:// CORE_URL.',
    );
  const problem = plaintextProblem(url, allowPlaintext);
  if (problem !== undefined) throw new ConfigError('CORE_URL', problem);
  return coreUrl;
}

/**
 * The service token to present to the core: SERVICE_TOKEN, or the file the core writes
 * into its data directory on first start. There is no default: a secret that is missing
 * stops the gateway at start rather than at the first request.
 */
export function resolveServiceToken(config: GatewayConfig): string {
  if (config.serviceToken !== undefined) return config.serviceToken;
  const file = path.join(config.dataDir, SERVICE_TOKEN_FILE);
  let token: string | null;
  try {
    token = readTokenFile(config.dataDir, SERVICE_TOKEN_FILE);
  } catch (error) {
    if (error instanceof TokenFileError) throw new ConfigError('SERVICE_TOKEN', `is not set and ${error.message}`);
    throw error;
  }
  if (token === null)
    throw new ConfigError(
      'SERVICE_TOKEN',
      `is not set and ${file} cannot be read or is empty; start the core first or set SERVICE_TOKEN.`,
    );
  return token;
}

/** A BlockList of the trusted proxies, for fast address checks. */
export function trustedProxyList(entries: readonly string[]): BlockList {
  return addressList('TRUSTED_PROXIES', entries);
}

function parseUrl(name: string, text: string): string {
  const checked = checkUrl(text, { schemes: ['http:', 'https:'], example: 'http://127.0.0.1:50051' });
  if (checked.problem !== undefined) throw new ConfigError(name, checked.problem);
  return baseUrlText(checked.url);
}

/** Paths the gateway itself answers; a base path there would hide them. */
const RESERVED_PATHS = ['/healthz', '/metrics', '/openapi.json'];

function parseBasePaths(name: string, text: string): string[] {
  const paths = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (paths.length === 0) throw new ConfigError(name, 'must name at least one path.');
  return paths.map((p) => {
    if (!/^\/[A-Za-z0-9._~\-/]*$/.test(p)) throw new ConfigError(name, `"${p}" is not a path starting with "/".`);
    // "/" would swallow /healthz and every other path; a base path must be a real prefix.
    const trimmed = p.replace(/\/+$/, '');
    if (trimmed === '') throw new ConfigError(name, '"/" cannot be a base path.');
    if (RESERVED_PATHS.includes(trimmed))
      throw new ConfigError(name, `"${trimmed}" is reserved (${RESERVED_PATHS.join(', ')}).`);
    return trimmed;
  });
}
