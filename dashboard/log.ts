/**
 * The dashboard's log: one JSON line per event, in the same shape as the core's and the
 * gateway's (runtime/log.ts), so that the same redaction applies: session (`sess_`) and
 * invitation (`inv_`) tokens are blanked wherever they appear. Request lines name the route,
 * never the raw path or query, so an invitation link's token is not even handed to the log.
 */
import { createProcessLog, type LogLevel, type ProcessLog } from '../runtime/log.js';

export interface DashboardLogger {
  info(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
  flush?(): Promise<void>;
}

export function createDashboardLogger(level: LogLevel): DashboardLogger & ProcessLog {
  return createProcessLog({ level, service: 'dashboard' });
}
