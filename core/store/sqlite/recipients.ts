/**
 * Recipient controls on SQLite: the blocklists and each account's limits (RecipientStore),
 * and their checks inside a reserve's or a refund's transaction. Nothing here runs for a
 * purchase of an account without controls.
 */
import type Database from 'better-sqlite3';
import { kobo } from '../../domain/money.js';
import { lagosDay } from '../../domain/people.js';
import { type RecipientRefusal, recipientLimitRefusal } from '../../domain/recipient-controls.js';
import type { NewTransaction, ReserveChecks } from '../../domain/records.js';
import { requireLimit } from '../bounds.js';
import type { RecipientStore } from '../port.js';
import type { GroupCommit } from './group-commit.js';
import { type AccountRow, accountFromRow, fromMs, toMs } from './rows.js';

/** An account's controls before it has any: nothing checked. */
const NO_CONTROLS = JSON.stringify({ blocklist: false, perDayCount: 0, perDayKobo: 0, duplicateGuard: false });

export function prepareRecipientStatements(db: Database.Database) {
  return {
    blocked: db.prepare<{ account_id: string; value: string }, { one: number }>(
      'SELECT 1 AS one FROM recipient_blocks WHERE account_id = @account_id AND value = @value',
    ),
    day: db.prepare<{ account_id: string; mode: string; recipient: string; day: number }, RecipientDayRow>(
      `SELECT count, spent_kobo FROM recipient_days
       WHERE account_id = @account_id AND mode = @mode AND recipient = @recipient AND day = @day`,
    ),
    count: db.prepare<{ account_id: string; mode: string; recipient: string; day: number; amount_kobo: number }>(
      `INSERT INTO recipient_days (account_id, mode, recipient, day, count, spent_kobo)
       VALUES (@account_id, @mode, @recipient, @day, 1, @amount_kobo)
       ON CONFLICT (account_id, mode, recipient, day)
       DO UPDATE SET count = count + 1, spent_kobo = spent_kobo + excluded.spent_kobo`,
    ),
    uncount: db.prepare<{ account_id: string; mode: string; recipient: string; day: number; amount_kobo: number }>(
      `UPDATE recipient_days SET count = MAX(0, count - 1), spent_kobo = MAX(0, spent_kobo - @amount_kobo)
       WHERE account_id = @account_id AND mode = @mode AND recipient = @recipient AND day = @day`,
    ),
    last: db.prepare<LastKey, { reference: string; at: number }>(
      `SELECT reference, at FROM recipient_last WHERE account_id = @account_id AND mode = @mode
       AND product = @product AND recipient = @recipient AND face_value_kobo = @face_value_kobo`,
    ),
    setLast: db.prepare<LastKey & { reference: string; at: number }>(
      `INSERT INTO recipient_last (account_id, mode, product, recipient, face_value_kobo, reference, at)
       VALUES (@account_id, @mode, @product, @recipient, @face_value_kobo, @reference, @at)
       ON CONFLICT (account_id, mode, product, recipient, face_value_kobo)
       DO UPDATE SET reference = excluded.reference, at = excluded.at`,
    ),
    forgetLast: db.prepare<LastKey & { reference: string }>(
      `DELETE FROM recipient_last WHERE account_id = @account_id AND mode = @mode AND product = @product
       AND recipient = @recipient AND face_value_kobo = @face_value_kobo AND reference = @reference`,
    ),
    markSpend: db.prepare<{ reference: string; day: number; counted: number }>(
      'INSERT INTO recipient_spends (reference, day, counted) VALUES (@reference, @day, @counted)',
    ),
    spendOf: db.prepare<[string], { day: number; counted: number }>(
      'SELECT day, counted FROM recipient_spends WHERE reference = ?',
    ),
  };
}

export type RecipientStatements = ReturnType<typeof prepareRecipientStatements>;

interface RecipientDayRow {
  count: number;
  spent_kobo: number;
}

interface LastKey {
  account_id: string;
  mode: string;
  product: string;
  recipient: string;
  face_value_kobo: number;
}

const lastKeyOf = (tx: NewTransaction): LastKey => ({
  account_id: tx.accountId,
  mode: tx.mode,
  product: tx.product,
  recipient: tx.recipient,
  face_value_kobo: tx.faceValueKobo,
});

/** Why the account's recipient controls refuse this purchase, if they do (nothing is written). */
export function recipientCheck(
  sql: RecipientStatements,
  tx: NewTransaction,
  checks: NonNullable<ReserveChecks['recipient']>,
): RecipientRefusal | null {
  const { controls, duplicateWindowMs } = checks;
  if (controls.blocklist && sql.blocked.get({ account_id: tx.accountId, value: tx.recipient }) !== undefined) {
    return { kind: 'blocked' };
  }
  if (controls.duplicateGuard && tx.requestId === null && duplicateWindowMs > 0) {
    const last = sql.last.get(lastKeyOf(tx));
    if (last !== undefined && toMs(tx.createdAt) - last.at < duplicateWindowMs) {
      return { kind: 'duplicate', reference: last.reference };
    }
  }
  if (controls.perDayCount > 0 || controls.perDayKobo > 0) {
    const row = sql.day.get({
      account_id: tx.accountId,
      mode: tx.mode,
      recipient: tx.recipient,
      day: lagosDay(tx.createdAt),
    });
    const day = { count: row?.count ?? 0, kobo: kobo(row?.spent_kobo ?? 0) };
    return recipientLimitRefusal(controls, day, tx.chargedKobo);
  }
  return null;
}

/** Counts a reserved purchase against its recipient's day and marks it for the duplicate guard. */
export function countRecipient(
  sql: RecipientStatements,
  tx: NewTransaction,
  checks: NonNullable<ReserveChecks['recipient']>,
): void {
  const { controls } = checks;
  const guarded = controls.duplicateGuard;
  const limited = controls.perDayCount > 0 || controls.perDayKobo > 0;
  if (!guarded && !limited) return;
  const day = lagosDay(tx.createdAt);
  if (guarded) sql.setLast.run({ ...lastKeyOf(tx), reference: tx.reference, at: toMs(tx.createdAt) });
  if (limited) {
    sql.count.run({
      account_id: tx.accountId,
      mode: tx.mode,
      recipient: tx.recipient,
      day,
      amount_kobo: tx.chargedKobo,
    });
  }
  sql.markSpend.run({ reference: tx.reference, day, counted: limited ? 1 : 0 });
}

/**
 * Gives a refunded purchase back to its recipient's day, and lets the same purchase be sent
 * again at once (what failed is not a duplicate of anything delivered).
 */
export function giveBackRecipient(
  sql: RecipientStatements,
  row: {
    reference: string;
    account_id: string;
    mode: string;
    product: string;
    recipient: string;
    face_value_kobo: number;
    charged_kobo: number;
  },
): void {
  // One look-up by reference; a purchase of an account without controls has no row.
  const spend = sql.spendOf.get(row.reference);
  if (spend === undefined) return;
  sql.forgetLast.run({
    account_id: row.account_id,
    mode: row.mode,
    product: row.product,
    recipient: row.recipient,
    face_value_kobo: row.face_value_kobo,
    reference: row.reference,
  });
  if (spend.counted === 0) return;
  sql.uncount.run({
    account_id: row.account_id,
    mode: row.mode,
    recipient: row.recipient,
    day: spend.day,
    amount_kobo: row.charged_kobo,
  });
}

interface BlockRow {
  account_id: string;
  value: string;
  reason: string;
  blocked_by: string;
  created_at: number;
}

export function createRecipientStore(db: Database.Database, commit: GroupCommit): RecipientStore {
  const sql = {
    block: db.prepare<BlockRow>(
      `INSERT INTO recipient_blocks (account_id, value, reason, blocked_by, created_at)
       VALUES (@account_id, @value, @reason, @blocked_by, @created_at)
       ON CONFLICT (account_id, value) DO UPDATE SET reason = excluded.reason, blocked_by = excluded.blocked_by`,
    ),
    markBlocklist: db.prepare<[string]>(
      `UPDATE accounts SET recipient_controls = json_set(COALESCE(recipient_controls, '${NO_CONTROLS}'),
         '$.blocklist', json('true')) WHERE account_id = ?`,
    ),
    unblock: db.prepare<{ account_id: string; value: string }>(
      'DELETE FROM recipient_blocks WHERE account_id = @account_id AND value = @value',
    ),
    list: db.prepare<{ account_id: string; limit: number }, BlockRow>(
      `SELECT * FROM recipient_blocks WHERE account_id = @account_id
       ORDER BY created_at DESC, value LIMIT @limit`,
    ),
    platform: db.prepare<[number], string>("SELECT value FROM recipient_blocks WHERE account_id = '' LIMIT ?").pluck(),
    setLimits: db.prepare<{ account_id: string; limits: string }, AccountRow>(
      `UPDATE accounts SET recipient_controls = json_set(@limits, '$.blocklist',
         CASE WHEN json_extract(recipient_controls, '$.blocklist') THEN json('true') ELSE json('false') END)
       WHERE account_id = @account_id RETURNING *`,
    ),
  };
  return {
    async block(block) {
      await commit.run(() => {
        sql.block.run({
          account_id: block.accountId,
          value: block.value,
          reason: block.reason,
          blocked_by: block.by,
          created_at: toMs(block.at),
        });
        if (block.accountId !== '') sql.markBlocklist.run(block.accountId);
      });
    },
    async unblock(accountId, value) {
      return commit.run(() => sql.unblock.run({ account_id: accountId, value }).changes > 0);
    },
    async listBlocks(accountId, limit) {
      requireLimit(limit);
      return sql.list.all({ account_id: accountId, limit }).map((row) => ({
        accountId: row.account_id,
        value: row.value,
        reason: row.reason,
        by: row.blocked_by,
        at: fromMs(row.created_at),
      }));
    },
    async platformValues(limit) {
      return sql.platform.all(limit);
    },
    async setLimits(accountId, limits) {
      const row = await commit.run(() => sql.setLimits.get({ account_id: accountId, limits: JSON.stringify(limits) }));
      return row === undefined ? null : accountFromRow(row);
    },
  };
}
