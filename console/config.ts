/**
 * The console's configuration: one typed schema read from the environment (STYLE.md 8).
 * It binds to loopback by default: staff reach it through a VPN or a proxy they choose. It
 * serves TLS itself when given a certificate and key (CONSOLE_TLS_CERT, CONSOLE_TLS_KEY, as the
 * core's CORE_TLS_*), and believes X-Forwarded-For only from CONSOLE_TRUSTED_PROXIES.
 */
import path from 'node:path';
import { parseAddressList } from '../runtime/client-ip.js';
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
import { loadOrCreateToken, serviceTokenOf } from '../runtime/tokens.js';
import { baseUrlText, checkUrl } from '../runtime/url.js';

/** The file the console keeps its CSRF key in, beside the core's tokens. */
const CONSOLE_SECRET_FILE = 'console.secret';
/** Long enough that the HMAC key cannot be guessed. */
const MIN_SECRET_CHARS = 32;

export interface ConsoleConfig {
  port: number;
  host: string;
  coreUrl: string;
  serviceToken: string | undefined;
  secret: string | undefined;
  dataDir: string;
  secureCookies: boolean;
  /** Proxies whose X-Forwarded-For is believed, as written (IPs or CIDRs). */
  trustedProxies: readonly string[];
  /** The address staff open the console at; `npm start` hands it to the core for set-up links. */
  publicUrl: string;
  /** PEM files of the console's own TLS certificate and key; undefined serves plain http. */
  tls: { certFile: string; keyFile: string } | undefined;
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
}

const CONSOLE_PORT = integer('CONSOLE_PORT', {
  fallback: 8082,
  min: 0,
  max: 65535,
  help: "HTTP port of the operator's console (0 picks a free one).",
});

export const CONSOLE_SCHEMA = {
  port: CONSOLE_PORT,
  host: text('CONSOLE_HOST', {
    fallback: '127.0.0.1',
    help: 'Interface the console binds; loopback by default, so staff reach it through a VPN or a proxy.',
  }),
  coreUrl: text('CONSOLE_CORE_URL', {
    fallback: 'http://127.0.0.1:50051',
    help: "The core's gRPC address, for a console running apart from the core (plain http on this machine).",
  }),
  serviceToken: variable(
    'SERVICE_TOKEN',
    'read from `DATA_DIR/service.token`',
    'The token the console presents to the core.',
    (raw) => raw,
  ),
  secret: variable(
    'CONSOLE_SECRET',
    'generated in `DATA_DIR/console.secret`',
    `Key of the console's CSRF tokens (at least ${MIN_SECRET_CHARS} characters).`,
    (raw) => {
      if (raw !== undefined && raw.length < MIN_SECRET_CHARS)
        throw new Error(`CONSOLE_SECRET must be at least ${MIN_SECRET_CHARS} characters.`);
      return raw;
    },
  ),
  publicUrl: variable(
    'CONSOLE_PUBLIC_URL',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the help text shows the variable the default is built from.
    'http://localhost:${CONSOLE_PORT}',
    'The address staff open the console at (behind a TLS proxy, its https:// address); the core reads it too, ' +
      'for set-up links.',
    (raw, env) => parsePublicUrl(raw ?? `http://localhost:${CONSOLE_PORT.read(env) || 8082}`),
  ),
  secureCookies: oneOf('CONSOLE_SECURE_COOKIES', {
    words: ['auto', 'yes', 'no'],
    fallback: 'auto',
    help:
      '`yes` marks the session cookie `Secure` (sent over https only); `auto` does when the console serves ' +
      'TLS (`CONSOLE_TLS_CERT`) or `CONSOLE_PUBLIC_URL` is https://, as behind a TLS proxy.',
  }),
  trustedProxies: variable(
    'CONSOLE_TRUSTED_PROXIES',
    'none',
    'Comma-separated IPs or CIDRs of reverse proxies whose `X-Forwarded-For` is believed (the address sign-in ' +
      'attempts are counted by and the audit log keeps).',
    (raw) => parseAddressList('CONSOLE_TRUSTED_PROXIES', raw ?? ''),
  ),
  tlsCert: variable(
    'CONSOLE_TLS_CERT',
    'none (plain http)',
    "PEM file of the console's TLS certificate (chain); with `CONSOLE_TLS_KEY` the console serves https only.",
    (raw) => (raw === undefined || raw.trim() === '' ? undefined : raw),
  ),
  tlsKey: variable(
    'CONSOLE_TLS_KEY',
    'required with `CONSOLE_TLS_CERT`',
    'PEM file of the private key of `CONSOLE_TLS_CERT` (keep it 0600).',
    (raw) => (raw === undefined || raw.trim() === '' ? undefined : raw),
  ),
  dataDir: text('DATA_DIR', {
    fallback: './data',
    help: "The core's data directory (`service.token`, `console.secret`).",
  }),
  logLevel: logLevelVariable(),
  shutdownTimeoutMs: shutdownTimeoutVariable(
    'How long a graceful stop may take; past it open connections are dropped and the process exits 1.',
  ),
} as const;

export function consoleConfigHelp(): string {
  return helpText('Console configuration', CONSOLE_SCHEMA);
}

export function loadConsoleConfig(env: Env = process.env): ConsoleConfig {
  const v = readSchema(CONSOLE_SCHEMA, env);
  const core = new URL(v.coreUrl);
  if (core.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(core.hostname))
    throw new Error(
      'CONSOLE_CORE_URL must be an http:// address on this machine (the console trusts no other hop yet).',
    );
  // Half a TLS setting is a mistake, not plain http.
  if (v.tlsCert === undefined && v.tlsKey !== undefined)
    throw new ConfigError('CONSOLE_TLS_CERT', 'is required when CONSOLE_TLS_KEY is set.');
  if (v.tlsCert !== undefined && v.tlsKey === undefined)
    throw new ConfigError('CONSOLE_TLS_KEY', 'is required when CONSOLE_TLS_CERT is set.');
  const tls = v.tlsCert === undefined ? undefined : { certFile: v.tlsCert, keyFile: v.tlsKey! };
  const overHttps = tls !== undefined || v.publicUrl.startsWith('https:');
  if (v.secureCookies === 'no' && overHttps)
    throw new ConfigError(
      'CONSOLE_SECURE_COOKIES',
      'is no, but staff reach the console over https (CONSOLE_TLS_CERT or an https:// CONSOLE_PUBLIC_URL); the ' +
        'session cookie must be Secure.',
    );
  return {
    port: v.port,
    host: v.host,
    publicUrl: v.publicUrl,
    coreUrl: v.coreUrl,
    serviceToken: v.serviceToken,
    secret: v.secret,
    dataDir: path.resolve(v.dataDir),
    secureCookies: v.secureCookies === 'yes' || (v.secureCookies === 'auto' && overHttps),
    trustedProxies: v.trustedProxies,
    tls,
    logLevel: v.logLevel,
    shutdownTimeoutMs: v.shutdownTimeoutMs,
  };
}

function parsePublicUrl(raw: string): string {
  const checked = checkUrl(raw, {
    schemes: ['http:', 'https:'],
    noCredentials: true,
    example: 'https://console.example.ng',
  });
  if (checked.problem !== undefined) throw new ConfigError('CONSOLE_PUBLIC_URL', checked.problem);
  return baseUrlText(checked.url);
}

export function resolveConsoleServiceToken(config: ConsoleConfig): string {
  return serviceTokenOf(config.dataDir, config.serviceToken);
}

export function resolveConsoleSecret(config: ConsoleConfig): string {
  return loadOrCreateToken(config.dataDir, CONSOLE_SECRET_FILE, config.secret ?? null);
}
