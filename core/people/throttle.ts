/**
 * Slows failed sign-ins without letting a stranger lock the owner out. Two budgets, both
 * kept in the core's memory:
 *
 * - per (email, address): 5 failures free, then each further attempt must wait 1 s, 2 s,
 *   4 s, ... up to 15 minutes after the last failure. Someone guessing one user's password
 *   from one address is slowed to a crawl, while the owner signing in from their own
 *   address is not touched by it.
 * - per address: 30 failures free (across emails), then the same growing wait: one address
 *   trying many emails is slowed too.
 *
 * There is deliberately no budget per user alone: it would let anyone lock the owner out
 * by failing on purpose from elsewhere. A success clears the (email, address) budget. A
 * budget is forgotten a day after its last failure, and the table is bounded (the oldest
 * entries go first), so a flood of addresses cannot grow it without limit.
 *
 * An IPv6 address counts by its /64 network (core/domain/addresses.ts, the gateway's rule):
 * one subscriber usually holds the whole /64, and would otherwise get a fresh budget per address.
 *
 * Each core counts on its own: with several cores behind a balancer an attacker gets each
 * core's budget, which only multiplies a budget that already grows exponentially.
 */

import { addressBudgetKey } from '../domain/addresses.js';

export const FREE_FAILURES_PER_USER_ADDRESS = 5;
export const FREE_FAILURES_PER_ADDRESS = 30;
export const MAX_DELAY_MS = 15 * 60_000;
const FORGET_AFTER_MS = 24 * 3_600_000;
const MAX_ENTRIES = 100_000;

interface Budget {
  failures: number;
  lastFailureMs: number;
}

function delayMs(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(1000 * 2 ** Math.min(failures - free, 20), MAX_DELAY_MS);
}

export interface SignInThrottle {
  /** Milliseconds to wait before this attempt may be checked; 0 means go ahead. */
  waitMs(email: string, address: string, now: Date): number;
  failed(email: string, address: string, now: Date): void;
  succeeded(email: string, address: string): void;
}

/**
 * `freePerPerson`, for the staff's console only: a third budget per email alone. Staff are few,
 * their power is the platform's, and an admin can see who is being guessed at in the log;
 * there a slowed owner is the lesser harm. The developer area has no such budget (see above).
 */
export function createSignInThrottle(options: { freePerPerson?: number } = {}): SignInThrottle {
  const budgets = new Map<string, Budget>();
  const personKey = (email: string) => `p\u0000${email}`;
  const pairKey = (email: string, address: string) => `u\u0000${email}\u0000${addressBudgetKey(address)}`;
  const addressKey = (address: string) => `a\u0000${addressBudgetKey(address)}`;

  function read(key: string, nowMs: number): Budget | undefined {
    const budget = budgets.get(key);
    if (budget && nowMs - budget.lastFailureMs > FORGET_AFTER_MS) {
      budgets.delete(key);
      return undefined;
    }
    return budget;
  }

  function bump(key: string, nowMs: number): void {
    const budget = read(key, nowMs) ?? { failures: 0, lastFailureMs: nowMs };
    budget.failures += 1;
    budget.lastFailureMs = nowMs;
    // Re-inserted so that the Map's order is the order of last failure: the oldest go first.
    budgets.delete(key);
    budgets.set(key, budget);
    while (budgets.size > MAX_ENTRIES) budgets.delete(budgets.keys().next().value as string);
  }

  function wait(key: string, free: number, nowMs: number): number {
    const budget = read(key, nowMs);
    if (!budget) return 0;
    return Math.max(0, budget.lastFailureMs + delayMs(budget.failures, free) - nowMs);
  }

  return {
    waitMs(email, address, now) {
      const nowMs = now.getTime();
      return Math.max(
        wait(pairKey(email, address), FREE_FAILURES_PER_USER_ADDRESS, nowMs),
        wait(addressKey(address), FREE_FAILURES_PER_ADDRESS, nowMs),
        options.freePerPerson === undefined ? 0 : wait(personKey(email), options.freePerPerson, nowMs),
      );
    },
    failed(email, address, now) {
      bump(pairKey(email, address), now.getTime());
      bump(addressKey(address), now.getTime());
      if (options.freePerPerson !== undefined) bump(personKey(email), now.getTime());
    },
    succeeded(email, address) {
      budgets.delete(pairKey(email, address));
      budgets.delete(personKey(email));
    },
  };
}

/**
 * Step-up codes (the TOTP code asked again to create a key, turn two-step sign-in off or
 * invite an owner) are checked for someone already signed in, so a stolen session could try
 * the million codes one after another. Five wrong codes a minute, counted both per person and
 * per session, are all it gets: the sixth within the minute is refused without being checked,
 * and the person is told to wait. A right code does not clear the count, so a thief who knows
 * one code cannot keep guessing between right ones.
 */
export const STEP_UP_FAILURES_PER_MINUTE = 5;
const STEP_UP_WINDOW_MS = 60_000;

export interface StepUpThrottle {
  /** Milliseconds before a code may be checked for this person in this session; 0 means go ahead. */
  waitMs(userId: string, sessionKey: string, now: Date): number;
  failed(userId: string, sessionKey: string, now: Date): void;
}

export function createStepUpThrottle(): StepUpThrottle {
  // The times of the last failures per key, oldest first; at most STEP_UP_FAILURES_PER_MINUTE each.
  const failures = new Map<string, number[]>();
  const keys = (userId: string, sessionKey: string) => [`u\u0000${userId}`, `s\u0000${sessionKey}`];

  function recent(key: string, nowMs: number): number[] {
    const times = (failures.get(key) ?? []).filter((at) => nowMs - at < STEP_UP_WINDOW_MS);
    if (times.length === 0) failures.delete(key);
    else failures.set(key, times);
    return times;
  }

  return {
    waitMs(userId, sessionKey, now) {
      const nowMs = now.getTime();
      let wait = 0;
      for (const key of keys(userId, sessionKey)) {
        const times = recent(key, nowMs);
        if (times.length >= STEP_UP_FAILURES_PER_MINUTE) wait = Math.max(wait, times[0]! + STEP_UP_WINDOW_MS - nowMs);
      }
      return wait;
    },
    failed(userId, sessionKey, now) {
      const nowMs = now.getTime();
      for (const key of keys(userId, sessionKey)) {
        const times = [...recent(key, nowMs), nowMs].slice(-STEP_UP_FAILURES_PER_MINUTE);
        // Re-inserted so that the Map's order is the order of last failure: the oldest go first.
        failures.delete(key);
        failures.set(key, times);
      }
      while (failures.size > MAX_ENTRIES) failures.delete(failures.keys().next().value as string);
    },
  };
}
