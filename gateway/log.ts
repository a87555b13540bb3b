/**
 * The gateway's log: one JSON line per event, in the same shape as the core's
 * (`{"time","level","service","event",...fields}`), so that both processes can share one
 * log pipeline. It is a small interface so that tests can capture what was logged.
 * Callers pass facts, never secrets: no key pair and no token goes into a field.
 */

/** Where the gateway writes what an operator needs to see. */
export interface GatewayLogger {
  /** Something worth knowing: started, stopped. */
  info(event: string, fields?: Record<string, unknown>): void;
  /** A fault an operator must look at; never sent to the caller. */
  error(event: string, fields?: Record<string, unknown>): void;
}

function line(level: 'info' | 'error', event: string, fields: Record<string, unknown> | undefined): string {
  return JSON.stringify({ time: new Date().toISOString(), level, service: 'gateway', event, ...fields });
}

/** Logs facts to stdout and faults to stderr. */
export const consoleLogger: GatewayLogger = {
  info(event, fields) {
    console.log(line('info', event, fields));
  },
  error(event, fields) {
    console.error(line('error', event, fields));
  },
};
