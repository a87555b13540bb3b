/**
 * The velocity brake (docs/security.md, The velocity brake): each live key pair's reserves
 * counted in memory, and a key whose window runs far past its history frozen.
 *
 * The purchase path pays a few map look-ups and additions: `noteReserve` is synchronous and
 * writes nothing. Per key this core keeps the last VELOCITY_WINDOW_MIN minutes as one bucket a
 * minute (Naira reserved, recipients new today) and today's recipients as 32-bit hashes, so a
 * window is a sum of at most that many buckets. A recipient is new when the key had not sent
 * to it earlier the same Lagos day, as this core saw it.
 *
 * What a key may do in a window (core/domain/velocity.ts) comes from its trailing Lagos days,
 * read from the store the first time the key is seen and again every hour, in the background;
 * until they are read the key is not judged, and the window is judged again when they arrive.
 * This core's counts go to the store as each key's day (spending added, the day's peak of new
 * recipients in a window) every few seconds in one batch, best effort as key-use.ts is: a core
 * killed loses its last few seconds, which only makes the history a little lower.
 *
 * A window over the limits freezes the key: at once for this core (its next purchase is
 * KEY_FROZEN with no read), and in the store in the background (with key.frozen, the audit row
 * and the owner's mail). Other cores learn it from the store at their next key check: the
 * gateway asks again after AUTH_CACHE_TTL_MS (5 s by default, at most a minute). This core's own
 * refusal lasts a minute, past the longest such cache; after that the store's state decides.
 *
 * With several cores each counts only the reserves it took: a key's burst spread over N cores
 * trips the brake later, by up to N times the window's limit. The history adds up across cores.
 */
import type { Logger } from '../../runtime/log.js';
import type { Kobo } from '../domain/money.js';
import { lagosDay } from '../domain/people.js';
import {
  HISTORY_DAYS,
  keyFrozen,
  type VelocityLimits,
  type VelocitySettings,
  velocityLimits,
  velocityTrip,
} from '../domain/velocity.js';
import type { KeyUseStore, VelocityDayDelta } from '../store/port.js';

/** This core's counts are written at most this often. */
const VELOCITY_FLUSH_MS = 5_000;
/** A key's limits are read again from its history after this long. */
const LIMITS_TTL_MS = 3_600_000;
/** How long this core refuses a key it froze without asking the store: past the longest gateway key cache. */
const LOCAL_FREEZE_MS = 60_000;
/** Keys followed at once; the least recently used beyond this are forgotten (their next reserve starts afresh). */
const MAX_KEYS = 20_000;
/** Recipients remembered per key per day; beyond this every other recipient counts as new. */
const MAX_RECIPIENTS_A_DAY = 5_000;
const MINUTE_MS = 60_000;

export interface VelocityBrake {
  /** Throws KEY_FROZEN for a key this core froze within the last minute; nothing else is read. */
  refuseIfFrozen(publicKey: string | undefined): void;
  /** Counts one reserve of a live key, in memory; a window past the key's limits freezes it (in the background). */
  noteReserve(publicKey: string, chargedKobo: Kobo, recipient: string, at: Date): void;
  /** The key was unfrozen: this core's freeze and its counts of the key are forgotten. */
  unfrozen(publicKey: string): void;
  /** Writes what is counted and not written yet; resolves when it is stored (or failed and was kept). */
  flush(): Promise<void>;
  /** Stops the background writes and writes what is left. */
  stop(): Promise<void>;
}

export interface VelocityBrakeDeps {
  store: Pick<KeyUseStore, 'recordVelocity' | 'velocityDays'>;
  settings: VelocitySettings;
  clock: () => Date;
  log: Logger;
  /** Freezes the key in the store (with its event, audit row and mail); the brake only asks. */
  freeze(publicKey: string, reason: string, at: Date): Promise<void>;
  intervalMs?: number;
}

interface KeyState {
  /** Bucket i holds minute `minutes[i]` (epoch minutes), its kobo and its new recipients. */
  minutes: number[];
  kobo: number[];
  fresh: number[];
  day: number;
  /** Hashes of the recipients of `day`. */
  seen: Set<number>;
  limits: VelocityLimits | undefined;
  limitsAtMs: number;
  loading: boolean;
}

/** FNV-1a: a recipient kept in 32 bits (a phone number or meter number is short). */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** A key seen for the first time (or again after it was forgotten). */
function newState(windowMin: number, day: number): KeyState {
  return {
    minutes: new Array<number>(windowMin).fill(-1),
    kobo: new Array<number>(windowMin).fill(0),
    fresh: new Array<number>(windowMin).fill(0),
    day,
    seen: new Set(),
    limits: undefined,
    limitsAtMs: 0,
    loading: false,
  };
}

/** The key's last `windowMin` minutes up to `minute`: what it reserved and its recipients new today. */
function windowOf(state: KeyState, minute: number, windowMin: number) {
  let spentKobo = 0;
  let newRecipients = 0;
  for (let i = 0; i < windowMin; i++) {
    if (state.minutes[i]! > minute - windowMin) {
      spentKobo += state.kobo[i]!;
      newRecipients += state.fresh[i]!;
    }
  }
  return { spentKobo, newRecipients };
}

/** This core's counts per key and day, written in one batch every `intervalMs`, best effort. */
function createDayWriter(store: Pick<KeyUseStore, 'recordVelocity'>, log: Logger, intervalMs: number) {
  /** What is counted and not written: "<public key> <day>" to the delta. */
  let pending = new Map<string, VelocityDayDelta>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let stopped = false;

  const count = (publicKey: string, day: number, chargedKobo: number, windowFresh: number) => {
    const id = `${publicKey} ${day}`;
    const delta = pending.get(id);
    if (delta === undefined) {
      pending.set(id, { publicKey, day, addKobo: chargedKobo as Kobo, peakNewRecipients: windowFresh });
    } else {
      delta.addKobo = (delta.addKobo + chargedKobo) as Kobo;
      delta.peakNewRecipients = Math.max(delta.peakNewRecipients, windowFresh);
    }
    schedule();
  };

  const writeBatch = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await store.recordVelocity([...batch.values()]);
    } catch (error) {
      // Kept for the next write, added to what came meanwhile.
      for (const [id, delta] of batch) {
        const later = pending.get(id);
        if (later === undefined) pending.set(id, delta);
        else {
          later.addKobo = (later.addKobo + delta.addKobo) as Kobo;
          later.peakNewRecipients = Math.max(later.peakNewRecipients, delta.peakNewRecipients);
        }
      }
      log('velocity.write_failed', { keys: batch.size, error: error instanceof Error ? error.message : String(error) });
    }
  };

  const flush = (): Promise<void> => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    writing = writing.then(writeBatch).finally(schedule);
    return writing;
  };

  function schedule() {
    if (timer !== undefined || stopped || pending.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, intervalMs);
    timer.unref();
  }

  return {
    count,
    flush,
    async stop() {
      stopped = true;
      await flush();
    },
  };
}

export function createVelocityBrake(deps: VelocityBrakeDeps): VelocityBrake {
  const { settings, log, clock } = deps;
  const windowMin = settings.windowMin;
  const intervalMs = deps.intervalMs ?? VELOCITY_FLUSH_MS;
  const keys = new Map<string, KeyState>();
  /** Keys this core froze: public key to the epoch ms its own refusal ends. */
  const frozenHere = new Map<string, number>();

  const stateOf = (publicKey: string, day: number): KeyState => {
    let state = keys.get(publicKey);
    if (state === undefined) {
      state = newState(windowMin, day);
      if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
    } else {
      // Most recently used last, so the first key is the one to forget.
      keys.delete(publicKey);
    }
    keys.set(publicKey, state);
    if (state.day !== day) {
      state.day = day;
      state.seen = new Set();
    }
    return state;
  };

  const judge = (publicKey: string, state: KeyState, atMs: number) => {
    if (state.limits === undefined || frozenHere.has(publicKey)) return;
    const reason = velocityTrip(windowOf(state, Math.floor(atMs / MINUTE_MS), windowMin), state.limits, windowMin);
    if (reason === null) return;
    frozenHere.set(publicKey, atMs + LOCAL_FREEZE_MS);
    log('velocity.frozen', { public_key: publicKey, reason });
    deps.freeze(publicKey, reason, new Date(atMs)).catch((error: unknown) => {
      // Not frozen in the store: the next reserve tries again.
      frozenHere.delete(publicKey);
      log('velocity.freeze_failed', { public_key: publicKey, error: error instanceof Error ? error.message : error });
    });
  };

  const loadLimits = (publicKey: string, state: KeyState, atMs: number) => {
    if (state.loading || (state.limits !== undefined && atMs - state.limitsAtMs < LIMITS_TTL_MS)) return;
    state.loading = true;
    const today = state.day;
    deps.store
      .velocityDays(publicKey, today - HISTORY_DAYS, today)
      .then((history) => {
        state.limits = velocityLimits(history, settings);
        state.limitsAtMs = atMs;
        // A burst that came while the history was read is judged now.
        judge(publicKey, state, clock().getTime());
      })
      .catch((error: unknown) =>
        log('velocity.history_failed', {
          public_key: publicKey,
          error: error instanceof Error ? error.message : error,
        }),
      )
      .finally(() => {
        state.loading = false;
      });
  };

  const days = createDayWriter(deps.store, log, intervalMs);

  return {
    refuseIfFrozen(publicKey) {
      if (publicKey === undefined || frozenHere.size === 0) return;
      const until = frozenHere.get(publicKey);
      if (until === undefined) return;
      const now = clock().getTime();
      if (until > now) throw keyFrozen(new Date(until - LOCAL_FREEZE_MS));
      frozenHere.delete(publicKey);
    },

    noteReserve(publicKey, chargedKobo, recipient, at) {
      if (!settings.enabled) return;
      const atMs = at.getTime();
      const state = stateOf(publicKey, lagosDay(at));
      const minute = Math.floor(atMs / MINUTE_MS);
      const slot = minute % windowMin;
      if (state.minutes[slot] !== minute) {
        state.minutes[slot] = minute;
        state.kobo[slot] = 0;
        state.fresh[slot] = 0;
      }
      state.kobo[slot]! += chargedKobo;
      const hash = hashOf(recipient);
      if (!state.seen.has(hash)) {
        state.fresh[slot]! += 1;
        if (state.seen.size < MAX_RECIPIENTS_A_DAY) state.seen.add(hash);
      }
      days.count(publicKey, state.day, chargedKobo, windowOf(state, minute, windowMin).newRecipients);
      loadLimits(publicKey, state, atMs);
      judge(publicKey, state, atMs);
    },

    unfrozen(publicKey) {
      frozenHere.delete(publicKey);
      keys.delete(publicKey);
    },

    flush: days.flush,
    stop: days.stop,
  };
}
