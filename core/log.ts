/**
 * One JSON line per event on stdout. Callers pass facts, never secrets: no key pair,
 * no token and no secret ever goes into a field.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type Logger = (event: string, fields: Record<string, unknown>) => void;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Events that are faults rather than facts. */
function levelOf(event: string): Exclude<LogLevel, 'silent'> {
  if (/error|failed/.test(event)) return 'error';
  if (/^provider\.|^receipt\./.test(event)) return 'debug';
  return 'info';
}

export function createLogger(level: LogLevel, service: string, write: (line: string) => void = (line) => process.stdout.write(line + '\n')): Logger {
  return (event, fields) => {
    const eventLevel = levelOf(event);
    if (RANK[eventLevel] < RANK[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: eventLevel, service, event, ...fields }));
  };
}
