/**
 * Sign-ups on SQLite (schema step 38): the person, the account and its owner membership made
 * in one transaction with the sign-up's row, and the account's email_verified_at and
 * phone_verified_at set in the transaction that uses the link or the code. Nothing here moves
 * money; like the people's other writes these are plain transactions.
 */
import type Database from 'better-sqlite3';
import { SIGN_UP_LEVEL } from '../../domain/levels.js';
import { LAGOS_OFFSET_MS } from '../../domain/people.js';
import type { SignUpRecord } from '../../domain/records.js';
import type { SignUpDayRow, SignUpStore } from '../port.js';
import { type AccountRow, accountFromRow, fromMs, toMs } from './rows.js';

interface SignUpRow {
  account_id: string;
  user_id: string;
  phone: string;
  address_key: string;
  email_domain: string;
  created_at: number;
  email_token_hash: string | null;
  email_token_expires_at: number | null;
  phone_code_hash: string | null;
  phone_code_expires_at: number | null;
  phone_code_tries: number;
  phone_code_sent_at: number | null;
  phone_code_day: number | null;
  phone_codes_today: number;
}

const orNull = (ms: number | null): Date | null => (ms === null ? null : fromMs(ms));
const msOrNull = (at: Date | null): number | null => (at === null ? null : toMs(at));

function signUpFromRow(row: SignUpRow): SignUpRecord {
  return {
    accountId: row.account_id,
    userId: row.user_id,
    phone: row.phone,
    addressKey: row.address_key,
    emailDomain: row.email_domain,
    createdAt: fromMs(row.created_at),
    emailTokenHash: row.email_token_hash,
    emailTokenExpiresAt: orNull(row.email_token_expires_at),
    phoneCodeHash: row.phone_code_hash,
    phoneCodeExpiresAt: orNull(row.phone_code_expires_at),
    phoneCodeTries: row.phone_code_tries,
    phoneCodeSentAt: orNull(row.phone_code_sent_at),
    phoneCodesToday: row.phone_codes_today,
  };
}

const DAY_MS = 86_400_000;

function prepare(db: Database.Database) {
  return {
    userByEmail: db.prepare<[string], { user_id: string }>('SELECT user_id FROM users WHERE email = ?'),
    insertAccount: db.prepare<{ account_id: string; name: string; tier_id: string; created_at: number }>(
      `INSERT INTO accounts (account_id, name, tier_id, balance_kobo, test_balance_kobo, created_at,
         email_verified_at, phone_verified_at, kyc_level)
       VALUES (@account_id, @name, @tier_id, 0, 0, @created_at, NULL, NULL, ${SIGN_UP_LEVEL})`,
    ),
    insertUser: db.prepare<{ user_id: string; account_id: string; email: string; password_hash: string; at: number }>(
      `INSERT INTO users (user_id, account_id, email, role, password_hash, disabled, totp_secret, totp_pending_secret,
         totp_last_step, recovery_code_hashes, created_at)
       VALUES (@user_id, @account_id, @email, 'owner', @password_hash, 0, NULL, NULL, 0, '[]', @at)`,
    ),
    insertMembership: db.prepare<{ user_id: string; account_id: string; at: number }>(
      `INSERT INTO memberships (user_id, account_id, role, disabled, created_at)
       VALUES (@user_id, @account_id, 'owner', 0, @at)`,
    ),
    insertSignUp: db.prepare<SignUpRow>(
      `INSERT INTO sign_ups (account_id, user_id, phone, address_key, email_domain, created_at, email_token_hash,
         email_token_expires_at, phone_code_hash, phone_code_expires_at, phone_code_tries, phone_code_sent_at,
         phone_code_day, phone_codes_today)
       VALUES (@account_id, @user_id, @phone, @address_key, @email_domain, @created_at, @email_token_hash,
         @email_token_expires_at, @phone_code_hash, @phone_code_expires_at, @phone_code_tries, @phone_code_sent_at,
         @phone_code_day, @phone_codes_today)`,
    ),
    get: db.prepare<[string], SignUpRow>('SELECT * FROM sign_ups WHERE account_id = ?'),
    unverifiedFrom: db
      .prepare<{ address_key: string; since: number }, number>(
        `SELECT count(*) FROM sign_ups s JOIN accounts a ON a.account_id = s.account_id
         WHERE s.address_key = @address_key AND s.created_at >= @since
           AND (a.email_verified_at IS NULL OR a.phone_verified_at IS NULL)`,
      )
      .pluck(),
    setEmailLink: db.prepare<{ account_id: string; hash: string; expires_at: number }>(
      'UPDATE sign_ups SET email_token_hash = @hash, email_token_expires_at = @expires_at WHERE account_id = @account_id',
    ),
    useEmailLink: db.prepare<{ hash: string; at: number }, { account_id: string }>(
      `UPDATE sign_ups SET email_token_hash = NULL, email_token_expires_at = NULL
       WHERE email_token_hash = @hash AND email_token_expires_at > @at RETURNING account_id`,
    ),
    proveEmail: db.prepare<{ account_id: string; at: number }, AccountRow>(
      `UPDATE accounts SET email_verified_at = coalesce(email_verified_at, @at)
       WHERE account_id = @account_id RETURNING *`,
    ),
    setPhoneCode: db.prepare<{ account_id: string; hash: string; expires_at: number; sent_at: number; day: number }>(
      `UPDATE sign_ups SET phone_code_hash = @hash, phone_code_expires_at = @expires_at, phone_code_tries = 0,
         phone_code_sent_at = @sent_at,
         phone_codes_today = CASE WHEN phone_code_day = @day THEN phone_codes_today + 1 ELSE 1 END,
         phone_code_day = @day
       WHERE account_id = @account_id`,
    ),
    missPhoneCode: db
      .prepare<[string], number>(
        'UPDATE sign_ups SET phone_code_tries = phone_code_tries + 1 WHERE account_id = ? RETURNING phone_code_tries',
      )
      .pluck(),
    usePhoneCode: db.prepare<{ account_id: string; hash: string; max_tries: number; at: number }, { n: number }>(
      `UPDATE sign_ups SET phone_code_hash = NULL, phone_code_expires_at = NULL
       WHERE account_id = @account_id AND phone_code_hash = @hash AND phone_code_tries < @max_tries
         AND phone_code_expires_at > @at RETURNING 1 AS n`,
    ),
    provePhone: db.prepare<{ account_id: string; at: number }, AccountRow>(
      `UPDATE accounts SET phone_verified_at = coalesce(phone_verified_at, @at)
       WHERE account_id = @account_id RETURNING *`,
    ),
    // Counted by the Lagos day each account signed up on: how far that day's sign-ups have come. The
    // offset and the day are written in, integers: a bound number is a REAL, whose division is not whole.
    funnel: db.prepare<{ from: number; until: number }, SignUpDayRow>(
      `SELECT (s.created_at + ${LAGOS_OFFSET_MS}) / ${DAY_MS} AS day,
              count(*) AS signedUp,
              count(a.email_verified_at) AS emailVerified,
              count(a.phone_verified_at) AS phoneVerified,
              sum(EXISTS (SELECT 1 FROM ledger_entries l WHERE l.account_id = s.account_id AND l.mode = 'live'
                          AND l.kind = 'credit')) AS funded,
              sum(EXISTS (SELECT 1 FROM transactions t WHERE t.account_id = s.account_id AND t.mode = 'live'
                          AND t.status = 'success')) AS purchased,
              sum(a.kyc_level >= 2) AS level2,
              sum(coalesce(t.api_access, 0)) AS apiTier
       FROM sign_ups s JOIN accounts a ON a.account_id = s.account_id LEFT JOIN tiers t ON t.tier_id = a.tier_id
       WHERE s.created_at >= @from AND s.created_at < @until
       GROUP BY 1 ORDER BY 1`,
    ),
  };
}

export function createSignUpStore(db: Database.Database): SignUpStore {
  const sql = prepare(db);
  const create = db.transaction((signUp: Parameters<SignUpStore['create']>[0]) => {
    const { user, account, signUp: row } = signUp;
    if (sql.userByEmail.get(user.email)) return 'email_taken' as const;
    const at = toMs(account.createdAt);
    sql.insertAccount.run({
      account_id: account.accountId,
      name: account.name,
      tier_id: account.tierId,
      created_at: at,
    });
    sql.insertUser.run({
      user_id: user.userId,
      account_id: account.accountId,
      email: user.email,
      password_hash: user.passwordHash,
      at: toMs(user.createdAt),
    });
    sql.insertMembership.run({ user_id: user.userId, account_id: account.accountId, at });
    sql.insertSignUp.run({
      account_id: row.accountId,
      user_id: row.userId,
      phone: row.phone,
      address_key: row.addressKey,
      email_domain: row.emailDomain,
      created_at: toMs(row.createdAt),
      email_token_hash: row.emailTokenHash,
      email_token_expires_at: msOrNull(row.emailTokenExpiresAt),
      phone_code_hash: row.phoneCodeHash,
      phone_code_expires_at: msOrNull(row.phoneCodeExpiresAt),
      phone_code_tries: row.phoneCodeTries,
      phone_code_sent_at: msOrNull(row.phoneCodeSentAt),
      phone_code_day: null,
      phone_codes_today: row.phoneCodesToday,
    });
    return 'created' as const;
  });
  const claimEmail = db.transaction((hash: string, at: number) => {
    const used = sql.useEmailLink.get({ hash, at });
    return used ? (sql.proveEmail.get({ account_id: used.account_id, at }) ?? null) : null;
  });
  const claimPhone = db.transaction((accountId: string, hash: string, maxTries: number, at: number) => {
    if (!sql.usePhoneCode.get({ account_id: accountId, hash, max_tries: maxTries, at })) return null;
    return sql.provePhone.get({ account_id: accountId, at }) ?? null;
  });
  return {
    async create(signUp) {
      // IMMEDIATE: the email check and the inserts see one state, whatever another process does.
      return create.immediate(signUp);
    },
    async get(accountId) {
      const row = sql.get.get(accountId);
      return row ? signUpFromRow(row) : null;
    },
    async unverifiedFrom(addressKey, since) {
      return sql.unverifiedFrom.get({ address_key: addressKey, since: toMs(since) }) ?? 0;
    },
    async setEmailLink(accountId, tokenHash, expiresAt) {
      return sql.setEmailLink.run({ account_id: accountId, hash: tokenHash, expires_at: toMs(expiresAt) }).changes > 0;
    },
    async claimEmailLink(tokenHash, at) {
      const row = claimEmail.immediate(tokenHash, toMs(at));
      return row ? accountFromRow(row) : null;
    },
    async setPhoneCode(accountId, code) {
      const change = {
        account_id: accountId,
        hash: code.hash,
        expires_at: toMs(code.expiresAt),
        sent_at: toMs(code.sentAt),
        day: code.day,
      };
      return sql.setPhoneCode.run(change).changes > 0;
    },
    async phoneCodeMissed(accountId) {
      return sql.missPhoneCode.get(accountId) ?? 0;
    },
    async claimPhoneCode(accountId, codeHash, maxTries, at) {
      const row = claimPhone.immediate(accountId, codeHash, maxTries, toMs(at));
      return row ? accountFromRow(row) : null;
    },
    async funnel(fromDay, toDay) {
      const rows = sql.funnel.all({
        from: fromDay * DAY_MS - LAGOS_OFFSET_MS,
        until: (toDay + 1) * DAY_MS - LAGOS_OFFSET_MS,
      });
      return rows.map((row) => ({ ...row, day: Number(row.day) }));
    },
  };
}
