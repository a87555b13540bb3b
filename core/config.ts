/**
 * The core's configuration: one typed schema read from the environment, validated at
 * start with an error that names the variable. Secrets have no default: when ADMIN_TOKEN
 * or SERVICE_TOKEN is unset, a random one is created once in DATA_DIR (mode 0600) and
 * reused, so a single machine works out of the box and nothing secret is in the repo.
 */
import path from 'node:path';

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
];

export function readCoreConfig(env: Env = process.env): CoreConfig {
  const logLevel = readString(env, 'LOG_LEVEL', 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}.`);
  return {
    dataDir: path.resolve(readString(env, 'DATA_DIR', './data')),
    host: readString(env, 'CORE_HOST', '127.0.0.1'),
    port: readInteger(env, 'CORE_PORT', 50051, 0, 65535),
    adminToken: readSecret(env, 'ADMIN_TOKEN'),
    serviceToken: readSecret(env, 'SERVICE_TOKEN'),
    providerTimeoutMs: readInteger(env, 'PROVIDER_TIMEOUT_MS', 15_000, 100, 120_000),
    recoveryIntervalMs: readInteger(env, 'RECOVERY_INTERVAL_MS', 10_000, 100, 3_600_000),
    recoveryAttentionAfterMs: readInteger(env, 'RECOVERY_ATTENTION_AFTER_MS', 86_400_000, 60_000, 30 * 86_400_000),
    sandboxDelayMs: readInteger(env, 'SANDBOX_DELAY_MS', 0, 0, 600_000),
    logLevel: logLevel as CoreConfig['logLevel'],
  };
}
