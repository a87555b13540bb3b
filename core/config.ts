/**
 * The core's configuration: one typed schema read from the environment, validated at
 * start with an error that names the variable. Secrets have no default: when ADMIN_TOKEN
 * or SERVICE_TOKEN is unset, a random one is created once in DATA_DIR (mode 0600) and
 * reused, so a single machine works out of the box and nothing secret is in the repo.
 */
import path from 'node:path';
import { PRODUCTS } from './domain/products.js';
import {
  PROVIDER_KINDS,
  ROUTING_VARIABLES,
  VTPASS_BILL_FAMILIES,
  type ProviderKind,
  type ProvidersConfig,
} from './providers/index.js';

export interface CoreConfig {
  dataDir: string;
  host: string;
  port: number;
  adminToken: string | null;
  serviceToken: string | null;
  providerTimeoutMs: number;
  recoveryIntervalMs: number;
  recoveryAttentionAfterMs: number;
  sandboxDelayMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Which upstream serves each product family, and VTpass's settings when it serves any. */
  providers: ProvidersConfig;
  /** The MongoDB store when MONGODB_URI is set; null means the embedded SQLite store in DATA_DIR. */
  mongo: MongoConfig | null;
}

/** Where the MongoDB store lives. */
export interface MongoConfig {
  /** mongodb:// or mongodb+srv:// connection string; it may hold credentials, so it is never logged. */
  uri: string;
  dbName: string;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Configuration error: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number; got ${JSON.stringify(raw)}.`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}; got ${value}.`);
  return value;
}

export function readString(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? fallback : raw.trim();
}

function readSecret(env: Env, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (raw.length < 16) throw new ConfigError(name, 'must be at least 16 characters.');
  return raw;
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** VTpass's sandbox: a deployment reaches the live API only when told to. */
export const DEFAULT_VTPASS_BASE_URL = 'https://sandbox.vtpass.com/api/';
export const DEFAULT_VTPASS_SMS_URL = 'https://messaging.vtpass.com/v2/api/sms/sendsms';

/** A required credential: present, one line, and not absurdly long. */
function readCredential(env: Env, name: string, why: string): string {
  const raw = env[name]?.trim() ?? '';
  if (raw === '') throw new ConfigError(name, `is required ${why}.`);
  if (raw.length > 200 || /\s/.test(raw)) throw new ConfigError(name, 'must be one word of at most 200 characters.');
  return raw;
}

/** An upstream address: https, or http to this machine only (a local fake); never credentials in it. */
function readUpstreamUrl(env: Env, name: string, fallback: string): string {
  const text = readString(env, name, fallback);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(name, `must be a URL; got ${JSON.stringify(text)}.`);
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    throw new ConfigError(name, 'must be an https:// URL (http:// only to localhost), since our keys travel with every call.');
  }
  if (url.username !== '' || url.password !== '') throw new ConfigError(name, 'must not carry a user name or password.');
  return url.href;
}

/**
 * PROVIDER_* and VTPASS_*: each family's upstream, and VTpass's settings, required only for
 * what is routed to it, so a sandbox deployment needs none of them.
 */
export function readProvidersConfig(env: Env, sandboxDelayMs: number): ProvidersConfig {
  const routing = Object.fromEntries(
    PRODUCTS.map((family) => {
      const name = ROUTING_VARIABLES[family];
      const value = readString(env, name, 'sandbox').toLowerCase();
      if (!(PROVIDER_KINDS as readonly string[]).includes(value)) throw new ConfigError(name, `must be one of ${PROVIDER_KINDS.join(', ')}; got ${JSON.stringify(value)}.`);
      return [family, value as ProviderKind];
    }),
  ) as ProvidersConfig['routing'];
  const billFamilies = VTPASS_BILL_FAMILIES.filter((family) => routing[family] === 'vtpass');
  let vtpass: ProvidersConfig['vtpass'] = null;
  if (billFamilies.length > 0) {
    const why = `because ${billFamilies.map((f) => ROUTING_VARIABLES[f]).join(', ')} ${billFamilies.length === 1 ? 'is' : 'are'} vtpass`;
    const needsPhone = routing.electricity === 'vtpass' || routing.cable === 'vtpass';
    const phone = env['VTPASS_FALLBACK_PHONE']?.trim() ?? '';
    if (needsPhone && !/^0\d{10}$/.test(phone)) {
      throw new ConfigError('VTPASS_FALLBACK_PHONE', 'must be an 11-digit phone starting with 0 when electricity or cable goes to vtpass (VTpass wants a phone with every payment).');
    }
    vtpass = {
      baseUrl: readUpstreamUrl(env, 'VTPASS_BASE_URL', DEFAULT_VTPASS_BASE_URL),
      apiKey: readCredential(env, 'VTPASS_API_KEY', why),
      publicKey: readCredential(env, 'VTPASS_PUBLIC_KEY', why),
      secretKey: readCredential(env, 'VTPASS_SECRET_KEY', why),
      fallbackPhone: phone,
    };
  }
  let vtpassSms: ProvidersConfig['vtpassSms'] = null;
  if (routing.bulksms === 'vtpass') {
    const why = 'because PROVIDER_BULKSMS is vtpass';
    const sender = readString(env, 'VTPASS_SMS_SENDER', 'Prepaid');
    if (!/^[A-Za-z0-9]{1,11}$/.test(sender)) throw new ConfigError('VTPASS_SMS_SENDER', 'must be 1 to 11 letters and digits.');
    vtpassSms = {
      url: readUpstreamUrl(env, 'VTPASS_SMS_URL', DEFAULT_VTPASS_SMS_URL),
      token: readCredential(env, 'VTPASS_SMS_TOKEN', why),
      secret: readCredential(env, 'VTPASS_SMS_SECRET', why),
      receiptSender: sender,
    };
  }
  return { routing, sandboxDelayMs, vtpass, vtpassSms };
}

/** The database the MongoDB store uses when MONGODB_DB is not set. */
export const DEFAULT_MONGODB_DB = 'prepaid';

/**
 * MONGODB_URI and MONGODB_DB. Only the scheme is checked here: the driver parses the rest
 * at start and names what is wrong. The database name follows MongoDB's rules (no
 * `/\. "$*<>:|?`, under 64 bytes) so that a typo fails here rather than at the first write.
 */
export function readMongoConfig(env: Env): MongoConfig | null {
  const uri = env['MONGODB_URI']?.trim() ?? '';
  if (uri === '') return null;
  if (!/^mongodb(\+srv)?:\/\/[^/?#]+/.test(uri)) {
    throw new ConfigError('MONGODB_URI', 'must be a mongodb:// or mongodb+srv:// connection string with at least one host.');
  }
  const dbName = readString(env, 'MONGODB_DB', DEFAULT_MONGODB_DB);
  if (!/^[^/\\. "$*<>:|?\0]+$/.test(dbName) || Buffer.byteLength(dbName, 'utf8') > 63) {
    throw new ConfigError('MONGODB_DB', `must be at most 63 bytes without / \\ . space " $ * < > : | ?; got ${JSON.stringify(dbName)}.`);
  }
  return { uri, dbName };
}

/** The table printed by `--help` and kept identical in README.md. */
export const CORE_CONFIG_HELP: ReadonlyArray<readonly [string, string, string]> = [
  ['DATA_DIR', './data', 'Where the embedded database and generated tokens live.'],
  ['CORE_HOST', '127.0.0.1', 'Address the gRPC core binds to.'],
  ['CORE_PORT', '50051', 'Port of the gRPC core (0 picks a free one).'],
  ['ADMIN_TOKEN', 'created in DATA_DIR/admin.token', 'Bearer token of the admin service (16+ characters).'],
  ['SERVICE_TOKEN', 'created in DATA_DIR/service.token', 'Bearer token of the purchase and auth services (16+ characters).'],
  ['PROVIDER_TIMEOUT_MS', '15000', 'How long a provider call may take before its outcome counts as unknown (pending).'],
  ['RECOVERY_INTERVAL_MS', '10000', 'How often the recovery worker looks for pending transactions due a re-query.'],
  ['RECOVERY_ATTENTION_AFTER_MS', '86400000', 'A transaction still pending this long is flagged for a person.'],
  ['SANDBOX_DELAY_MS', '0', 'Artificial latency of the sandbox provider, for trying timeouts and load.'],
  ['LOG_LEVEL', 'info', 'debug, info, warn, error or silent.'],
  ['MONGODB_URI', 'none (embedded SQLite in DATA_DIR)', 'MongoDB connection string; when set the core stores everything there. A replica set or sharded cluster, MongoDB 6.0 or newer.'],
  ['MONGODB_DB', DEFAULT_MONGODB_DB, 'Database of the MongoDB store.'],
  ['PROVIDER_AIRTIME', 'sandbox', 'Who sells airtime: sandbox or vtpass.'],
  ['PROVIDER_DATA', 'sandbox', 'Who sells data: sandbox or vtpass (run `prepaid plans sync` first).'],
  ['PROVIDER_ELECTRICITY', 'sandbox', 'Who sells electricity: sandbox or vtpass.'],
  ['PROVIDER_CABLE', 'sandbox', 'Who sells cable TV: sandbox or vtpass.'],
  ['PROVIDER_BULKSMS', 'sandbox', 'Who sends bulk SMS and receipts: sandbox or vtpass (messaging API).'],
  ['VTPASS_BASE_URL', DEFAULT_VTPASS_BASE_URL, 'VTpass API base; live is https://vtpass.com/api/. https only (http only to localhost).'],
  ['VTPASS_API_KEY', 'none', 'VTpass api-key; required when a product goes to vtpass.'],
  ['VTPASS_PUBLIC_KEY', 'none', 'VTpass public-key (sent on GET); required when a product goes to vtpass.'],
  ['VTPASS_SECRET_KEY', 'none', 'VTpass secret-key (sent on POST); required when a product goes to vtpass.'],
  ['VTPASS_FALLBACK_PHONE', 'none', 'Phone sent to VTpass with electricity and cable payments that have none (11 digits); required when either goes to vtpass.'],
  ['VTPASS_SMS_URL', DEFAULT_VTPASS_SMS_URL, 'VTpass messaging API send address.'],
  ['VTPASS_SMS_TOKEN', 'none', 'VTpass messaging X-Token; required when PROVIDER_BULKSMS=vtpass.'],
  ['VTPASS_SMS_SECRET', 'none', 'VTpass messaging X-Secret; required when PROVIDER_BULKSMS=vtpass.'],
  ['VTPASS_SMS_SENDER', 'Prepaid', 'Sender ID of receipt SMS through VTpass (1 to 11 letters and digits, registered with the networks).'],
];

export function readCoreConfig(env: Env = process.env): CoreConfig {
  const logLevel = readString(env, 'LOG_LEVEL', 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}.`);
  const sandboxDelayMs = readInteger(env, 'SANDBOX_DELAY_MS', 0, 0, 600_000);
  return {
    dataDir: path.resolve(readString(env, 'DATA_DIR', './data')),
    host: readString(env, 'CORE_HOST', '127.0.0.1'),
    port: readInteger(env, 'CORE_PORT', 50051, 0, 65535),
    adminToken: readSecret(env, 'ADMIN_TOKEN'),
    serviceToken: readSecret(env, 'SERVICE_TOKEN'),
    providerTimeoutMs: readInteger(env, 'PROVIDER_TIMEOUT_MS', 15_000, 100, 120_000),
    recoveryIntervalMs: readInteger(env, 'RECOVERY_INTERVAL_MS', 10_000, 100, 3_600_000),
    recoveryAttentionAfterMs: readInteger(env, 'RECOVERY_ATTENTION_AFTER_MS', 86_400_000, 60_000, 30 * 86_400_000),
    sandboxDelayMs,
    logLevel: logLevel as CoreConfig['logLevel'],
    providers: readProvidersConfig(env, sandboxDelayMs),
    mongo: readMongoConfig(env),
  };
}
