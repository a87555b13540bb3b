/**
 * Identity levels on SQLite (docs/kyc.md): each level's limits, the credits held over them,
 * the holders' requests, and the checks the money operations make inside their transaction:
 * a live funding credit split into what the wallet may take and what is held (wallet.ts),
 * a live purchase refused over its Lagos day's spend limit (the reserve), and a level change
 * that releases what the new level allows, in the change's own transaction.
 */
import type Database from 'better-sqlite3';
import { heldReleasedPostings, heldReturnedPostings } from '../../domain/books.js';
import { creditEvent } from '../../domain/events.js';
import {
  type AccountLevel,
  creditRoom,
  type HoldRecord,
  type Level,
  type LevelLimits,
  type LevelRequestRecord,
  type SpendRefusal,
  spendRefusal,
} from '../../domain/levels.js';
import { kobo } from '../../domain/money.js';
import { lagosDay, lagosDayStart } from '../../domain/people.js';
import type { AuditEntryRecord, NewTransaction } from '../../domain/records.js';
import { REFUNDED_STATUSES } from '../../domain/transactions.js';
import type { KycStore, LevelChanged } from '../port.js';
import type { auditAppender } from './audit-log.js';
import type { BookStatements } from './books.js';
import { book } from './books.js';
import type { EventStatements } from './events.js';
import { recordEvent } from './events.js';
import type { GroupCommit } from './group-commit.js';
import { fromMs, toMs } from './rows.js';

interface LimitsRow {
  level: number;
  max_balance_kobo: number | null;
  max_inflow_kobo: number | null;
  max_daily_spend_kobo: number | null;
}

interface StandingRow extends LimitsRow {
  balance_kobo: number;
  kyc_inflow_kobo: number;
}

interface HoldRow {
  inflow_id: string;
  account_id: string;
  provider: string;
  amount_kobo: number;
  status: string;
  created_at: number;
  updated_at: number;
}

interface RequestRow {
  request_id: string;
  account_id: string;
  level: number;
  kind: string;
  number_last4: string;
  number_hash: string;
  document_reference: string;
  requested_by: string;
  status: string;
  created_at: number;
  decided_at: number | null;
  decided_by: string | null;
  note: string;
}

const limitsFromRow = (row: LimitsRow): LevelLimits => ({
  level: row.level as Level,
  maxBalanceKobo: row.max_balance_kobo === null ? null : kobo(row.max_balance_kobo),
  maxInflowKobo: row.max_inflow_kobo === null ? null : kobo(row.max_inflow_kobo),
  maxDailySpendKobo: row.max_daily_spend_kobo === null ? null : kobo(row.max_daily_spend_kobo),
});

const holdFromRow = (row: HoldRow): HoldRecord => ({
  inflowId: row.inflow_id,
  accountId: row.account_id,
  provider: row.provider,
  amountKobo: kobo(row.amount_kobo),
  status: row.status as HoldRecord['status'],
  createdAt: fromMs(row.created_at),
  updatedAt: fromMs(row.updated_at),
});

const requestFromRow = (row: RequestRow): LevelRequestRecord => ({
  requestId: row.request_id,
  accountId: row.account_id,
  level: row.level as Level,
  kind: row.kind as LevelRequestRecord['kind'],
  numberLast4: row.number_last4,
  numberHash: row.number_hash,
  documentReference: row.document_reference,
  requestedBy: row.requested_by,
  status: row.status as LevelRequestRecord['status'],
  createdAt: fromMs(row.created_at),
  decidedAt: row.decided_at === null ? null : fromMs(row.decided_at),
  decidedBy: row.decided_by,
  note: row.note,
});

const REFUNDED = REFUNDED_STATUSES.map((s) => `'${s}'`).join(', ');

export function prepareLevelStatements(db: Database.Database) {
  return {
    standing: db.prepare<[string], StandingRow>(
      `SELECT a.balance_kobo, a.kyc_inflow_kobo, l.* FROM accounts a JOIN kyc_levels l ON l.level = a.kyc_level
       WHERE a.account_id = ?`,
    ),
    countInflow: db.prepare<{ account_id: string; amount_kobo: number }>(
      'UPDATE accounts SET kyc_inflow_kobo = kyc_inflow_kobo + @amount_kobo WHERE account_id = @account_id',
    ),
    // transactions_history (account_id, mode, created_at DESC, reference DESC) holds the day's range.
    daySpent: db.prepare<{ account_id: string; from: number; to: number }, { spent: number }>(
      `SELECT coalesce(sum(charged_kobo), 0) AS spent FROM transactions
       WHERE account_id = @account_id AND mode = 'live' AND created_at >= @from AND created_at < @to
         AND status NOT IN (${REFUNDED})`,
    ),
    insertHold: db.prepare<HoldRow>(
      `INSERT INTO kyc_holds (inflow_id, account_id, provider, amount_kobo, status, created_at, updated_at)
       VALUES (@inflow_id, @account_id, @provider, @amount_kobo, @status, @created_at, @updated_at)`,
    ),
    heldOf: db.prepare<[string], HoldRow>(
      `SELECT * FROM kyc_holds WHERE account_id = ? AND status = 'held' ORDER BY created_at, inflow_id`,
    ),
    holdsOf: db.prepare<{ account_id: string; limit: number }, HoldRow>(
      'SELECT * FROM kyc_holds WHERE account_id = @account_id ORDER BY created_at DESC, inflow_id LIMIT @limit',
    ),
    allHeld: db.prepare<[number], HoldRow>(
      `SELECT * FROM kyc_holds WHERE status = 'held' ORDER BY created_at, inflow_id LIMIT ?`,
    ),
    returnHold: db.prepare<{ inflow_id: string; at: number }, HoldRow>(
      `UPDATE kyc_holds SET status = 'returned', updated_at = @at WHERE inflow_id = @inflow_id AND status = 'held'
       RETURNING *`,
    ),
    release: db.prepare<{ inflow_id: string; at: number }>(
      `UPDATE kyc_holds SET status = 'released', updated_at = @at WHERE inflow_id = @inflow_id AND status = 'held'`,
    ),
    addBalance: db.prepare<{ account_id: string; amount_kobo: number }, { balance_kobo: number }>(
      `UPDATE accounts SET balance_kobo = balance_kobo + @amount_kobo, kyc_inflow_kobo = kyc_inflow_kobo + @amount_kobo
       WHERE account_id = @account_id RETURNING balance_kobo`,
    ),
    insertLedger: db.prepare<{
      account_id: string;
      amount_kobo: number;
      balance_after_kobo: number;
      reference: string;
      memo: string;
      created_at: number;
    }>(
      `INSERT INTO ledger_entries (account_id, mode, amount_kobo, balance_after_kobo, kind, reference, memo, created_at)
       VALUES (@account_id, 'live', @amount_kobo, @balance_after_kobo, 'credit', @reference, @memo, @created_at)`,
    ),
    levels: db.prepare<[], LimitsRow>('SELECT * FROM kyc_levels ORDER BY level'),
    level: db.prepare<[number], LimitsRow>('SELECT * FROM kyc_levels WHERE level = ?'),
    setLimits: db.prepare<LimitsRow & { updated_at: number }, LimitsRow>(
      `UPDATE kyc_levels SET max_balance_kobo = @max_balance_kobo, max_inflow_kobo = @max_inflow_kobo,
         max_daily_spend_kobo = @max_daily_spend_kobo, updated_at = @updated_at WHERE level = @level RETURNING *`,
    ),
    accountLevel: db.prepare<[string], { account_id: string; kyc_level: number; kyc_inflow_kobo: number }>(
      'SELECT account_id, kyc_level, kyc_inflow_kobo FROM accounts WHERE account_id = ?',
    ),
    setLevel: db.prepare<{ account_id: string; level: number }>(
      'UPDATE accounts SET kyc_level = @level WHERE account_id = @account_id',
    ),
    insertRequest: db.prepare<RequestRow>(
      `INSERT INTO kyc_requests (request_id, account_id, level, kind, number_last4, number_hash, document_reference,
         requested_by, status, created_at, decided_at, decided_by, note)
       VALUES (@request_id, @account_id, @level, @kind, @number_last4, @number_hash, @document_reference,
         @requested_by, @status, @created_at, @decided_at, @decided_by, @note)
       ON CONFLICT DO NOTHING`,
    ),
    openRequest: db.prepare<[string], RequestRow>(
      `SELECT * FROM kyc_requests WHERE account_id = ? AND status = 'pending'`,
    ),
    requestsOf: db.prepare<{ account_id: string; limit: number }, RequestRow>(
      `SELECT * FROM kyc_requests WHERE account_id = @account_id ORDER BY created_at DESC, request_id LIMIT @limit`,
    ),
    pending: db.prepare<[number], RequestRow>(
      `SELECT * FROM kyc_requests WHERE status = 'pending' ORDER BY created_at, request_id LIMIT ?`,
    ),
    decide: db.prepare<{ account_id: string; status: string; at: number; by: string; note: string }, RequestRow>(
      `UPDATE kyc_requests SET status = @status, decided_at = @at, decided_by = @by, note = @note
       WHERE account_id = @account_id AND status = 'pending' RETURNING *`,
    ),
  };
}

export type LevelStatements = ReturnType<typeof prepareLevelStatements>;

/** A live funding credit split by the wallet's level: what the wallet takes now and what is held. */
export function splitCredit(
  sql: LevelStatements,
  accountId: string,
  amountKobo: number,
): { creditKobo: number; heldKobo: number } | null {
  const row = sql.standing.get(accountId);
  if (row === undefined) return null;
  const creditKobo = creditRoom(limitsFromRow(row), row.balance_kobo, row.kyc_inflow_kobo, amountKobo);
  return { creditKobo, heldKobo: amountKobo - creditKobo };
}

/** Counts what reached the live wallet from a funding provider, and keeps what was held. */
export function keepSplit(
  sql: LevelStatements,
  hold: { inflowId: string; accountId: string; provider: string; at: Date },
  split: { creditKobo: number; heldKobo: number },
): void {
  if (split.creditKobo > 0) sql.countInflow.run({ account_id: hold.accountId, amount_kobo: split.creditKobo });
  if (split.heldKobo > 0) {
    const at = toMs(hold.at);
    sql.insertHold.run({
      inflow_id: hold.inflowId,
      account_id: hold.accountId,
      provider: hold.provider,
      amount_kobo: split.heldKobo,
      status: 'held',
      created_at: at,
      updated_at: at,
    });
  }
}

/** Whether a live purchase passes its account's daily spend limit (read in the reserve's transaction). */
export function levelSpendCheck(sql: LevelStatements, tx: NewTransaction): SpendRefusal | null {
  if (tx.mode !== 'live') return null;
  const row = sql.standing.get(tx.accountId);
  if (row === undefined || row.max_daily_spend_kobo === null) return null;
  const day = lagosDay(tx.createdAt);
  const from = toMs(lagosDayStart(day));
  const to = toMs(lagosDayStart(day + 1));
  const spent = sql.daySpent.get({ account_id: tx.accountId, from, to })?.spent ?? 0;
  return spendRefusal(kobo(row.max_daily_spend_kobo), spent, tx.chargedKobo);
}

interface ChangeParts {
  sql: LevelStatements;
  books: BookStatements;
  events: EventStatements;
  appendAudit: ReturnType<typeof auditAppender>;
}

/**
 * An account's level set, its open request decided, and every held credit the new level's
 * limits allow released to the wallet (whole, oldest first: one that does not fit stays held),
 * each booked held:over_limit -> wallet, with its ledger entry and event, and the audit row:
 * all in the caller's one transaction.
 */
export function changeLevel(
  parts: ChangeParts,
  change: {
    accountId: string;
    level: Level;
    at: Date;
    audit: Pick<AuditEntryRecord, 'actor' | 'address' | 'note'>;
  },
): LevelChanged {
  const { sql } = parts;
  const before = sql.accountLevel.get(change.accountId);
  if (before === undefined) return { outcome: 'no_account' };
  sql.setLevel.run({ account_id: change.accountId, level: change.level });
  const at = toMs(change.at);
  const request = sql.decide.get({
    account_id: change.accountId,
    status: 'approved',
    at,
    by: change.audit.actor,
    note: change.audit.note,
  });
  const released: HoldRecord[] = [];
  for (const hold of sql.heldOf.all(change.accountId)) {
    const split = splitCredit(sql, change.accountId, hold.amount_kobo);
    if (split === null || split.heldKobo > 0) continue;
    sql.release.run({ inflow_id: hold.inflow_id, at });
    released.push(releaseHold(parts, hold, change.at));
  }
  const after = sql.accountLevel.get(change.accountId)!;
  parts.appendAudit({
    at: change.at,
    actor: change.audit.actor,
    action: 'kyc.level',
    target: change.accountId,
    before: JSON.stringify({ level: before.kyc_level }),
    after: JSON.stringify({
      level: change.level,
      request: request?.request_id ?? null,
      released_kobo: released.reduce((sum, h) => sum + h.amountKobo, 0),
    }),
    address: change.audit.address,
    note: change.audit.note,
  });
  return {
    outcome: 'changed',
    before: before.kyc_level as Level,
    level: { accountId: after.account_id, level: after.kyc_level as Level, inflowKobo: kobo(after.kyc_inflow_kobo) },
    request: request === undefined ? null : requestFromRow(request),
    released,
  };
}

/**
 * A held credit returned to its payer (a staff proposal approved), in the caller's transaction:
 * held -> returned, once, and booked held:over_limit -> the provider's clearing.
 */
export function returnHold(parts: Pick<ChangeParts, 'sql' | 'books'>, inflowId: string, at: Date): HoldRecord | null {
  const row = parts.sql.returnHold.get({ inflow_id: inflowId, at: toMs(at) });
  if (row === undefined) return null;
  book(
    parts.books,
    'inflow_returned',
    'live',
    `${inflowId}:returned`,
    at,
    heldReturnedPostings(row.provider, kobo(row.amount_kobo)),
  );
  return holdFromRow(row);
}

function releaseHold(parts: ChangeParts, hold: HoldRow, at: Date): HoldRecord {
  const reference = `${hold.inflow_id}:released`;
  const memo = `Held bank transfer released (${hold.provider})`;
  const balance = parts.sql.addBalance.get({ account_id: hold.account_id, amount_kobo: hold.amount_kobo })!;
  parts.sql.insertLedger.run({
    account_id: hold.account_id,
    amount_kobo: hold.amount_kobo,
    balance_after_kobo: balance.balance_kobo,
    reference,
    memo,
    created_at: toMs(at),
  });
  book(
    parts.books,
    'inflow_credited',
    'live',
    reference,
    at,
    heldReleasedPostings(hold.account_id, kobo(hold.amount_kobo)),
  );
  const facts = {
    accountId: hold.account_id,
    reference,
    amountKobo: kobo(hold.amount_kobo),
    balanceKobo: kobo(balance.balance_kobo),
    memo,
    funding: undefined,
  };
  recordEvent(parts.events, creditEvent(facts, 'live', at));
  return { ...holdFromRow(hold), status: 'released', updatedAt: at };
}

/** The levels' limits, requests and holds: what is not a money move. */
export function createKycStore(
  commit: GroupCommit,
  sql: LevelStatements,
  appendAudit: ReturnType<typeof auditAppender>,
): KycStore {
  return {
    async levels() {
      return sql.levels.all().map(limitsFromRow);
    },
    async setLimits(limits, audit) {
      return commit.run(() => {
        const before = sql.level.get(limits.level);
        if (before === undefined) return null;
        const after = sql.setLimits.get({
          level: limits.level,
          max_balance_kobo: limits.maxBalanceKobo,
          max_inflow_kobo: limits.maxInflowKobo,
          max_daily_spend_kobo: limits.maxDailySpendKobo,
          updated_at: toMs(audit.at),
        })!;
        appendAudit({
          ...audit,
          action: 'kyc.set_level',
          target: `level:${limits.level}`,
          before: JSON.stringify(limitsFromRow(before)),
          after: JSON.stringify(limitsFromRow(after)),
        });
        return limitsFromRow(after);
      });
    },
    async levelOf(accountId) {
      const row = sql.accountLevel.get(accountId);
      return row === undefined ? null : levelFromRow(row);
    },
    async openRequest(request) {
      return commit.run(() => {
        const inserted = sql.insertRequest.run(requestRow(request)).changes === 1;
        const open = sql.openRequest.get(request.accountId);
        if (open === undefined) throw new Error(`store: the level request of ${request.accountId} vanished`);
        return { opened: inserted, request: requestFromRow(open) };
      });
    },
    async requestsOf(accountId, limit) {
      return sql.requestsOf.all({ account_id: accountId, limit }).map(requestFromRow);
    },
    async pendingRequests(limit) {
      return sql.pending.all(limit).map(requestFromRow);
    },
    async refuse(accountId, decision) {
      return commit.run(() => {
        const row = sql.decide.get({
          account_id: accountId,
          status: 'refused',
          at: toMs(decision.at),
          by: decision.actor,
          note: decision.note,
        });
        if (row === undefined) return null;
        appendAudit({
          at: decision.at,
          actor: decision.actor,
          action: 'kyc.refuse',
          target: accountId,
          before: JSON.stringify({ request: row.request_id, status: 'pending' }),
          after: JSON.stringify({ request: row.request_id, status: 'refused' }),
          address: decision.address,
          note: decision.note,
        });
        return requestFromRow(row);
      });
    },
    async holdsOf(accountId, limit) {
      return sql.holdsOf.all({ account_id: accountId, limit }).map(holdFromRow);
    },
    async heldCredits(limit) {
      return sql.allHeld.all(limit).map(holdFromRow);
    },
  };
}

function levelFromRow(row: { account_id: string; kyc_level: number; kyc_inflow_kobo: number }): AccountLevel {
  return { accountId: row.account_id, level: row.kyc_level as Level, inflowKobo: kobo(row.kyc_inflow_kobo) };
}

function requestRow(request: LevelRequestRecord): RequestRow {
  return {
    request_id: request.requestId,
    account_id: request.accountId,
    level: request.level,
    kind: request.kind,
    number_last4: request.numberLast4,
    number_hash: request.numberHash,
    document_reference: request.documentReference,
    requested_by: request.requestedBy,
    status: 'pending',
    created_at: toMs(request.createdAt),
    decided_at: null,
    decided_by: null,
    note: '',
  };
}
