/**
 * Live and test: two worlds inside one account (docs/test-mode.md). A test key pair acts on
 * the account's test wallet, sees only test purchases, has its own idempotency scope and is
 * always served by the sandbox; a live key pair does the same in the live world. The same
 * rules and code paths run in both; only the wallet and the provider differ.
 */

export const MODES = ['live', 'test'] as const;

/** One of MODES. */
export type Mode = (typeof MODES)[number];

export function isMode(value: unknown): value is Mode {
  return value === 'live' || value === 'test';
}
