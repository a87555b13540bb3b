/**
 * How a process of this service lives and stops, shared by `npm start`, `npm run start:core`
 * and `npm run start:gateway`: a start that fails says why on stderr and exits non-zero
 * (2 for a configuration error, naming the variable); SIGTERM or SIGINT runs the graceful
 * stop within its bound, then the logs are flushed and the process exits 0, or 1 when the
 * stop had to be forced.
 */
import { performance } from 'node:perf_hooks';
import { ConfigError } from './env-schema.js';
import type { ProcessLog } from './log.js';

/** A process (or the core of one) that runUntilSignal can stop. */
export interface Stoppable {
  /** How long the whole stop (drain window included) may take before it is forced and the process exits 1. */
  shutdownTimeoutMs: number;
  /** How long health says "not serving" while work is still taken, before close() begins. */
  drainMs: number;
  /** Where the shutdown is logged; flushed before the process exits. */
  log: Pick<ProcessLog, 'info' | 'error' | 'flush'>;
  /** Health turns "not serving" (503, NOT_SERVING); requests are still served. */
  drain(): void;
  /** The graceful stop: drain, stop accepting, finish in-flight work, close the store. */
  close(): Promise<void>;
  /** Past the deadline: drop whatever is still open, at once. */
  forceClose(): void;
}

/** Exit status of a start refused for its configuration (as the CLI's usage errors). */
const EXIT_CONFIG = 2;
/** Exit status of any other failed start, and of a shutdown that had to be forced. */
const EXIT_FAILURE = 1;

/** Says why a start failed, on stderr, as a person reads it: a ConfigError names its variable. */
function reportStartFailure(error: unknown): number {
  if (error instanceof ConfigError || (error instanceof Error && error.name === 'ConfigError')) {
    console.error(`Configuration error: ${error.message}`);
    return EXIT_CONFIG;
  }
  console.error('Start-up failed:', error instanceof Error ? error.message : error);
  return EXIT_FAILURE;
}

/**
 * Once a process listens, a person reading the terminal is told where each part is, on
 * stderr (stdout is the JSON log, for machines): one line per part, the label padded so the
 * addresses line up, then how to stop it.
 */
export function announceReady(parts: readonly (readonly [label: string, where: string])[]): void {
  const width = Math.max(...parts.map(([label]) => label.length));
  const lines = parts.map(([label, where]) => `  ${label.padEnd(width)}  ${where}`);
  process.stderr.write(
    `Prepaid services are running:\n${lines.join('\n')}\nStop with Ctrl-C or SIGTERM (a graceful stop).\n`,
  );
}

/** A flush that waits at most this long: a log pipe that is gone must not hold the exit. */
const FINAL_FLUSH_TIMEOUT_MS = 2_000;

/** A signal repeated sooner than this while starting is the same stop asked twice (npm echoes Ctrl-C). */
const REPEAT_WHILE_STARTING_MS = 1_000;

/** How often a process started by an npm script looks whether npm is still its parent. */
const PARENT_CHECK_MS = 500;

/**
 * True when this process was started by an npm script (`npm start`, `npm run start:core`...):
 * npm puts npm_lifecycle_event in its scripts' environment. Such a process has no reason to
 * outlive the npm that a process manager holds: when npm is gone, it stops as on SIGTERM.
 */
function startedByNpm(): boolean {
  return (process.env['npm_lifecycle_event'] ?? '').startsWith('start');
}

/**
 * Runs a server until SIGTERM or SIGINT, then stops it gracefully and exits 0: health turns
 * first, work is still taken for drainMs (so load balancers see the health and stop
 * sending), then close(). All of it within shutdownTimeoutMs: past that the stop is forced,
 * logged, and the process exits 1. A repeated signal changes nothing (npm passes Ctrl-C on
 * to a process that the terminal has already sent it to). A start-up failure exits 2 for a
 * configuration error, 1 otherwise.
 *
 * Under an npm script, SIGTERM reaches this process because the scripts `exec` node (npm
 * signals its child, which is then node itself, not a shell that would die and leave node
 * running). And should npm die without passing the signal on (SIGKILL, an npm that does not
 * forward), the process notices that its parent has changed and stops the same way, so it
 * never keeps the ports of a service that its process manager believes stopped.
 */
export async function runUntilSignal(start: () => Promise<Stoppable>): Promise<void> {
  // The handlers are in place before the start begins: a part logs that it listens before
  // the whole start has returned, and a SIGTERM sent on seeing that line (a process manager,
  // a test) must not meet Node's default, which ends the process with no graceful stop. A
  // signal that comes while starting is kept and acted on as soon as the start is done; one
  // more, a second or more later (Ctrl-C again on a start that hangs; npm's echo of the
  // terminal's Ctrl-C comes at once), ends the process there and then.
  let pending: { signal: NodeJS.Signals; at: number } | undefined;
  // The parent is read before the start too: npm killed on seeing a listening line, before
  // the start has returned, would otherwise be read as a parent that is already init's, and
  // its going never noticed.
  const parent = process.ppid;
  let onSignal = (signal: NodeJS.Signals) => {
    if (pending === undefined) {
      pending = { signal, at: performance.now() };
      return;
    }
    if (performance.now() - pending.at < REPEAT_WHILE_STARTING_MS) return;
    console.error(`Stopped by a second ${signal} while starting.`);
    process.exit(EXIT_FAILURE);
  };
  process.on('SIGTERM', (signal) => onSignal(signal));
  process.on('SIGINT', (signal) => onSignal(signal));
  let running: Stoppable;
  try {
    running = await start();
  } catch (error) {
    process.exit(reportStartFailure(error));
  }
  const { log } = running;
  const exit = async (code: number) => {
    await Promise.race([log.flush(), new Promise((resolve) => setTimeout(resolve, FINAL_FLUSH_TIMEOUT_MS).unref())]);
    process.exit(code);
  };
  let started: number | undefined;
  let forced = false;
  const force = () => {
    forced = true;
    log.error('shutdown.timeout_error', {
      message:
        `The graceful stop did not finish within SHUTDOWN_TIMEOUT_MS (${running.shutdownTimeoutMs} ms); ` +
        `what is still open is dropped.`,
      after_ms: Math.round(performance.now() - (started ?? 0)),
    });
    running.forceClose();
    void exit(EXIT_FAILURE);
  };
  /** `signal` is the signal's name, or "parent_exited" when npm went away without one. */
  const stop = (signal: NodeJS.Signals | 'parent_exited') => {
    if (started !== undefined) return;
    started = performance.now();
    log.info('shutdown.started', { signal, drain_ms: running.drainMs, timeout_ms: running.shutdownTimeoutMs });
    const timer = setTimeout(force, running.shutdownTimeoutMs);
    running.drain();
    const drained = new Promise<void>((resolve) => setTimeout(resolve, running.drainMs));
    drained
      .then(() => running.close())
      .then(
        () => {
          clearTimeout(timer);
          // A stop that finished after it was forced has already been reported and exits 1.
          if (forced) return;
          log.info('shutdown.completed', { signal, ms: Math.round(performance.now() - started!) });
          void exit(0);
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (forced) return;
          log.error('shutdown.failed', {
            signal,
            error: error instanceof Error ? (error.stack ?? error.message) : String(error),
          });
          void exit(EXIT_FAILURE);
        },
      );
  };
  onSignal = stop;
  if (pending !== undefined) stop(pending.signal);
  if (startedByNpm()) {
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      stop('parent_exited');
    }, PARENT_CHECK_MS);
    watch.unref();
  }
}
