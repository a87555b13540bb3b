/**
 * Structured logs: one JSON line per event on stdout, through pino, in the same shape in
 * every process: `{"level","time","pid","hostname","service","event",...fields}`.
 *
 * Callers pass facts, never secrets: no secret key, no full key pair, no bearer token and
 * no connection string goes into a field. As a second line of defence, pino blanks the
 * field names under which one could appear (REDACTED_PATHS), and every string value of a
 * line is searched for anything shaped like a secret (redactSecrets), whatever field a
 * careless caller or a hostile client put it in: a partner that swaps its two key headers
 * must not get its secret key logged as its public key.
 *
 * Lines go to stdout through pino's asynchronous destination (sonic-boom): a log call
 * formats the line and returns, and the write happens off the request's path. A process
 * that stops calls `flush()` before it exits, so nothing buffered is lost.
 */
import os from 'node:os';
import pino, { type DestinationStream, type Logger as Pino } from 'pino';

/** LOG_LEVEL's words, least to most severe; `silent` writes nothing. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Facts about one event. */
type LogFields = Record<string, unknown>;

/** The core's logging function: an event name and its facts; the level follows from the name. */
export type Logger = (event: string, fields: LogFields) => void;

/** A process's log: one method per level, and a flush for shutdown. */
export interface ProcessLog {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
  /** Writes out whatever is buffered; resolves once it is handed to the operating system. */
  flush(): Promise<void>;
}

/**
 * Field names that would hold a secret, blanked wherever they stand at the top of a line.
 * A public key is not a secret and is not listed; the electricity `token` is a voucher that
 * buys power, so it is.
 */
const SECRET_FIELDS = [
  'secret_key',
  'secretKey',
  'secret',
  'key_pair',
  'keyPair',
  'issued_key',
  'issuedKey',
  'authorization',
  'token',
  'admin_token',
  'adminToken',
  'service_token',
  'serviceToken',
  'api_key',
  'apiKey',
  'password',
  'uri',
  'mongodb_uri',
] as const;

/**
 * pino `redact` paths: the secret fields at the top of a line, and the key and bearer
 * headers of request headers passed whole. Paths are explicit and shallow on purpose:
 * pino's wildcard paths (`*.x`) cost some 20 microseconds a line, and every nested path a
 * little more on each line that has its first key; a request's line must stay a couple of
 * microseconds.
 */
const REDACTED_PATHS: readonly string[] = [
  ...SECRET_FIELDS,
  '["x-secret-key"]',
  'headers["x-secret-key"]',
  'headers.authorization',
  'req.headers["x-secret-key"]',
  'req.headers.authorization',
];

/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Text shaped like a secret, wherever it stands in a value: our secret keys (`sk_`,
 * `sk_test_`), webhook secrets (`whsec_`), session and invitation tokens of the developer area
 * (`sess_`, `inv_`), a bearer credential, and any long run of base64url characters with
 * upper- and lower-case letters and digits (the service and admin tokens are 43 of them; a
 * hex hash or a reference never matches).
 *
 * The long run is tried only where a run starts (the lookbehind). That changes no match:
 * where the three lookaheads fail at a run's first character they fail at every later one
 * (each sees a part of what the first saw), and every match ends where a run ends, so no
 * search resumes inside one. It changes the cost: without it the lookaheads scanned the rest
 * of the run again from each of its characters, a few microseconds for every 30-character
 * identifier of a request's line. test/runtime/redaction.test.ts checks both against the
 * plain form on generated text.
 */
export const SECRET_SHAPES = new RegExp(
  [
    String.raw`\b(?:sk|whsec|sess|inv)_[A-Za-z0-9_-]{6,}`,
    String.raw`\bBearer\s+\S+`,
    String.raw`(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{32,}`,
  ].join('|'),
  'g',
);
/**
 * A quick test that lets the common string skip the search: it matches everything
 * SECRET_SHAPES can match (each of its three shapes holds one of these pieces), and not the
 * ids every request's line carries (`acc_` and 16 hex digits, `pk_` and 24). The run is
 * looked for where a run starts, as there.
 */
export const MAYBE_SECRET = /sk_|whsec_|sess_|inv_|Bearer|(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32}/;
/** Nested objects are searched this deep; a log line's fields are flat or nearly so. */
const REDACT_MAX_DEPTH = 4;

/** `value` with every secret-shaped piece of text replaced by REDACTED. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return MAYBE_SECRET.test(value) ? value.replace(SECRET_SHAPES, REDACTED) : value;
  }
  if (value === null || typeof value !== 'object' || depth >= REDACT_MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => redactSecrets(item, depth + 1));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (value instanceof Error)
    return redactSecrets({ name: value.name, message: value.message, stack: value.stack }, depth);
  // Copied only when something in it changes: nearly every line has nothing to redact, and
  // one is written for every request.
  let clean: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const redacted = redactSecrets(item, depth + 1);
    if (redacted !== item) {
      clean ??= { ...(value as Record<string, unknown>) };
      clean[key] = redacted;
    }
  }
  return clean ?? value;
}

/**
 * pino's `isoTime` (`,"time":"<ISO 8601>"`), made once per millisecond: under load several
 * lines share one, and formatting a Date was about a tenth of a request line's cost.
 */
export function isoTime(): string {
  const ms = Date.now();
  if (ms !== timeMs) {
    timeMs = ms;
    timeText = `,"time":"${new Date(ms).toISOString()}"`;
  }
  return timeText;
}
let timeMs = Number.NaN;
let timeText = '';

/** The longest a flush waits for stdout to take the lines already written. */
const SETTLE_BOUND_MS = 2_000;

/** A destination that can say when everything handed to it has reached the operating system. */
interface SettlingDestination extends DestinationStream {
  settled(): Promise<void>;
}

/**
 * Where lines go unless told otherwise: stdout, written asynchronously.
 *
 * sonic-boom's own `flush(cb)` calls back at once when its `minLength` is 0 (pino's
 * default), even while a write is still in flight; an exit then runs pino's synchronous
 * exit flush, which writes the lines queued behind that write before it, so the last line of
 * a stop could land before the one it follows (seen once in CI: `shutdown.completed` before
 * `core.stopped`). So the bytes handed over are counted against the bytes sonic-boom reports
 * written (its documented `write` event), and `settled()` waits until they match.
 *
 * Lines are handed over as bytes (sonic-boom's `contentMode: 'buffer'`). Given text, sonic-boom
 * measures the UTF-8 length of everything queued behind a write in flight each time a line
 * joins it, up to 16 KB a line under load: a third of a request line's cost. Given bytes, it adds
 * their lengths, and the one conversion here also gives the count above.
 */
function stdoutDestination(): SettlingDestination {
  const boom = pino.destination({ dest: 1, sync: false, contentMode: 'buffer' });
  // In buffer mode sonic-boom's write takes a Buffer; its types only know the utf8 mode's string.
  const writeBytes = boom.write.bind(boom) as unknown as (bytes: Buffer) => boolean;
  let pending = 0;
  let waiters: (() => void)[] = [];
  boom.on('write', (n: number) => {
    pending = Math.max(0, pending - n);
    if (pending > 0) return;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  });
  return {
    write(line: string) {
      const bytes = Buffer.from(line, 'utf8');
      pending += bytes.length;
      return writeBytes(bytes);
    },
    // Bounded: a stdout whose reader went away (pino then drops every line) never reports.
    settled: () =>
      pending === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiters.push(resolve);
            setTimeout(resolve, SETTLE_BOUND_MS).unref();
          }),
  };
}

/**
 * A process's log at `level`, tagged with `service` ("core", "gateway"). `destination`
 * receives whole lines (tests capture them); stdout by default.
 */
export function createProcessLog(options: {
  level: LogLevel;
  service: string;
  destination?: DestinationStream;
}): ProcessLog {
  const own = options.destination === undefined ? stdoutDestination() : undefined;
  const destination = options.destination ?? (own as SettlingDestination);
  const logger: Pino = pino(
    {
      level: options.level,
      base: { pid: process.pid, hostname: os.hostname(), service: options.service },
      timestamp: isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => redactSecrets(fields) as Record<string, unknown>,
      },
      redact: { paths: [...REDACTED_PATHS], censor: REDACTED },
    },
    destination,
  );
  // The event goes first so that a line reads (and greps) from its name.
  const at = (level: Exclude<LogLevel, 'silent'>) => (event: string, fields?: LogFields) => {
    if (logger.isLevelEnabled(level)) logger[level](fields === undefined ? { event } : { event, ...unclashed(fields) });
  };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    flush: () =>
      own
        ? own.settled()
        : new Promise<void>((resolve) => {
            logger.flush(() => resolve());
          }),
  };
}

/** Keys every line has already; a field of the same name would give a line two of them. */
const LINE_KEYS = ['level', 'time', 'pid', 'hostname', 'service', 'event'] as const;

/**
 * The fields with any that would clash with a line's own keys renamed `field_<key>` (a
 * transaction's `service`, such as "mtn", must not pass for the process's).
 */
function unclashed(fields: LogFields): LogFields {
  let clash = false;
  for (const key of LINE_KEYS) if (Object.hasOwn(fields, key)) clash = true;
  if (!clash) return fields;
  const renamed: LogFields = {};
  for (const [key, value] of Object.entries(fields))
    renamed[(LINE_KEYS as readonly string[]).includes(key) ? `field_${key}` : key] = value;
  return renamed;
}

/**
 * The level of an event, from its name: faults (`*error*`, `*failed*`) are errors,
 * `*warning*` events are warnings, the chatter of every provider call, receipt and delivered
 * webhook is debug,
 * and everything else is info. Names are a small closed set, so each is worked out once.
 */
function levelOf(event: string): Exclude<LogLevel, 'silent'> {
  if (/error|failed/.test(event)) return 'error';
  if (/warning/.test(event)) return 'warn';
  if (/^provider\.|^receipt\.|^webhook\.delivered$/.test(event)) return 'debug';
  return 'info';
}

/** The core's `Logger` over a process log: each event at the level its name gives. */
export function eventLogger(log: ProcessLog): Logger {
  const levels = new Map<string, Exclude<LogLevel, 'silent'>>();
  return (event, fields) => {
    let level = levels.get(event);
    if (level === undefined) {
      level = levelOf(event);
      levels.set(event, level);
    }
    log[level](event, fields);
  };
}
