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
 * Each core counts on its own: with several cores behind a balancer an attacker gets each
 * core's budget, which only multiplies a budget that already grows exponentially.
 */

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

export function createSignInThrottle(): SignInThrottle {
  const budgets = new Map<string, Budget>();
  const pairKey = (email: string, address: string) => `u\u0000${email}\u0000${address}`;
  const addressKey = (address: string) => `a\u0000${address}`;

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
      return Math.max(wait(pairKey(email, address), FREE_FAILURES_PER_USER_ADDRESS, nowMs), wait(addressKey(address), FREE_FAILURES_PER_ADDRESS, nowMs));
    },
    failed(email, address, now) {
      bump(pairKey(email, address), now.getTime());
      bump(addressKey(address), now.getTime());
    },
    succeeded(email, address) {
      budgets.delete(pairKey(email, address));
    },
  };
}
