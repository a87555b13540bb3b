/** Password reset links, the notices already mailed and the mails each person turned off, on SQLite. */
import type Database from 'better-sqlite3';
import type { EventRecord } from '../../domain/events.js';
import type { HolderMailKind } from '../../domain/holder-mail.js';
import type { PasswordResetRecord } from '../../domain/records.js';
import { requireLimit } from '../bounds.js';
import type { NoticeStore, PasswordResetStore } from '../port.js';
import { type EventRow, eventFromRow } from './events.js';
import { fromMs, toMs } from './rows.js';

interface ResetRow {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

function resetFromRow(row: ResetRow): PasswordResetRecord {
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    createdAt: fromMs(row.created_at),
    expiresAt: fromMs(row.expires_at),
    usedAt: row.used_at === null ? null : fromMs(row.used_at),
  };
}

/** Ended links are kept a day (a support question about one can still be answered), then removed. */
const KEEP_ENDED_MS = 86_400_000;

export function createPasswordResetStore(db: Database.Database): PasswordResetStore {
  const insert = db.prepare<ResetRow>(
    `INSERT INTO password_resets (token_hash, user_id, created_at, expires_at, used_at)
     VALUES (@token_hash, @user_id, @created_at, @expires_at, @used_at)`,
  );
  const prune = db.prepare<[number]>('DELETE FROM password_resets WHERE expires_at < ?');
  const find = db.prepare<[string], ResetRow>('SELECT * FROM password_resets WHERE token_hash = ?');
  const use = db.prepare<{ token_hash: string; at: number }, ResetRow>(
    `UPDATE password_resets SET used_at = @at
     WHERE token_hash = @token_hash AND used_at IS NULL AND expires_at > @at RETURNING *`,
  );
  const useOthers = db.prepare<{ user_id: string; at: number }>(
    'UPDATE password_resets SET used_at = @at WHERE user_id = @user_id AND used_at IS NULL',
  );
  const claim = db.transaction((tokenHash: string, at: number): ResetRow | undefined => {
    const row = use.get({ token_hash: tokenHash, at });
    if (row) useOthers.run({ user_id: row.user_id, at });
    return row;
  });
  return {
    async insert(reset) {
      prune.run(toMs(reset.createdAt) - KEEP_ENDED_MS);
      insert.run({
        token_hash: reset.tokenHash,
        user_id: reset.userId,
        created_at: toMs(reset.createdAt),
        expires_at: toMs(reset.expiresAt),
        used_at: reset.usedAt === null ? null : toMs(reset.usedAt),
      });
    },
    async find(tokenHash) {
      const row = find.get(tokenHash);
      return row ? resetFromRow(row) : null;
    },
    async claim(tokenHash, at) {
      const row = claim(tokenHash, toMs(at));
      // RETURNING gives the row as written; the caller wants it as it was.
      return row ? { ...resetFromRow(row), usedAt: null } : null;
    },
  };
}

export function createNoticeStore(db: Database.Database): NoticeStore {
  // The literal type and mode match the index events_low_balance.
  const lowBalance = db.prepare<{ since: number; limit: number }, EventRow>(
    `SELECT * FROM events WHERE type = 'wallet.low_balance' AND mode = 'live' AND created_at >= @since
     ORDER BY created_at, seq LIMIT @limit`,
  );
  const walletMoney = db.prepare<{ since: number; limit: number }, EventRow>(
    `SELECT * FROM events WHERE type IN ('wallet.credited', 'wallet.debited') AND mode = 'live'
     AND created_at >= @since ORDER BY created_at, seq LIMIT @limit`,
  );
  const optOutsOf = db.prepare<[string], { kind: HolderMailKind }>('SELECT kind FROM mail_opt_outs WHERE user_id = ?');
  const clearOptOuts = db.prepare<[string]>('DELETE FROM mail_opt_outs WHERE user_id = ?');
  const addOptOut = db.prepare<{ user_id: string; kind: string; at: number }>(
    'INSERT INTO mail_opt_outs (user_id, kind, at) VALUES (@user_id, @kind, @at)',
  );
  const setOptOuts = db.transaction((userId: string, off: readonly HolderMailKind[], at: number) => {
    clearOptOuts.run(userId);
    for (const kind of new Set(off)) addOptOut.run({ user_id: userId, kind, at });
  });
  const claim = db.prepare<{ notice_key: string; at: number }>(
    'INSERT INTO notices_sent (notice_key, sent_at) VALUES (@notice_key, @at) ON CONFLICT (notice_key) DO NOTHING',
  );
  return {
    async lowBalanceSince(since, limit): Promise<EventRecord[]> {
      requireLimit(limit);
      return lowBalance.all({ since: toMs(since), limit }).map(eventFromRow);
    },
    async walletMoneySince(since, limit): Promise<EventRecord[]> {
      requireLimit(limit);
      return walletMoney.all({ since: toMs(since), limit }).map(eventFromRow);
    },
    async mailOptOuts(userIds) {
      const found = new Map<string, HolderMailKind[]>();
      for (const userId of new Set(userIds)) {
        const kinds = optOutsOf.all(userId).map((row) => row.kind);
        if (kinds.length > 0) found.set(userId, kinds);
      }
      return found;
    },
    async setMailOptOuts(userId, off, at) {
      setOptOuts(userId, off, toMs(at));
    },
    async claimOnce(key, at) {
      return claim.run({ notice_key: key, at: toMs(at) }).changes === 1;
    },
  };
}
