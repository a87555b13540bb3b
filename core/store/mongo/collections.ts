/** The MongoDB adapter's collection names, in one place for the schema steps and the sub-ports. */

/** Collection names. */
export const COLLECTIONS = {
  accounts: 'accounts',
  apiKeys: 'api_keys',
  tiers: 'tiers',
  plans: 'plans',
  cablePackages: 'cable_packages',
  settings: 'settings',
  counters: 'counters',
  ledger: 'ledger_entries',
  transactions: 'transactions',
  meta: 'meta',
} as const;

/** The last use of each key pair (key-use.ts), one document per used key keyed by public key; created by step 7. */
export const KEY_USE_COLLECTION = 'api_key_use';

/** Collection names of the people sub-port (users.ts), created by step 5. */
export const PEOPLE_COLLECTIONS = { users: 'users', invitations: 'invitations', sessions: 'sessions' } as const;

/** A person's memberships of accounts (users.ts), one document per person and account; created by step 15. */
export const MEMBERSHIPS_COLLECTION = 'memberships';

/** Money in (core/store/mongo/funding.ts): virtual accounts and inflows, created by step 12. */
export const FUNDING_COLLECTIONS = { virtualAccounts: 'virtual_accounts', inflows: 'inflows' } as const;

/**
 * Openings a funding provider answers later (funding.ts), one document per (provider, customer); created by step 20.
 */
export const FUNDING_OPENINGS_COLLECTION = 'funding_openings';

/** Requests for API access (upgrades.ts), one document per account; created by step 13. */
export const UPGRADE_REQUESTS_COLLECTION = 'upgrade_requests';

/** The audit log (audit-log.ts), append-only; created by step 14. */
export const AUDIT_LOG_COLLECTION = 'audit_log';

/** The platform's staff and the four-eyes proposals (staff.ts); created by step 15. */
export const STAFF_COLLECTIONS = {
  members: 'staff_members',
  sessions: 'staff_sessions',
  proposals: 'proposals',
} as const;
/** Password reset links and notices mailed once (mail.ts); created by step 15. */
export const MAIL_COLLECTIONS = { passwordResets: 'password_resets', noticesSent: 'notices_sent' } as const;
/** Supply (supply.ts): upstream attempts, routes and upstream settings; created by step 15. */
export const SUPPLY_COLLECTIONS = {
  attempts: 'upstream_attempts',
  routes: 'routes',
  upstreamSettings: 'upstream_settings',
} as const;
/** Each purchase's upstream answers (supply.ts); created by its own step. */
export const UPSTREAM_ANSWERS_COLLECTION = 'upstream_answers';
/** Each declared upstream's code for our data plans (plan-codes.ts); created by the plan codes step. */
export const PLAN_CODES_COLLECTION = 'plan_codes';
/** What each capped key pair's purchases charged per Africa/Lagos day (spend.ts); created by its own step. */
export const KEY_DAY_SPEND_COLLECTION = 'key_day_spend';
/** What the velocity brake counted of each key per Africa/Lagos day (key-use.ts); created by its own step. */
export const KEY_VELOCITY_COLLECTION = 'key_velocity_days';
/** Recipient controls (recipients.ts): blocklists, each recipient's Lagos day, the duplicate guard's last purchases. */
export const RECIPIENT_COLLECTIONS = {
  blocks: 'recipient_blocks',
  days: 'recipient_days',
  last: 'recipient_last',
} as const;
/** The books (books.ts): one document per entry of the double-entry journal, its postings inside; created by step 28. */
export const JOURNAL_COLLECTION = 'journal';
/** The daily reconciliation's findings (findings.ts): one document per day, upstream, reference and class; step 30. */
export const RECONCILE_FINDINGS_COLLECTION = 'reconcile_findings';
/** What the daily reconciliation stands on (findings.ts): the last day run per upstream, the float readings; step 31. */
export const RECONCILE_COLLECTIONS = { days: 'reconcile_days', floatReadings: 'float_readings' } as const;
/** Accounts their owners signed up for (sign-ups.ts): one document per account, _id its account id; step 32. */
export const SIGN_UPS_COLLECTION = 'sign_ups';
/** Compatible tokens and plan aliases (compat.ts); created by step 33. */
export const COMPAT_COLLECTIONS = { tokens: 'compat_tokens', aliases: 'plan_aliases' } as const;
/** Each account's compat callback per dialect (compat.ts), _id "<account> <dialect>"; created by step 34. */
export const COMPAT_CALLBACKS_COLLECTION = 'compat_callbacks';
/** Identity levels (levels.ts): each level's limits, the credits held over them, the holders' requests; step 35. */
export const KYC_COLLECTIONS = { levels: 'kyc_levels', holds: 'kyc_holds', requests: 'kyc_requests' } as const;
/** The holder mails each person turned off (mail.ts), one document a person; created by step 36. */
export const MAIL_OPT_OUTS_COLLECTION = 'mail_opt_outs';
