/**
 * The gateway's configuration: one typed, validated object read from the environment in
 * this file and handed to the rest through factories. An invalid value stops the process
 * with an error that names the variable, never a silent fallback.
 */
import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import path from 'node:path';

/** Everything the gateway process needs to know at start. */
export interface GatewayConfig {
  /** TCP port of the public HTTP server; 0 picks a free one (tests). */
  port: number;
  /** Interface the HTTP server binds. */
  host: string;
  /** Paths the API answers at, for example ["/api/v1", "/api"]; no trailing slash. */
  basePaths: readonly string[];
  /** Where the core's gRPC server listens, for example http://127.0.0.1:50051. */
  coreUrl: string;
  /** The token the gateway presents to the core; undefined means read `${dataDir}/service.token`. */
  serviceToken: string | undefined;
  /** The core's data directory, where it writes service.token on first start. */
  dataDir: string;
  /** Proxies whose X-Forwarded-For is believed, as written (IPs or CIDRs). */
  trustedProxies: readonly string[];
  /** Requests per minute per API key, counted after authentication. */
  rateLimitPerMinute: number;
  /** Failed authentications per minute per client IP before it is answered 429. */
  authFailuresPerMinute: number;
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
}

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** The spec's limit (section 8): 60 requests per minute per key. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
/** Ten wrong key pairs a minute is far above any honest misconfiguration and far below guessing. */
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 10;
/** Five seconds: one core call per key every few seconds, and a revocation bites quickly. */
export const DEFAULT_AUTH_CACHE_TTL_MS = 5_000;
/**
 * 256 KiB: a bulk SMS to 10,000 recipients (the core's bound) is about 150 KB of JSON
 * (`"08012345678",` is 14 bytes) plus a 1,600-character message; nothing else comes close.
 */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
/** The database the counters live in when MONGODB_DB is not set: the core's default, so one setting serves both. */
export const DEFAULT_MONGODB_DB = 'prepaid';
/** The largest cache TTL accepted: longer would let a revoked key live on for minutes. */
const MAX_AUTH_CACHE_TTL_MS = 60_000;
/** Bodies beyond 10 MiB are never legitimate here and would only cost memory. */
const MAX_MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * A callback secret travels in the URL VTpass posts to: URL-safe characters only, and long
 * enough (32+, e.g. `openssl rand -hex 32`) that guessing it is hopeless.
 */
const CALLBACK_SECRET = /^[A-Za-z0-9_-]{32,256}$/;

/** Reads and validates the gateway configuration from an environment. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const corePort = readInteger(env, 'CORE_PORT', 50051, 1, 65535);
  const coreUrl = readUrl(env, 'CORE_URL', `http://127.0.0.1:${corePort}`);
  const serviceToken = readOptional(env, 'SERVICE_TOKEN');
  const mongo = readMongo(env);
  const vtpassCallbackSecret = readCallbackSecret(env, 'VTPASS_CALLBACK_SECRET');
  return {
    port: readInteger(env, 'PORT', 8080, 0, 65535),
    host: readOptional(env, 'HOST') ?? '0.0.0.0',
    basePaths: readBasePaths(env, 'BASE_PATHS', '/api/v1,/api'),
    coreUrl,
    serviceToken,
    dataDir: readOptional(env, 'DATA_DIR') ?? './data',
    trustedProxies: readTrustedProxies(env, 'TRUSTED_PROXIES'),
    rateLimitPerMinute: readInteger(env, 'RATE_LIMIT_PER_MINUTE', DEFAULT_RATE_LIMIT_PER_MINUTE, 1, 1_000_000),
    authFailuresPerMinute: readInteger(env, 'AUTH_FAILURES_PER_MINUTE', DEFAULT_AUTH_FAILURES_PER_MINUTE, 1, 1_000_000),
    authCacheTtlMs: readInteger(env, 'AUTH_CACHE_TTL_MS', DEFAULT_AUTH_CACHE_TTL_MS, 0, MAX_AUTH_CACHE_TTL_MS),
    maxBodyBytes: readInteger(env, 'MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, 1024, MAX_MAX_BODY_BYTES),
    // Only present when set, so that a gateway without MongoDB has exactly the old shape.
    ...(mongo === undefined ? {} : { mongo }),
    ...(vtpassCallbackSecret === undefined ? {} : { vtpassCallbackSecret }),
  };
}

/**
 * The service token to present to the core: SERVICE_TOKEN, or the file the core writes
 * into its data directory on first start. There is no default: a secret that is missing
 * stops the gateway at start rather than at the first request.
 */
export function resolveServiceToken(config: GatewayConfig): string {
  if (config.serviceToken !== undefined) return config.serviceToken;
  const file = path.join(config.dataDir, 'service.token');
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch {
    throw new ConfigError('SERVICE_TOKEN', `is not set and ${file} cannot be read; start the core first or set SERVICE_TOKEN.`);
  }
  if (token.length === 0) throw new ConfigError('SERVICE_TOKEN', `is not set and ${file} is empty.`);
  return token;
}

/** A BlockList of the trusted proxies, for fast address checks. */
export function trustedProxyList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parseAddressOrCidr(entry);
    if (parsed === undefined) throw new ConfigError('TRUSTED_PROXIES', `"${entry}" is not an IP address or CIDR.`);
    if (parsed.prefix === undefined) list.addAddress(parsed.address, parsed.family);
    else list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return list;
}

function readCallbackSecret(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = readOptional(env, name);
  if (text === undefined) return undefined;
  // The value is never echoed: it is a secret.
  if (!CALLBACK_SECRET.test(text)) throw new ConfigError(name, 'must be 32 to 256 letters, digits, "_" or "-" (it is part of a URL).');
  return text;
}

function readOptional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * MONGODB_URI (scheme and a host; the driver checks the rest when it connects) and
 * MONGODB_DB (MongoDB's database name rules). The URI may hold credentials: no message
 * repeats it.
 */
function readMongo(env: NodeJS.ProcessEnv): { uri: string; dbName: string } | undefined {
  const uri = readOptional(env, 'MONGODB_URI');
  if (uri === undefined) return undefined;
  if (!/^mongodb(\+srv)?:\/\/[^/?#]+/.test(uri)) {
    throw new ConfigError('MONGODB_URI', 'must be a mongodb:// or mongodb+srv:// connection string with at least one host.');
  }
  const dbName = readOptional(env, 'MONGODB_DB') ?? DEFAULT_MONGODB_DB;
  if (!/^[^/\\. "$*<>:|?\0]+$/.test(dbName) || Buffer.byteLength(dbName, 'utf8') > 63) {
    throw new ConfigError('MONGODB_DB', `"${dbName}" is not a MongoDB database name (at most 63 bytes, none of / \\ . space " $ * < > : | ?).`);
  }
  return { uri, dbName };
}

function readInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = readOptional(env, name);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw new ConfigError(name, `"${text}" is not a whole number.`);
  const value = Number(text);
  if (value < min || value > max) throw new ConfigError(name, `${value} is outside ${min}..${max}.`);
  return value;
}

function readUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const text = readOptional(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(name, `"${text}" is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `"${text}" must start with http:// or https://.`);
  }
  return text.replace(/\/+$/, '');
}

function readBasePaths(env: NodeJS.ProcessEnv, name: string, fallback: string): string[] {
  const text = readOptional(env, name) ?? fallback;
  const paths = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (paths.length === 0) throw new ConfigError(name, 'must name at least one path.');
  return paths.map((p) => {
    if (!/^\/[A-Za-z0-9._~\-/]*$/.test(p)) throw new ConfigError(name, `"${p}" is not a path starting with "/".`);
    // "/" would swallow /healthz and every other path; a base path must be a real prefix.
    const trimmed = p.replace(/\/+$/, '');
    if (trimmed === '') throw new ConfigError(name, '"/" cannot be a base path.');
    if (trimmed === '/healthz') throw new ConfigError(name, '"/healthz" is reserved for the health check.');
    return trimmed;
  });
}

function readTrustedProxies(env: NodeJS.ProcessEnv, name: string): string[] {
  const text = readOptional(env, name);
  if (text === undefined) return [];
  const entries = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  for (const entry of entries) {
    if (parseAddressOrCidr(entry) === undefined) throw new ConfigError(name, `"${entry}" is not an IP address or CIDR.`);
  }
  return entries;
}

interface ParsedAddress {
  address: string;
  family: 'ipv4' | 'ipv6';
  prefix: number | undefined;
}

function parseAddressOrCidr(entry: string): ParsedAddress | undefined {
  const [address = '', prefixText, extra] = entry.split('/');
  if (extra !== undefined) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, family, prefix: undefined };
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > (version === 4 ? 32 : 128)) return undefined;
  return { address, family, prefix };
}
