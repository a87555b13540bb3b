/**
 * The gateway's log: one JSON line per event, in the same shape as the core's
 * (runtime/log.ts: `{"level","time","pid","hostname","service":"gateway","event",...}`), so
 * both processes share one log pipeline and one list of redacted fields. It is a small
 * interface so that tests can capture what was logged.
 * Callers pass facts, never secrets: no secret key, no full key pair and no token goes
 * into a field.
 */
import { createProcessLog, type LogLevel, type ProcessLog } from '../runtime/log.js';

/** Where the gateway writes what an operator needs to see. */
export interface GatewayLogger {
  /** Something worth knowing: started, stopped, one line per API request. */
  info(event: string, fields?: Record<string, unknown>): void;
  /** A fault an operator must look at; never sent to the caller. */
  error(event: string, fields?: Record<string, unknown>): void;
  /** Something that went wrong without being a fault of ours (a forced stop). Optional for captures. */
  warn?(event: string, fields?: Record<string, unknown>): void;
  /** Detail that is only wanted while debugging: health and metrics probes. Optional for captures. */
  debug?(event: string, fields?: Record<string, unknown>): void;
  /** Writes out whatever is buffered, before the process exits. Optional for captures. */
  flush?(): Promise<void>;
}

/** The gateway's log at `level`, on stdout. */
export function createGatewayLogger(level: LogLevel): GatewayLogger & ProcessLog {
  return createProcessLog({ level, service: 'gateway' });
}

let shared: (GatewayLogger & ProcessLog) | undefined;

/**
 * A log at `info` on stdout, made on first use: the default of createGateway() and
 * startGateway() when they are not given one. gateway/main.ts makes its own at LOG_LEVEL.
 */
export const consoleLogger: GatewayLogger = {
  info: (event, fields) => defaultLog().info(event, fields),
  error: (event, fields) => defaultLog().error(event, fields),
  warn: (event, fields) => defaultLog().warn(event, fields),
  debug: (event, fields) => defaultLog().debug(event, fields),
  flush: () => defaultLog().flush(),
};

function defaultLog(): GatewayLogger & ProcessLog {
  shared ??= createGatewayLogger('info');
  return shared;
}
