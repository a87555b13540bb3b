/**
 * The console's configuration: one typed schema read from the environment (STYLE.md 8).
 * It binds to loopback by default: staff reach it through a VPN or a proxy they choose.
 */
import path from 'node:path';
import {
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
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
}

export const CONSOLE_SCHEMA = {
  port: integer('CONSOLE_PORT', {
    fallback: 8082,
    min: 0,
    max: 65535,
    help: "HTTP port of the operator's console (0 picks a free one).",
  }),
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
  secureCookies: oneOf('CONSOLE_SECURE_COOKIES', {
    words: ['no', 'yes'],
    fallback: 'no',
    help: '`yes` marks the session cookie `Secure` (sent over https only): set it when staff reach the console through a TLS proxy.',
  }),
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
  return {
    port: v.port,
    host: v.host,
    coreUrl: v.coreUrl,
    serviceToken: v.serviceToken,
    secret: v.secret,
    dataDir: path.resolve(v.dataDir),
    secureCookies: v.secureCookies === 'yes',
    logLevel: v.logLevel,
    shutdownTimeoutMs: v.shutdownTimeoutMs,
  };
}

export function resolveConsoleServiceToken(config: ConsoleConfig): string {
  return serviceTokenOf(config.dataDir, config.serviceToken);
}

export function resolveConsoleSecret(config: ConsoleConfig): string {
  return loadOrCreateToken(config.dataDir, CONSOLE_SECRET_FILE, config.secret ?? null);
}
