/**
 * The core's configuration: one table of environment variables (CORE_SCHEMA) from which
 * both the parser below and the `--help` output come, validated at start with an error
 * that names the variable. Secrets have no default: when ADMIN_TOKEN or SERVICE_TOKEN is
 * unset, a random one is created once in DATA_DIR (mode 0600) and reused, so a single
 * machine works out of the box and nothing secret is in the repo.
 */

import path from 'node:path';
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
  schemaRows,
  shutdownDrainVariable,
  shutdownTimeoutVariable,
  text,
  type Variable,
  variable,
} from '../runtime/env-schema.js';
import type { LogLevel } from '../runtime/log.js';
import { MIN_TOKEN_CHARS, weakTokenProblem } from '../runtime/tokens.js';
import { checkUrl } from '../runtime/url.js';
import { type FundingFee, parseFeePercent } from './domain/funding.js';
import { type Kobo, kobo, parseNaira } from './domain/money.js';
import { PRODUCTS, type ProductName } from './domain/products.js';
import { DEFAULT_SIGNUPS_PER_ADDRESS_DAY, SIGNUP_MODES, type SignUpMode } from './domain/sign-up.js';
import { DEFAULT_RETRY_SCHEDULE } from './domain/transactions.js';
import { PHONE_PATTERN } from './domain/validation.js';
import type { VelocitySettings } from './domain/velocity.js';
import { DEFAULT_MONNIFY_BASE_URL } from './funding/monnify.js';
import { DEFAULT_PAYSTACK_BASE_URL, DEFAULT_PAYSTACK_PREFERRED_BANK } from './funding/paystack.js';
import { type MailSettings, mailFromProblem, parseSmtpUrl } from './mail/smtp.js';
import {
  FAMILIES_OF_KIND,
  type ProvidersConfig,
  ROUTING_VARIABLES,
  SANDBOX_UPSTREAM,
  VTPASS_BILL_FAMILIES,
  VTPASS_UPSTREAM,
} from './providers/index.js';
import { DEFAULT_VTPASS_BASE_URL, parseUpstreams, type UpstreamInstance } from './providers/upstreams.js';
import { passphraseProblem } from './storage/secrets-archive.js';

export interface CoreConfig {
  dataDir: string;
  host: string;
  port: number;
  /** Port of the Prometheus listener on `metricsHost`; 0 picks a free one; null turns it off. */
  metricsPort: number | null;
  /** Address of the Prometheus listener: `host` unless set apart (a container scraped from outside). */
  metricsHost: string;
  /** The certificate and key (PEM files) the gRPC server serves TLS with; null means plaintext. */
  tls: { certFile: string; keyFile: string } | null;
  adminToken: string | null;
  serviceToken: string | null;
  providerTimeoutMs: number;
  /** DUPLICATE_WINDOW_S in milliseconds: how long an account's duplicate guard remembers a purchase. */
  duplicateWindowMs: number;
  /** VELOCITY_BRAKE, VELOCITY_WINDOW_MIN and VELOCITY_FACTOR (docs/security.md, The velocity brake). */
  velocity: VelocitySettings;
  recoveryIntervalMs: number;
  recoveryAttentionAfterMs: number;
  sandboxDelayMs: number;
  logLevel: LogLevel;
  /** How long a graceful shutdown may take before the process is ended anyway (exit 1). */
  shutdownTimeoutMs: number;
  /** How long gRPC health says NOT_SERVING while calls are still taken, before the server stops accepting. */
  shutdownDrainMs: number;
  /** Which upstream serves each product family, and VTpass's settings when it serves any. */
  providers: ProvidersConfig;
  /** How often each upstream's float is read. */
  upstreamFloatPollMs: number;
  /** RECONCILE_AT: minutes after Lagos midnight of the daily reconciliation; null: off. */
  reconcileAtMinute: number | null;
  /** The dashboard's public base URL, which invitation links start with. */
  dashboardPublicUrl: string;
  /** The console's public base URL, which staff set-up links start with. */
  consolePublicUrl: string;
  /** `proposals`: the CLI's money moves wait for a staff member's approval like the console's. */
  cliMoneyMoves: 'direct' | 'proposals';
  /** SIGNUP and SIGNUP_PER_ADDRESS_DAY (docs/sign-up.md). */
  signUp: { mode: SignUpMode; perAddressPerDay: number };
  /** API_TIER_MIN_LEVEL: the identity level an account needs to ask for API access (docs/kyc.md). */
  apiTierMinLevel: number;
  /** FOUR_EYES_COOLING_H in ms. */
  fourEyesCoolingMs: number;
  /** The MongoDB store when MONGODB_URI is set; null means the embedded SQLite store in DATA_DIR. */
  mongo: MongoConfig | null;
  /** Webhook deliveries. */
  webhooks: WebhookConfig;
  /** Money in. */
  funding: {
    fee: FundingFee;
    sweepIntervalMs: number;
    kycKey: string | null;
    /** Paystack dedicated accounts when PAYSTACK_SECRET_KEY is set. */
    paystack: { secretKey: string; baseUrl: string; preferredBank: string } | null;
    /** Monnify reserved accounts when its API key, secret key and contract code are all set. */
    monnify: { apiKey: string; secretKey: string; contractCode: string; baseUrl: string } | null;
    /** FUNDING_SANDBOX_LIVE=on: the sandbox bank serves live wallets too. */
    sandboxLive: boolean;
  };
  /** Where mail goes (SMTP_URL, MAIL_FROM); null: nothing is mailed. */
  mail: MailSettings | null;
  /** Backups of the embedded store (core/storage/backup.ts). */
  backups: BackupConfig;
}

/** BACKUP_DIR, BACKUP_EVERY, BACKUP_KEEP and BACKUP_PASSPHRASE. */
interface BackupConfig {
  /** Where backups go; null: `prepaid backup` needs --to, and nothing is scheduled. */
  dir: string | null;
  /** How often a backup is taken into `dir`; null: none is scheduled. */
  everyMs: number | null;
  /** How many scheduled backups are kept in `dir`; older ones are removed. */
  keep: number;
  /** Seals the secrets in each scheduled backup; undefined: they are left out, with a warning. */
  passphrase: string | undefined;
}

/** BACKUP_EVERY's words: a number and m, h or d. */
const BACKUP_EVERY_PATTERN = /^(\d{1,5})(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A backup at most every minute, at least every 30 days. */
const BACKUP_EVERY_MIN_MS = 60_000;
const BACKUP_EVERY_MAX_MS = 30 * 86_400_000;

function backupConfig(
  v: {
    backupDir: string | undefined;
    backupEvery: number | null;
    backupKeep: number;
    backupPassphrase: string | undefined;
  },
  dataDir: string,
  onMongo: boolean,
): BackupConfig {
  const dir = v.backupDir === undefined ? null : path.resolve(v.backupDir);
  if (dir !== null && (dir === dataDir || dir.startsWith(`${dataDir}${path.sep}`)))
    throw new ConfigError(
      'BACKUP_DIR',
      'must not be inside DATA_DIR: a backup beside the data it saves is lost with it, and a restore needs an empty ' +
        'data directory. Use another disk.',
    );
  if (v.backupEvery !== null && dir === null)
    throw new ConfigError('BACKUP_EVERY', 'needs BACKUP_DIR, where the backups go.');
  if (v.backupEvery !== null && onMongo)
    throw new ConfigError(
      'BACKUP_EVERY',
      'does not apply on MongoDB: back the replica set up with its own tools (docs/mongodb.md).',
    );
  const problem = v.backupPassphrase === undefined ? null : passphraseProblem(v.backupPassphrase);
  if (problem !== null) throw new ConfigError('BACKUP_PASSPHRASE', problem);
  return { dir, everyMs: v.backupEvery, keep: v.backupKeep, passphrase: v.backupPassphrase };
}

/** How webhooks are delivered. */
interface WebhookConfig {
  /** The wait after a first failed attempt; it doubles after each, to at most an hour. */
  retryBaseMs: number;
  /** http and private or loopback destinations are allowed (development and tests only). */
  allowPrivate: boolean;
  /** Events held at once in this core: being delivered, or waiting for their receiver. */
  concurrency: number;
  /** Deliveries in flight at once to one account's webhook. */
  perDestination: number;
  /** How long a receiver has to answer. */
  timeoutMs: number;
}

/** Where the MongoDB store lives. */
export interface MongoConfig {
  /** mongodb:// or mongodb+srv:// connection string; it may hold credentials, so it is never logged. */
  uri: string;
  dbName: string;
}

export { DEFAULT_VTPASS_BASE_URL };

const DEFAULT_VTPASS_SMS_URL = 'https://messaging.vtpass.com/v2/api/sms/sendsms';
/** Where the dashboard is when DASHBOARD_PUBLIC_URL is unset: its default port on this machine. */
export const DEFAULT_DASHBOARD_PUBLIC_URL = 'http://localhost:8081';
/** Where the console is when CONSOLE_PUBLIC_URL is unset: its default port on this machine. */
export const DEFAULT_CONSOLE_PUBLIC_URL = 'http://localhost:8082';
/** The usual port of a Prometheus exporter that has no registered port of its own. */
const DEFAULT_CORE_METRICS_PORT = 9464;
/**
 * Deliveries in flight to one account's webhook (WEBHOOK_PER_DESTINATION): a slow receiver
 * holds at most these. Under load an attempt takes a few milliseconds of the core's turns even
 * on loopback, so 4 let one busy account's deliveries fall behind its purchases (about 600 a
 * second at most on the development machine); 16 keep up with the purchase rate the service
 * sustains.
 */
export const DEFAULT_PER_DESTINATION = 16;
/** Events one core holds at once (WEBHOOK_CONCURRENCY): four busy receivers, with their waiting events. */
export const DEFAULT_DELIVERY_CONCURRENCY = 128;

/**
 * A bearer token: at least 16 characters, not a trivial pattern; unset means "generate one in DATA_DIR". Not
 * trimmed.
 */
function secret(name: string, fallback: string, help: string): Variable<string | null> {
  return {
    name,
    fallback,
    help,
    read(env) {
      const raw = env[name];
      if (raw === undefined || raw === '') return null;
      if (raw.length < MIN_TOKEN_CHARS) throw new ConfigError(name, `must be at least ${MIN_TOKEN_CHARS} characters.`);
      const weak = weakTokenProblem(raw);
      if (weak !== undefined) {
        throw new ConfigError(
          name,
          `${weak} Use a long random value (for example the output of \`openssl rand -base64 32\`), or leave ` +
            `${name} unset to have one generated in DATA_DIR.`,
        );
      }
      return raw;
    },
  };
}

/** A value that is only checked where it is needed (a VTpass credential, which is never echoed). */
function optional(name: string, fallback: string, help: string): Variable<string | undefined> {
  return variable(name, fallback, help, (raw) => raw);
}

/** Upstream names in a route: what UPSTREAMS allows, the built-in sandbox and vtpass included. */
const ROUTE_NAME = /^[a-z][a-z0-9]{0,23}$/;
/** More upstreams than this in one route is a mistake, not a plan. */
const MAX_ROUTE_UPSTREAMS = 8;

/**
 * The routing variable of one product family (PROVIDER_AIRTIME, ...): upstream names in order,
 * separated by commas. Whether each names a configured upstream is checked once all are read.
 */
// Read into `routeAirtime` and the others: the env names (PROVIDER_*) are public config and stay; `PROVIDER` there is the upstream.
function route(family: ProductName, help: string): Variable<readonly string[]> {
  const name = ROUTING_VARIABLES[family];
  return variable(name, SANDBOX_UPSTREAM, help, (raw) => {
    if (raw === undefined || raw.trim() === '') return [SANDBOX_UPSTREAM];
    const names = raw.split(',').map((part) => part.trim().toLowerCase());
    if (names.length > MAX_ROUTE_UPSTREAMS)
      throw new ConfigError(name, `names ${names.length} upstreams; at most ${MAX_ROUTE_UPSTREAMS}.`);
    for (const upstream of names) {
      if (!ROUTE_NAME.test(upstream))
        throw new ConfigError(
          name,
          `must be upstream names separated by commas, such as vtpass,datahub; got ${JSON.stringify(
            upstream.slice(0, 40),
          )}.`,
        );
    }
    if (new Set(names).size !== names.length) throw new ConfigError(name, 'names an upstream twice.');
    if (family === 'bulksms' && names.length > 1)
      throw new ConfigError(name, 'takes one upstream: bulk SMS and receipts go to sandbox or vtpass.');
    return names;
  });
}

/** The core's variables, in the order --help and README.md list them. */
export const CORE_SCHEMA = {
  dataDir: text('DATA_DIR', {
    fallback: './data',
    help:
      'Where the embedded database and the generated tokens live; made private at start (0700, its files ' +
      '0600) and, with the embedded store, held by one core at a time (`core.lock`).',
  }),
  host: text('CORE_HOST', {
    fallback: '127.0.0.1',
    help: 'Address the gRPC core (and, unless `CORE_METRICS_HOST` is set, its metrics listener) binds to.',
  }),
  port: integer('CORE_PORT', {
    fallback: 50051,
    min: 0,
    max: 65535,
    help: 'Port of the gRPC core (0 picks a free one).',
  }),
  metricsPort: variable(
    'CORE_METRICS_PORT',
    String(DEFAULT_CORE_METRICS_PORT),
    "Port of the core's Prometheus listener (`GET /metrics`) on `CORE_METRICS_HOST`; `0` picks a free one, `off` " +
      'turns it off.',
    (raw): number | null =>
      raw?.toLowerCase() === 'off' ? null : parseInteger('CORE_METRICS_PORT', raw, DEFAULT_CORE_METRICS_PORT, 0, 65535),
  ),
  metricsHost: optional(
    'CORE_METRICS_HOST',
    '`CORE_HOST`',
    "Address the core's Prometheus listener binds to, when it must differ from the gRPC core's: `0.0.0.0` in a " +
      'container scraped from outside, with the gRPC core kept on loopback.',
  ),
  tlsCert: optional(
    'CORE_TLS_CERT',
    'none (plaintext gRPC)',
    "PEM file of the core's TLS certificate (chain); with `CORE_TLS_KEY` the core serves TLS only, and clients " +
      'dial `https://`.',
  ),
  tlsKey: optional(
    'CORE_TLS_KEY',
    'required with `CORE_TLS_CERT`',
    'PEM file of the private key of `CORE_TLS_CERT` (keep it 0600).',
  ),
  adminToken: secret(
    'ADMIN_TOKEN',
    'generated in `DATA_DIR/admin.token`',
    'Bearer token of the admin service (16+ characters).',
  ),
  serviceToken: secret(
    'SERVICE_TOKEN',
    'generated in `DATA_DIR/service.token`',
    'Bearer token of the purchase and auth services (16+ characters); the gateway presents it too.',
  ),
  providerTimeoutMs: integer('PROVIDER_TIMEOUT_MS', {
    fallback: 15_000,
    min: 100,
    max: 120_000,
    help: 'How long a provider call may take before its outcome counts as unknown (pending).',
  }),
  duplicateWindowS: integer('DUPLICATE_WINDOW_S', {
    fallback: 30,
    min: 0,
    max: 3_600,
    help:
      'For an account whose duplicate guard is on: how many seconds the same product, recipient and amount ' +
      'without a new request_id is refused as DUPLICATE_PURCHASE (0: never).',
  }),
  velocityBrake: oneOf('VELOCITY_BRAKE', {
    words: ['on', 'off'],
    fallback: 'on',
    help:
      '`off` turns the velocity brake off: no live key pair is frozen for spending far past its history ' +
      '(keys frozen already stay frozen until unfrozen).',
  }),
  velocityWindowMin: integer('VELOCITY_WINDOW_MIN', {
    fallback: 10,
    min: 1,
    max: 60,
    help: "The velocity brake's window in minutes: what a key spent and its new recipients are counted over it.",
  }),
  velocityFactor: integer('VELOCITY_FACTOR', {
    fallback: 5,
    min: 2,
    max: 100,
    help:
      'A key whose window is over this many times its trailing daily median per window (never under the new ' +
      "key's allowance) is frozen by the velocity brake.",
  }),
  velocityNewKeyNaira: integer('VELOCITY_NEW_KEY_NAIRA', {
    fallback: 20_000,
    min: 100,
    max: 100_000_000,
    help:
      'What a key with too little history (under 3 days of spending in the last 14) may spend in one window ' +
      "before the velocity brake freezes it; also every key's floor, whatever its history.",
  }),
  recoveryIntervalMs: integer('RECOVERY_INTERVAL_MS', {
    fallback: 10_000,
    min: 100,
    max: 3_600_000,
    help: 'How often the recovery worker looks for pending purchases due a re-query.',
  }),
  recoveryAttentionAfterMs: integer('RECOVERY_ATTENTION_AFTER_MS', {
    fallback: DEFAULT_RETRY_SCHEDULE.attentionAfterMs,
    min: 60_000,
    max: 30 * 86_400_000,
    help: 'A purchase still pending this long is flagged for a person.',
  }),
  sandboxDelayMs: integer('SANDBOX_DELAY_MS', {
    fallback: 0,
    min: 0,
    max: 600_000,
    help: 'Artificial latency of the sandbox provider, for trying timeouts and load.',
  }),
  logLevel: logLevelVariable(),
  shutdownTimeoutMs: shutdownTimeoutVariable(
    'How long a graceful stop (SIGTERM, SIGINT) may take; past it the core is ended anyway and exits 1. Keep ' +
      'it above `PROVIDER_TIMEOUT_MS`.',
  ),
  shutdownDrainMs: shutdownDrainVariable(
    'On a stop, how long gRPC health says `NOT_SERVING` while calls are still taken, before the core stops ' +
      'accepting; what a load balancer needs to notice (counts within `SHUTDOWN_TIMEOUT_MS`).',
  ),
  dashboardPublicUrl: text('DASHBOARD_PUBLIC_URL', {
    fallback: DEFAULT_DASHBOARD_PUBLIC_URL,
    help:
      "The developer area's address as account holders reach it; invitation links (`prepaid users invite`) " +
      'start with it. http:// or https://, no path needed.',
    check: (value) =>
      checkUrl(value, { schemes: ['https:', 'http:'], noCredentials: true, example: 'https://dashboard.example.com' })
        .problem,
  }),
  consolePublicUrl: text('CONSOLE_PUBLIC_URL', {
    fallback: DEFAULT_CONSOLE_PUBLIC_URL,
    help:
      "The operator's console's address as staff reach it; staff set-up links (`prepaid staff invite`) " +
      'start with it.',
    check: (value) =>
      checkUrl(value, { schemes: ['https:', 'http:'], noCredentials: true, example: 'https://console.example.com' })
        .problem,
  }),
  fundingSandboxLive: oneOf('FUNDING_SANDBOX_LIVE', {
    words: ['on', 'off'],
    fallback: 'off',
    help:
      '`on` lets the sandbox bank serve live wallets too: they get Sandbox Bank account numbers and ' +
      '`prepaid funding simulate-transfer` credits live money (a demonstration without a funding ' +
      'provider; the core warns at start). `off`: sandbox transfers reach test wallets only, and a ' +
      'live wallet without Paystack or Monnify shows no account number.',
  }),
  fourEyesCoolingH: integer('FOUR_EYES_COOLING_H', {
    fallback: 72,
    min: 0,
    max: 24 * 90,
    help:
      'Hours during which a staff member just invited, set up or given a role may not approve a ' +
      'proposal of whoever invited them or gave them the role (no member ever approves one made ' +
      'before they joined); the console flags their approvals meanwhile. 0 turns the wait off.',
  }),
  cliMoneyMoves: oneOf('CLI_MONEY_MOVES', {
    words: ['direct', 'proposals'],
    fallback: 'direct',
    help:
      "`proposals` turns the CLI's money moves (`wallet credit`, `wallet debit` on live wallets, `funding assign`) into " +
      'four-eyes proposals a finance or admin member approves in the console; `direct` makes them at once ' +
      '(each audited with actor `cli`).',
  }),
  signUp: oneOf('SIGNUP', {
    words: SIGNUP_MODES,
    fallback: 'invite',
    help:
      '`open`: anyone may sign up in the developer area (`/sign-up`), and verifies their email and phone before ' +
      'live money (docs/sign-up.md). `invite`: no self sign-up; accounts come from `prepaid accounts create` and ' +
      'invitations, as before. `off`: no self sign-up, the same as `invite` (it does not stop invitations). ' +
      '`npm start` sets `open`.',
  }),
  apiTierMinLevel: integer('API_TIER_MIN_LEVEL', {
    fallback: 2,
    min: 2,
    max: 3,
    help:
      'The identity level an account needs before it may ask for API access (docs/kyc.md): 2 (a BVN or NIN ' +
      'checked by staff) or 3 (a business).',
  }),
  signUpPerAddressDay: integer('SIGNUP_PER_ADDRESS_DAY', {
    fallback: DEFAULT_SIGNUPS_PER_ADDRESS_DAY,
    min: 1,
    max: 10_000,
    help:
      'Unverified accounts one client address (an IPv6 client by its /64) may sign up for in a Lagos day; the next ' +
      'sign-up from it is told to wait until the next day.',
  }),
  mongoUri: mongoUriVariable(
    'none (embedded SQLite in `DATA_DIR`)',
    'MongoDB connection string; when set the core stores everything there. A replica set or sharded cluster, ' +
      'MongoDB 6.0 or newer.',
  ),
  mongoDb: mongoDbVariable('Database of the MongoDB store.'),
  webhookRetryBaseMs: integer('WEBHOOK_RETRY_BASE_MS', {
    fallback: 60_000,
    min: 10,
    max: 3_600_000,
    help: 'Wait after a failed webhook delivery; it doubles after each failure, to at most an hour, for 72 hours.',
  }),
  webhookAllowPrivate: oneOf('WEBHOOK_ALLOW_PRIVATE', {
    words: ['false', 'true'],
    fallback: 'false',
    help:
      '`true` lets webhook URLs use `http` and private or loopback addresses: development and tests only, ' +
      'never in production.',
  }),
  webhookTimeoutMs: integer('WEBHOOK_TIMEOUT_MS', {
    fallback: 10_000,
    min: 100,
    max: 10_000,
    help:
      'How long a webhook receiver has to answer with a 2xx before the attempt counts as failed (the ' +
      'contract says 10 s; lower only for tests).',
  }),
  webhookConcurrency: integer('WEBHOOK_CONCURRENCY', {
    fallback: DEFAULT_DELIVERY_CONCURRENCY,
    min: 1,
    max: 1_000,
    help:
      'Webhook events this core holds at once: being delivered, or claimed and waiting for their receiver ' +
      'to have room.',
  }),
  webhookPerDestination: integer('WEBHOOK_PER_DESTINATION', {
    fallback: DEFAULT_PER_DESTINATION,
    min: 1,
    max: 256,
    help:
      "Webhook deliveries in flight at once to one account's webhook (as many more wait for them), and of one " +
      'account, its live and test webhooks together, over connections of its own; a slow receiver holds no more.',
  }),
  upstreams: optional(
    'UPSTREAMS',
    'none (only `sandbox`, and `vtpass` when its keys are set)',
    'Upstream instances, comma-separated names, each configured by `UPSTREAM_<NAME>_KIND`, `_BASE_URL` and its ' +
      'credentials (docs/upstreams.md).',
  ),
  upstreamFloatPollMs: integer('UPSTREAM_FLOAT_POLL_MS', {
    fallback: 60_000,
    min: 1_000,
    max: 86_400_000,
    help:
      'How often each upstream with a balance call (ClubKonnect, ported-number sites) has its float read; ' +
      'under its alert it is skipped by routes that have another choice.',
  }),
  reconcileAt: variable(
    'RECONCILE_AT',
    '02:30',
    'When the core reconciles the day before with every upstream (docs/reconciliation.md): HH:MM, Lagos time, ' +
      "or `off`. Its findings go to the console's attention queue; nothing is corrected by it.",
    (raw): number | null => {
      if (raw === 'off') return null;
      const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(raw ?? '02:30');
      if (match === null)
        throw new ConfigError('RECONCILE_AT', `must be HH:MM (Lagos time) or off; got ${JSON.stringify(raw)}.`);
      return Number(match[1]) * 60 + Number(match[2]);
    },
  ),
  routeAirtime: route(
    'airtime',
    'Who sells airtime: upstream names in order, comma-separated (`sandbox`, `vtpass`, or names in ' +
      '`UPSTREAMS`); the next is tried only when the one before provably did not deliver.',
  ),
  routeData: route('data', 'Who sells data, as for `PROVIDER_AIRTIME` (VTpass: run `prepaid plans sync` first).'),
  routeElectricity: route('electricity', 'Who sells electricity: `sandbox` or `vtpass`, or both in order.'),
  routeCable: route('cable', 'Who sells cable TV: `sandbox` or `vtpass`, or both in order.'),
  routeBulksms: route('bulksms', 'Who sends bulk SMS and receipts: `sandbox` or `vtpass` (messaging API); one name.'),
  vtpassBaseUrl: optional(
    'VTPASS_BASE_URL',
    DEFAULT_VTPASS_BASE_URL,
    'VTpass API base; live is `https://vtpass.com/api/`. https only (http only to localhost).',
  ),
  vtpassApiKey: optional('VTPASS_API_KEY', 'required when a product goes to vtpass', 'VTpass `api-key`.'),
  vtpassPublicKey: optional(
    'VTPASS_PUBLIC_KEY',
    'required when a product goes to vtpass',
    'VTpass `public-key` (sent on GET).',
  ),
  vtpassSecretKey: optional(
    'VTPASS_SECRET_KEY',
    'required when a product goes to vtpass',
    'VTpass `secret-key` (sent on POST).',
  ),
  vtpassFallbackPhone: optional(
    'VTPASS_FALLBACK_PHONE',
    'required when electricity or cable goes to vtpass',
    'Phone sent to VTpass with electricity and cable payments that have none (11 digits).',
  ),
  vtpassSmsUrl: optional('VTPASS_SMS_URL', DEFAULT_VTPASS_SMS_URL, 'VTpass messaging API send address.'),
  vtpassSmsToken: optional(
    'VTPASS_SMS_TOKEN',
    'required when `PROVIDER_BULKSMS=vtpass`',
    'VTpass messaging `X-Token`.',
  ),
  vtpassSmsSecret: optional(
    'VTPASS_SMS_SECRET',
    'required when `PROVIDER_BULKSMS=vtpass`',
    'VTpass messaging `X-Secret`.',
  ),
  vtpassSmsSender: text('VTPASS_SMS_SENDER', {
    fallback: 'Prepaid',
    help: 'Sender ID of receipt SMS through VTpass (1 to 11 letters and digits, registered with the networks).',
    check: (value) => (/^[A-Za-z0-9]{1,11}$/.test(value) ? undefined : 'must be 1 to 11 letters and digits.'),
  }),
  fundingFeePercent: variable(
    'FUNDING_FEE_PERCENT',
    '0',
    'Fee on every wallet funding by bank transfer, in percent of the amount paid (at most two decimals, below ' +
      '100), rounded down to the kobo.',
    (raw): number => {
      const basisPoints = parseFeePercent(raw ?? '0');
      if (basisPoints === null)
        throw new ConfigError('FUNDING_FEE_PERCENT', 'must be a percentage from 0 to 99.99 with at most two decimals.');
      return basisPoints;
    },
  ),
  fundingFeeCapNaira: variable(
    'FUNDING_FEE_CAP_NAIRA',
    'none',
    'The most the funding fee takes from one transfer, in Naira; unset: no cap.',
    (raw): Kobo | null => {
      if (raw === undefined || raw === '' || raw === 'none') return null;
      const parsed = parseNaira(raw);
      if (!parsed.ok) throw new ConfigError('FUNDING_FEE_CAP_NAIRA', `${parsed.reason}.`);
      return parsed.kobo;
    },
  ),
  fundingSweepIntervalMs: integer('FUNDING_SWEEP_INTERVAL_MS', {
    fallback: 600_000,
    min: 1_000,
    max: 86_400_000,
    help:
      'How often the funding sweeper asks each provider for recent transfers (crediting any no ' +
      'notification brought) and finishes credits a crash interrupted.',
  }),
  paystackSecretKey: optional(
    'PAYSTACK_SECRET_KEY',
    'none (Paystack funding off)',
    'Paystack secret key (`sk_live_…` or `sk_test_…`); when set, wallets get Paystack dedicated virtual ' +
      "accounts. It also signs Paystack's notifications.",
  ),
  paystackBaseUrl: optional(
    'PAYSTACK_BASE_URL',
    DEFAULT_PAYSTACK_BASE_URL,
    'Paystack API base. https only (http only to localhost, for tests).',
  ),
  paystackPreferredBank: text('PAYSTACK_PREFERRED_BANK', {
    fallback: DEFAULT_PAYSTACK_PREFERRED_BANK,
    help:
      "The bank of new Paystack dedicated accounts (a provider slug from Paystack's available_providers: " +
      'wema-bank, titan-paystack, access-bank; test-bank in test mode).',
    check: (value) => (/^[a-z0-9-]{1,50}$/.test(value) ? undefined : 'must be a provider slug such as wema-bank.'),
  }),
  monnifyApiKey: optional(
    'MONNIFY_API_KEY',
    'none (Monnify funding off)',
    'Monnify API key; with `MONNIFY_SECRET_KEY` and `MONNIFY_CONTRACT_CODE`, wallets get Monnify reserved accounts.',
  ),
  monnifySecretKey: optional(
    'MONNIFY_SECRET_KEY',
    'none',
    "Monnify secret (client) key: it logs in with the API key and signs Monnify's notifications.",
  ),
  monnifyContractCode: optional('MONNIFY_CONTRACT_CODE', 'none', 'Monnify contract code (digits, from the dashboard).'),
  monnifyBaseUrl: optional(
    'MONNIFY_BASE_URL',
    DEFAULT_MONNIFY_BASE_URL,
    'Monnify API base (`https://sandbox.monnify.com` with sandbox keys). https only (http only to localhost, ' +
      'for tests).',
  ),
  smtpUrl: variable(
    'SMTP_URL',
    'none (no mail: links are printed by the CLI)',
    'The mail server the core sends with: `smtps://user:password@smtp.example.ng` (TLS, port 465 by default) ' +
      'or `smtp://…` (STARTTLS when offered, port 587 by default); user and password percent-encoded. Never ' +
      'logged or shown. With it: password reset by email, invitation mails, and notices (sign-in, key pairs, ' +
      'two-step sign-in, low balance); see docs/email.md.',
    (raw) => {
      if (raw === undefined || raw === '') return null;
      const parsed = parseSmtpUrl(raw);
      if ('problem' in parsed) throw new ConfigError('SMTP_URL', parsed.problem);
      return parsed;
    },
  ),
  mailFrom: variable(
    'MAIL_FROM',
    'required with `SMTP_URL`',
    'The From of every mail: `no-reply@example.ng` or `Prepaid <no-reply@example.ng>`, an address the mail ' +
      'server may send as.',
    (raw) => {
      if (raw === undefined || raw === '') return null;
      const problem = mailFromProblem(raw);
      if (problem !== undefined) throw new ConfigError('MAIL_FROM', problem);
      return raw;
    },
  ),
  fundingKycKey: secret(
    'FUNDING_KYC_KEY',
    'generated in `DATA_DIR/funding-kyc.key`',
    'Key of the keyed hash (HMAC-SHA256) kept instead of each BVN or NIN (16+ characters). Keep it with the ' +
      'backups of the data: a new key cannot match numbers hashed under the old one.',
  ),
  backupDir: optional(
    'BACKUP_DIR',
    'none (`prepaid backup` then needs `--to DIR`)',
    'Where backups of the embedded store go (docs/operating.md, Backups): another disk than DATA_DIR, never ' +
      'inside it.',
  ),
  backupEvery: variable(
    'BACKUP_EVERY',
    'off',
    'How often the core takes a backup into BACKUP_DIR: a number and m, h or d (`6h`, `1d`). Each is verified ' +
      "after it is written; a failure is a warning, a metric and an item in the console's queue.",
    (raw): number | null => {
      if (raw === undefined || raw === 'off') return null;
      const match = BACKUP_EVERY_PATTERN.exec(raw);
      const ms = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
      if (!(ms >= BACKUP_EVERY_MIN_MS && ms <= BACKUP_EVERY_MAX_MS))
        throw new ConfigError('BACKUP_EVERY', `must be off or 1m to 30d (for example 6h); got ${JSON.stringify(raw)}.`);
      return ms;
    },
  ),
  backupKeep: integer('BACKUP_KEEP', {
    fallback: 14,
    min: 1,
    max: 1_000,
    help: 'How many scheduled backups BACKUP_DIR keeps; the oldest beyond this are removed after each good one.',
  }),
  backupPassphrase: optional(
    'BACKUP_PASSPHRASE',
    'none (the secrets are left out of scheduled backups, with a warning)',
    'Seals the tokens and the KYC key in each backup (scrypt and AES-256-GCM; 12+ characters). Never logged; ' +
      'keep it apart from the backups: a restore needs it.',
  ),
} as const;

/** The table printed by `--help` and kept identical in README.md: [name, default, meaning]. */
export const CORE_CONFIG_HELP = schemaRows(CORE_SCHEMA);

/** The `--help` text of the core. */
export function coreConfigHelp(): string {
  return helpText('Core configuration', CORE_SCHEMA);
}

/** A required credential: present, one line, and not absurdly long. The value is never echoed. */
function credential(name: string, value: string | undefined, why: string): string {
  if (value === undefined) throw new ConfigError(name, `is required ${why}.`);
  if (value.length > 200 || /\s/.test(value))
    throw new ConfigError(name, 'must be one word of at most 200 characters.');
  return value;
}

/** Monnify is on when its three credentials are set; some but not all is a mistake worth stopping for. */
function monnifyConfig(
  apiKey: string | undefined,
  secretKey: string | undefined,
  contractCode: string | undefined,
  baseUrl: string | undefined,
): CoreConfig['funding']['monnify'] {
  const given = [apiKey, secretKey, contractCode].filter((value) => value !== undefined && value !== '');
  if (given.length === 0) return null;
  const why = 'for Monnify funding (MONNIFY_API_KEY, MONNIFY_SECRET_KEY and MONNIFY_CONTRACT_CODE go together)';
  const code = credential('MONNIFY_CONTRACT_CODE', contractCode || undefined, why);
  if (!/^\d{1,30}$/.test(code))
    throw new ConfigError('MONNIFY_CONTRACT_CODE', 'must be the digits of the contract code.');
  return {
    apiKey: credential('MONNIFY_API_KEY', apiKey || undefined, why),
    secretKey: credential('MONNIFY_SECRET_KEY', secretKey || undefined, why),
    contractCode: code,
    baseUrl: upstreamUrl('MONNIFY_BASE_URL', baseUrl ?? DEFAULT_MONNIFY_BASE_URL),
  };
}

/** An upstream address: https, or http to this machine only (a local fake); never credentials in it. */
function upstreamUrl(name: string, text: string): string {
  const checked = checkUrl(text, { schemes: ['https:', 'http:'], plainHttpOnlyToLoopback: true, noCredentials: true });
  if (checked.problem !== undefined) throw new ConfigError(name, checked.problem);
  return checked.url.href;
}

/** The routing variable of each family, by family. */
const ROUTES: Readonly<Record<ProductName, Variable<readonly string[]>>> = {
  airtime: CORE_SCHEMA.routeAirtime,
  data: CORE_SCHEMA.routeData,
  electricity: CORE_SCHEMA.routeElectricity,
  cable: CORE_SCHEMA.routeCable,
  bulksms: CORE_SCHEMA.routeBulksms,
};

/**
 * PROVIDER_*, UPSTREAMS, UPSTREAM_<NAME>_* and VTPASS_*: each family's ordered upstreams, and
 * the settings of the upstreams they name, required only for what is routed, so a sandbox
 * deployment needs none of them. A route naming an upstream that is not configured, or one that
 * does not sell the family, stops the start with a message naming the routing variable.
 */
function readProvidersConfig(env: Env, sandboxDelayMs: number): ProvidersConfig {
  const routing = Object.fromEntries(
    PRODUCTS.map((family) => [family, ROUTES[family].read(env)]),
  ) as ProvidersConfig['routing'];
  const s = CORE_SCHEMA;
  // VTpass is read below with its fallback phone; parseUpstreams checks the declared ones.
  const declared = parseUpstreams(env).filter(
    (instance): instance is Exclude<UpstreamInstance, { kind: 'vtpass' }> => instance.kind !== 'vtpass',
  );
  const kinds = new Map<string, UpstreamInstance['kind']>(declared.map((instance) => [instance.name, instance.kind]));
  for (const family of PRODUCTS) {
    for (const name of routing[family]) checkRouted(family, name, kinds);
  }
  const routedTo = (family: ProductName) => routing[family].includes(VTPASS_UPSTREAM);
  const billFamilies = VTPASS_BILL_FAMILIES.filter(routedTo);
  let vtpass: ProvidersConfig['vtpass'] = null;
  if (billFamilies.length > 0) {
    const why = `because ${billFamilies.map((f) => ROUTING_VARIABLES[f]).join(', ')} ${
      billFamilies.length === 1 ? 'names' : 'name'
    } vtpass`;
    const needsPhone = routedTo('electricity') || routedTo('cable');
    const phone = s.vtpassFallbackPhone.read(env) ?? '';
    if (needsPhone && !PHONE_PATTERN.test(phone)) {
      throw new ConfigError(
        'VTPASS_FALLBACK_PHONE',
        'must be an 11-digit phone starting with 0 when electricity or cable goes to vtpass (VTpass wants a ' +
          'phone with every payment).',
      );
    }
    vtpass = {
      baseUrl: upstreamUrl(s.vtpassBaseUrl.name, s.vtpassBaseUrl.read(env) ?? DEFAULT_VTPASS_BASE_URL),
      apiKey: credential(s.vtpassApiKey.name, s.vtpassApiKey.read(env), why),
      publicKey: credential(s.vtpassPublicKey.name, s.vtpassPublicKey.read(env), why),
      secretKey: credential(s.vtpassSecretKey.name, s.vtpassSecretKey.read(env), why),
      fallbackPhone: phone,
    };
  }
  let vtpassSms: ProvidersConfig['vtpassSms'] = null;
  if (routedTo('bulksms')) {
    const why = 'because PROVIDER_BULKSMS is vtpass';
    vtpassSms = {
      url: upstreamUrl(s.vtpassSmsUrl.name, s.vtpassSmsUrl.read(env) ?? DEFAULT_VTPASS_SMS_URL),
      token: credential(s.vtpassSmsToken.name, s.vtpassSmsToken.read(env), why),
      secret: credential(s.vtpassSmsSecret.name, s.vtpassSmsSecret.read(env), why),
      receiptSender: s.vtpassSmsSender.read(env),
    };
  }
  return { routing, upstreams: declared, sandboxDelayMs, vtpass, vtpassSms };
}

/** One name of a family's route: a configured upstream that sells the family. */
function checkRouted(family: ProductName, name: string, declared: ReadonlyMap<string, UpstreamInstance['kind']>): void {
  const variableName = ROUTING_VARIABLES[family];
  if (name === SANDBOX_UPSTREAM || (name === VTPASS_UPSTREAM && family !== 'bulksms')) return;
  if (family === 'bulksms') {
    if (name === VTPASS_UPSTREAM) return;
    throw new ConfigError(variableName, `must be sandbox or vtpass; got ${JSON.stringify(name)}.`);
  }
  const kind = declared.get(name);
  if (kind === undefined)
    throw new ConfigError(
      variableName,
      `names ${name}, which is not an upstream: declare it in UPSTREAMS (with ` +
        `UPSTREAM_${name.toUpperCase()}_KIND), or use sandbox or vtpass.`,
    );
  if (!FAMILIES_OF_KIND[kind].includes(family))
    throw new ConfigError(variableName, `names ${name}, a ${kind} upstream, which does not sell ${family}.`);
}

/** MONGODB_URI and MONGODB_DB; null when MONGODB_URI is unset (the embedded store). */
export function readMongoConfig(env: Env): MongoConfig | null {
  const uri = CORE_SCHEMA.mongoUri.read(env);
  if (uri === undefined) return null;
  return { uri, dbName: CORE_SCHEMA.mongoDb.read(env) };
}

/** CORE_TLS_CERT and CORE_TLS_KEY come together: half a TLS setting is a mistake, not plaintext. */
function tlsFiles(certFile: string | undefined, keyFile: string | undefined): CoreConfig['tls'] {
  if (certFile === undefined && keyFile === undefined) return null;
  if (certFile === undefined) throw new ConfigError('CORE_TLS_CERT', 'is required when CORE_TLS_KEY is set.');
  if (keyFile === undefined) throw new ConfigError('CORE_TLS_KEY', 'is required when CORE_TLS_CERT is set.');
  return { certFile, keyFile };
}

/** Reads and checks the whole core configuration; the first unusable variable throws ConfigError. */
export function readCoreConfig(env: Env = process.env): CoreConfig {
  // Every variable of the table is read and checked, used or not, so a typo'd value
  // stops the start even when today's routing would not look at it.
  const v = readSchema(CORE_SCHEMA, env);
  return {
    dataDir: path.resolve(v.dataDir),
    host: v.host,
    port: v.port,
    metricsPort: v.metricsPort,
    // Set but empty means unset: an empty address would listen on every interface.
    metricsHost: v.metricsHost || v.host,
    tls: tlsFiles(v.tlsCert, v.tlsKey),
    adminToken: v.adminToken,
    serviceToken: v.serviceToken,
    providerTimeoutMs: v.providerTimeoutMs,
    duplicateWindowMs: v.duplicateWindowS * 1000,
    velocity: {
      enabled: v.velocityBrake === 'on',
      windowMin: v.velocityWindowMin,
      factor: v.velocityFactor,
      newKeyWindowKobo: kobo(v.velocityNewKeyNaira * 100),
    },
    recoveryIntervalMs: v.recoveryIntervalMs,
    recoveryAttentionAfterMs: v.recoveryAttentionAfterMs,
    sandboxDelayMs: v.sandboxDelayMs,
    logLevel: v.logLevel,
    shutdownTimeoutMs: v.shutdownTimeoutMs,
    shutdownDrainMs: checkedDrain(v.shutdownDrainMs, v.shutdownTimeoutMs),
    providers: readProvidersConfig(env, v.sandboxDelayMs),
    upstreamFloatPollMs: v.upstreamFloatPollMs,
    reconcileAtMinute: v.reconcileAt,
    dashboardPublicUrl: v.dashboardPublicUrl.replace(/\/+$/, ''),
    consolePublicUrl: v.consolePublicUrl.replace(/\/+$/, ''),
    cliMoneyMoves: v.cliMoneyMoves,
    signUp: { mode: v.signUp, perAddressPerDay: v.signUpPerAddressDay },
    apiTierMinLevel: v.apiTierMinLevel,
    fourEyesCoolingMs: v.fourEyesCoolingH * 3_600_000,
    mongo: v.mongoUri === undefined ? null : { uri: v.mongoUri, dbName: v.mongoDb },
    webhooks: {
      retryBaseMs: v.webhookRetryBaseMs,
      allowPrivate: v.webhookAllowPrivate === 'true',
      concurrency: v.webhookConcurrency,
      perDestination: v.webhookPerDestination,
      timeoutMs: v.webhookTimeoutMs,
    },
    funding: {
      fee: { basisPoints: v.fundingFeePercent, capKobo: v.fundingFeeCapNaira },
      sweepIntervalMs: v.fundingSweepIntervalMs,
      kycKey: v.fundingKycKey,
      paystack:
        v.paystackSecretKey === undefined || v.paystackSecretKey === ''
          ? null
          : {
              secretKey: credential('PAYSTACK_SECRET_KEY', v.paystackSecretKey, 'for Paystack funding'),
              baseUrl: upstreamUrl('PAYSTACK_BASE_URL', v.paystackBaseUrl ?? DEFAULT_PAYSTACK_BASE_URL),
              preferredBank: v.paystackPreferredBank,
            },
      monnify: monnifyConfig(v.monnifyApiKey, v.monnifySecretKey, v.monnifyContractCode, v.monnifyBaseUrl),
      sandboxLive: v.fundingSandboxLive === 'on',
    },
    mail: mailSettings(v.smtpUrl, v.mailFrom),
    backups: backupConfig(v, path.resolve(v.dataDir), v.mongoUri !== undefined),
  };
}

/** SMTP_URL and MAIL_FROM come together: a server with no sender, or a sender with no server, is a mistake. */
function mailSettings(server: MailSettings['server'] | null, from: string | null): MailSettings | null {
  if (server === null && from === null) return null;
  if (server === null) throw new ConfigError('SMTP_URL', 'is required when MAIL_FROM is set.');
  if (from === null) throw new ConfigError('MAIL_FROM', 'is required when SMTP_URL is set.');
  return { server, from };
}
