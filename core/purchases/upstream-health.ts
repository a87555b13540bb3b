/**
 * Each upstream's health as this core saw it: a circuit breaker and the float.
 *
 * The circuit opens after CIRCUIT_OPEN_AFTER consecutive proven failures or time-outs (a call
 * the upstream answered, whatever it said, closes it again); open, the upstream is skipped by
 * routes that have another choice; after CIRCUIT_COOL_DOWN_MS it lets one purchase through
 * (half-open), whose answer closes or re-opens it. The float is our wallet at the upstream as
 * the poller last read it; under the operator's alert the upstream is skipped the same way,
 * before it starts refusing purchases for want of money (VTpass 018, ClubKonnect 412).
 *
 * Kept in memory per core: a new core starts with every circuit closed, and each core learns
 * on its own; the float alert itself is in the store.
 */
import type { Kobo } from '../domain/money.js';

/** Consecutive proven failures or time-outs that open a circuit. */
const CIRCUIT_OPEN_AFTER = 5;
/** How long an open circuit waits before one probe purchase may go through. */
const CIRCUIT_COOL_DOWN_MS = 30_000;

export type CircuitState = 'closed' | 'open' | 'half_open';

/** Why health takes an upstream out of a route that has another choice. */
export type HealthSkip = 'circuit_open' | 'float_low';

/** What one call told about an upstream's health. */
export type CallHealth =
  /** The upstream answered (delivered, refused, pending: it is up). */
  | 'answered'
  /** Proven non-delivery by its kind's rule (refused connection, 091, ...). */
  | 'proven_failure'
  /** No answer in time. */
  | 'timeout';

interface UpstreamHealthView {
  circuit: CircuitState;
  floatKobo: Kobo | null;
  floatAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  /** Purchases that skipped it since this core started, by reason. */
  skippedOpen: number;
  skippedFloat: number;
}

interface Entry {
  failures: number;
  openedAt: number | null;
  probing: boolean;
  floatKobo: Kobo | null;
  floatAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  skippedOpen: number;
  skippedFloat: number;
}

export interface UpstreamHealth {
  /** Whether routes should skip the upstream now. Half-open with its probe under way counts as open. */
  status(name: string, floatAlertKobo: Kobo | null, now: Date): 'ok' | HealthSkip;
  /** Counts a purchase that skipped the upstream. */
  skipped(name: string, reason: HealthSkip): void;
  /** A purchase is about to call the upstream: half-open, it becomes the probe. */
  willCall(name: string, now: Date): void;
  /** What one call to the upstream told. */
  record(name: string, result: CallHealth, now: Date, error?: string): void;
  /** The float the poller read, or why it could not. */
  setFloat(name: string, floatKobo: Kobo, now: Date): void;
  floatFailed(name: string, error: string, now: Date): void;
  view(name: string, now: Date): UpstreamHealthView;
}

export function createUpstreamHealth(
  /** `onCircuit` is told when a circuit changes state, for the log and the metric. */
  options: { onCircuit?: (name: string, state: CircuitState) => void } = {},
): UpstreamHealth {
  const entries = new Map<string, Entry>();
  const entry = (name: string): Entry => {
    let found = entries.get(name);
    if (found === undefined) {
      found = {
        failures: 0,
        openedAt: null,
        probing: false,
        floatKobo: null,
        floatAt: null,
        lastError: null,
        lastErrorAt: null,
        skippedOpen: 0,
        skippedFloat: 0,
      };
      entries.set(name, found);
    }
    return found;
  };
  const stateOf = (e: Entry, now: number): CircuitState => {
    if (e.openedAt === null) return 'closed';
    return now - e.openedAt >= CIRCUIT_COOL_DOWN_MS ? 'half_open' : 'open';
  };
  const tell = (name: string, state: CircuitState) => options.onCircuit?.(name, state);

  return {
    status(name, floatAlertKobo, now) {
      const e = entry(name);
      const state = stateOf(e, now.getTime());
      if (state === 'open' || (state === 'half_open' && e.probing)) return 'circuit_open';
      if (floatAlertKobo !== null && e.floatKobo !== null && e.floatKobo < floatAlertKobo) return 'float_low';
      return 'ok';
    },
    skipped(name, reason) {
      const e = entry(name);
      if (reason === 'circuit_open') e.skippedOpen += 1;
      else e.skippedFloat += 1;
    },
    willCall(name, now) {
      const e = entry(name);
      if (stateOf(e, now.getTime()) === 'half_open' && !e.probing) {
        e.probing = true;
        tell(name, 'half_open');
      }
    },
    record(name, result, now, error) {
      const e = entry(name);
      if (result === 'answered') {
        const wasOpen = e.openedAt !== null;
        e.failures = 0;
        e.openedAt = null;
        e.probing = false;
        if (wasOpen) tell(name, 'closed');
        return;
      }
      e.failures += 1;
      e.lastError = error ?? result;
      e.lastErrorAt = now;
      if (e.openedAt !== null) {
        // A failed probe (or a call that was already under way): open again from now.
        if (e.probing || stateOf(e, now.getTime()) !== 'open') {
          e.openedAt = now.getTime();
          e.probing = false;
          tell(name, 'open');
        }
        return;
      }
      if (e.failures >= CIRCUIT_OPEN_AFTER) {
        e.openedAt = now.getTime();
        tell(name, 'open');
      }
    },
    setFloat(name, floatKobo, now) {
      const e = entry(name);
      e.floatKobo = floatKobo;
      e.floatAt = now;
    },
    floatFailed(name, error, now) {
      const e = entry(name);
      e.lastError = `balance: ${error}`;
      e.lastErrorAt = now;
    },
    view(name, now) {
      const e = entry(name);
      return {
        circuit: stateOf(e, now.getTime()),
        floatKobo: e.floatKobo,
        floatAt: e.floatAt,
        lastError: e.lastError,
        lastErrorAt: e.lastErrorAt,
        skippedOpen: e.skippedOpen,
        skippedFloat: e.skippedFloat,
      };
    },
  };
}
