/**
 * A turn of the event loop of its own for the RPCs that answer pages (history, statements,
 * the ledger), one such call per turn, oldest first.
 *
 * Why: the core's HTTP/2 connection sends what was written once per turn of the event loop,
 * after everything that turn runs. The gateway sends its calls in bursts, so a burst of page
 * calls used to be worked through back to back (each about half a millisecond for 100 rows)
 * and every answer left only when the last was done; meanwhile the gateway, with all its
 * requests waiting, sat idle, and then the core sat idle while the gateway turned the whole
 * burst into JSON. Each thread was busy about half the time while the machine had CPU to
 * spare, and a history page cost the sum of the two threads' work instead of the larger one.
 * With a turn each, a page leaves as soon as it is ready and the gateway works on it while
 * the core makes the next. Measured on this 2-core machine otherwise quiet (the service
 * built, 50 connections, rounds alternating with the service without turns, medians): 100-row
 * pages 686 -> 881 a second. The price is a send per page instead of one per burst: about 8%
 * more CPU per page, which shows only when other processes already take the CPU.
 *
 * Only pages take turns: the purchases asked for in one turn share one COMMIT
 * (core/store/sqlite/group-commit.ts), which a turn per call would break up.
 */

/** Calls waiting for their turn, oldest first. */
const waiting: (() => void)[] = [];
let turning = false;

/** Resolves in a turn of the event loop that no other caller of ownTurn() shares. */
export function ownTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!turning) {
      turning = true;
      setImmediate(takeTurn);
    }
  });
}

function takeTurn(): void {
  const next = waiting.shift()!;
  // Scheduled from inside an immediate, this one runs in the next turn, after what this
  // call writes has been sent.
  if (waiting.length > 0) setImmediate(takeTurn);
  else turning = false;
  next();
}
