/**
 * Key caps on SQLite, inside a reserve's or a refund's transaction: a capped key's caps are
 * read with its row, its Africa/Lagos day's spend checked (capRefusalOf, the rule both
 * adapters share) and counted, and a refund's charge given back to the day it was counted
 * on. Nothing here runs for a purchase without a capped key.
 */
import type Database from 'better-sqlite3';
import { type CapRefusal, capRefusalOf, hasSpendCaps, type KeyControls } from '../../domain/key-controls.js';
import { kobo } from '../../domain/money.js';
import { lagosDay } from '../../domain/people.js';
import type { NewTransaction } from '../../domain/records.js';

export function prepareSpendStatements(db: Database.Database) {
  return {
    controlsOf: db.prepare<{ public_key: string; account_id: string }, { controls: string | null }>(
      'SELECT controls FROM api_keys WHERE public_key = @public_key AND account_id = @account_id',
    ),
    spent: db.prepare<{ public_key: string; day: number }, { spent_kobo: number }>(
      'SELECT spent_kobo FROM key_day_spend WHERE public_key = @public_key AND day = @day',
    ),
    add: db.prepare<{ public_key: string; day: number; amount_kobo: number }>(
      `INSERT INTO key_day_spend (public_key, day, spent_kobo) VALUES (@public_key, @day, @amount_kobo)
       ON CONFLICT (public_key, day) DO UPDATE SET spent_kobo = spent_kobo + excluded.spent_kobo`,
    ),
    giveBack: db.prepare<{ public_key: string; day: number; amount_kobo: number }>(
      `UPDATE key_day_spend SET spent_kobo = MAX(0, spent_kobo - @amount_kobo)
       WHERE public_key = @public_key AND day = @day`,
    ),
    markSpend: db.prepare<{ reference: string; public_key: string; day: number }>(
      'INSERT INTO key_spends (reference, public_key, day) VALUES (@reference, @public_key, @day)',
    ),
    spendOf: db.prepare<[string], { public_key: string; day: number }>(
      'SELECT public_key, day FROM key_spends WHERE reference = ?',
    ),
  };
}

export type SpendStatements = ReturnType<typeof prepareSpendStatements>;

/**
 * What the key's caps say of this purchase: its refusal, 'count' (within the caps), or
 * 'uncapped'. A key that is not the account's, or lost its caps since the gateway saw them,
 * counts nothing and refuses nothing.
 */
export function capCheck(
  sql: SpendStatements,
  publicKey: string,
  tx: NewTransaction,
): CapRefusal | 'count' | 'uncapped' {
  const row = sql.controlsOf.get({ public_key: publicKey, account_id: tx.accountId });
  if (row === undefined || row.controls === null) return 'uncapped';
  const controls = JSON.parse(row.controls) as KeyControls;
  if (!hasSpendCaps(controls)) return 'uncapped';
  const day = lagosDay(tx.createdAt);
  const spent = () => kobo(sql.spent.get({ public_key: publicKey, day })?.spent_kobo ?? 0);
  return capRefusalOf(controls, tx.chargedKobo, spent) ?? 'count';
}

/** Counts a reserved purchase against its key's day and marks the purchase with the key. */
export function countSpend(sql: SpendStatements, publicKey: string, tx: NewTransaction): void {
  const day = lagosDay(tx.createdAt);
  sql.add.run({ public_key: publicKey, day, amount_kobo: tx.chargedKobo });
  sql.markSpend.run({ reference: tx.reference, public_key: publicKey, day });
}

/** Gives a refunded purchase's charge back to the day of its key it was counted on, if it was. */
export function giveBackSpend(sql: SpendStatements, row: { reference: string; charged_kobo: number }): void {
  const spend = sql.spendOf.get(row.reference);
  if (spend === undefined) return;
  sql.giveBack.run({ public_key: spend.public_key, day: spend.day, amount_kobo: row.charged_kobo });
}
