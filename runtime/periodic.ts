/**
 * The one periodic runner of the core's background workers (the recovery worker, the upstream
 * float poller, the funding sweeper): a pass runs at start(), then `intervalMs` after the
 * previous pass ended (never two at once, never piling up behind a slow one); stop() ends the
 * schedule and waits for a pass in progress. A pass that throws is handed to `onError` and the
 * schedule goes on. The timer does not hold the process open: the lifecycle stops the workers.
 */

export interface PeriodicRunner<A extends unknown[], R> {
  /** One pass now, outside the schedule (tests, the console's "now", the start's first pass). */
  runOnce(...args: A): Promise<R>;
  start(): void;
  /** Stops scheduling and waits for a running pass to end (its failure is not rethrown). */
  stop(): Promise<void>;
}

export function createPeriodicRunner<A extends unknown[], R>(options: {
  /** One pass; `runOnce`'s arguments, none when the schedule runs it. */
  pass: (...args: A | []) => Promise<R>;
  intervalMs: number;
  onError: (error: unknown) => void;
  /**
   * A runOnce() while a pass runs: `join` gets that pass's result; `queue` waits for it, then
   * runs a pass of its own (for passes whose arguments matter, such as a due-by time).
   */
  overlap: 'join' | 'queue';
}): PeriodicRunner<A, R> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<R> | undefined;
  let stopped = true;

  function runOnce(...args: A | []): Promise<R> {
    if (running !== undefined && options.overlap === 'join') return running;
    const next = (running ?? Promise.resolve()).catch(() => undefined).then(() => options.pass(...args));
    running = next;
    void next
      .finally(() => {
        if (running === next) running = undefined;
      })
      .catch(() => undefined);
    return next;
  }

  function tick(): void {
    if (stopped) return;
    runOnce()
      .catch(options.onError)
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(tick, options.intervalMs);
        timer.unref();
      });
  }

  return {
    runOnce: (...args: A) => runOnce(...args),
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setTimeout(tick, 0);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
