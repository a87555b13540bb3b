/**
 * Accounts, tiers membership, key pairs and wallet credits (the admin side), and the
 * key-pair check the gateway relies on (the auth side).
 */

import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { DEFAULT_TIER_ID } from '../catalog/defaults.js';
import {
  DomainError,
  type FieldViolation,
  invalid,
  notFound,
  refuseIfSuspended,
  throwIfViolations,
} from '../domain/errors.js';
import {
  checkCap,
  hasSpendCaps,
  isUncontrolled,
  type KeyControls,
  NO_KEY_CONTROLS,
  parseScopes,
} from '../domain/key-controls.js';
import type { Mode } from '../domain/mode.js';
import { formatNaira, isKobo, type Kobo, kobo, MAX_AMOUNT_KOBO } from '../domain/money.js';
import { LEDGER_PAGES, type Page, pageSize, readPage } from '../domain/paging.js';
import { lagosDay } from '../domain/people.js';
import type { AccountRecord, ApiKeyRecord, LedgerEntryRecord, ListedApiKey } from '../domain/records.js';
import { newReference } from '../domain/reference.js';
import { hasControlCharacters } from '../domain/validation.js';
import { checkFreezeReason, keyFrozen, MAX_FREEZE_REASON_CHARS } from '../domain/velocity.js';
import type { LedgerStore } from '../store/moves.js';
import type { Credited, CreditInput, Debited, DebitInput, Store } from '../store/port.js';
import type { KeyUseRecorder } from './key-use.js';
import {
  DUMMY_SECRET_HASH,
  generateKeyPair,
  hashSecret,
  MAX_KEY_LENGTH,
  normalizeIp,
  PUBLIC_KEY_PREFIX,
  SECRET_KEY_PREFIX,
  sameHash,
} from './keys.js';
import type { VelocityBrake } from './velocity.js';

/** A rolled key's grace period when none is asked for: a day, to deploy the new secret. */
const DEFAULT_GRACE_HOURS = 24;
/** The longest grace period of a rolled key: a week, time enough to deploy a new secret anywhere. */
const MAX_GRACE_HOURS = 168;
/** A key locked to more addresses than this is not really locked. */
const MAX_ALLOWED_IPS = 20;
const MAX_ACCOUNT_NAME_LENGTH = 100;
const MAX_MEMO_LENGTH = 200;
/** Long enough for any bank's transfer id, short enough to read in a ledger listing. */
const MAX_CREDIT_REFERENCE_LENGTH = 64;
/** A credit reference: printable ASCII without spaces, so that it can be typed and quoted as it is. */
const CREDIT_REFERENCE = new RegExp(`^[\\x21-\\x7E]{1,${MAX_CREDIT_REFERENCE_LENGTH}}$`);

export interface IssuedKeyPair {
  publicKey: string;
  secretKey: string;
  mode: Mode;
}

export interface VerifiedKey {
  accountId: string;
  tierId: string;
  /** The pair's mode: every call the gateway makes for this request acts in it. */
  mode: Mode;
  /** What the pair may call (the gateway refuses the rest) and whether it has a cap on spending. */
  scopes: readonly string[];
  spendCapped: boolean;
}

/** Limits as an operator or owner asks for them: scopes by name, caps in kobo (0: none). */
interface KeyLimitsInput {
  scopes: readonly string[] | string;
  capPerPurchaseKobo: number;
  capPerDayKobo: number;
}

/** A listed key: its last use and, for a key with a day's cap, what it spent today. */
interface KeyWithUse extends ListedApiKey {
  spentTodayKobo: Kobo;
}

/** The tier named, or a field error that lists the tiers there are. */
async function requireTier(catalog: Store['catalog'], tierId: string) {
  const tier = tierId ? await catalog.getTier(tierId) : null;
  if (!tier) {
    const known = (await catalog.listTiers()).map((t) => t.tierId).join(', ');
    throw invalid('tier_id', `tier_id ${JSON.stringify(tierId)} is not a tier; one of ${known}.`);
  }
  return tier;
}

interface AccountServiceDeps {
  store: Pick<Store, 'accounts' | 'keys' | 'catalog' | 'ledger' | 'wallet' | 'keyUse'>;
  clock: () => Date;
  /** Told of every key pair that passes the check (in memory; see key-use.ts). */
  keyUses?: Pick<KeyUseRecorder, 'note'>;
  /** The velocity brake, told of an unfreeze so that this core forgets its own freeze and counts. */
  velocity?: Pick<VelocityBrake, 'unfrozen'>;
  /** Mails the owners that a key was frozen (core/mail/notices.ts); none: nobody is mailed. */
  notices?: { keyFrozen(key: { accountId: string; mode: string; publicKey: string; reason: string; at: Date }): void };
}

/** Who freezes or unfreezes a key, as its record and the audit row name them. */
interface KeyFreezer {
  /** `velocity`, `cli`, `staff:<email>`, `owner:<email>`. */
  by: string;
  /** The audit's actor: `system` for the brake, else as `by`. */
  actor: string;
  address: string | null;
}

async function requireAccount(store: Pick<Store, 'accounts'>, accountId: string): Promise<AccountRecord> {
  const account = accountId ? await store.accounts.get(accountId) : null;
  if (!account) throw notFound(`Account ${accountId || '(empty id)'}`);
  return account;
}

async function issueKey(
  deps: AccountServiceDeps,
  accountId: string,
  mode: Mode,
  controls?: KeyControls,
): Promise<IssuedKeyPair> {
  const pair = generateKeyPair(mode);
  const key: ApiKeyRecord = {
    publicKey: pair.publicKey,
    accountId,
    secretHash: pair.secretHash,
    allowedIps: [],
    revoked: false,
    mode,
    createdAt: deps.clock(),
  };
  if (controls !== undefined && !isUncontrolled(controls)) key.controls = controls;
  await deps.store.keys.insert(key);
  return { publicKey: pair.publicKey, secretKey: pair.secretKey, mode };
}

/** Limits as asked for, checked: known scopes, caps of 0 or a positive amount. */
function keyControlsOf(limits: KeyLimitsInput): KeyControls {
  const violations: FieldViolation[] = [];
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (error instanceof DomainError && error.code === 'INVALID_PARAMETER') violations.push(...error.violations);
      else throw error;
      return undefined;
    }
  };
  const scopes = attempt(() => parseScopes(limits.scopes));
  const capPerPurchaseKobo = attempt(() => checkCap('cap_per_purchase', limits.capPerPurchaseKobo));
  const capPerDayKobo = attempt(() => checkCap('cap_per_day', limits.capPerDayKobo));
  throwIfViolations(violations);
  return { scopes: scopes!, capPerPurchaseKobo: capPerPurchaseKobo!, capPerDayKobo: capPerDayKobo! };
}

async function requireKey(store: Pick<Store, 'keys'>, publicKey: string): Promise<ApiKeyRecord> {
  const key = publicKey && publicKey.length <= MAX_KEY_LENGTH ? await store.keys.find(publicKey) : null;
  if (!key) throw notFound(`Key ${publicKey || '(empty key)'}`);
  return key;
}

/** The accounts themselves: opened, read, moved to another tier. */
function accountMethods(deps: AccountServiceDeps) {
  const { store, clock } = deps;
  return {
    /** On a tier with API access its first live key pair is issued, unless `issueFirstKey` is false (the console's: staff never see a secret; the owner makes the key in the developer area). */
    async createAccount(
      name: string,
      tierId: string,
      options: { issueFirstKey?: boolean } = {},
    ): Promise<{ account: AccountRecord; issuedKey: IssuedKeyPair | null }> {
      const trimmed = name.trim();
      if (trimmed === '' || trimmed.length > MAX_ACCOUNT_NAME_LENGTH || hasControlCharacters(trimmed)) {
        throw invalid('name', `name must be 1 to ${MAX_ACCOUNT_NAME_LENGTH} printable characters.`);
      }
      const tier = await requireTier(store.catalog, tierId || DEFAULT_TIER_ID);
      const account = await store.accounts.create({
        accountId: `acc_${randomBytes(8).toString('hex')}`,
        name: trimmed,
        tierId: tier.tierId,
        createdAt: clock(),
      });
      const issuedKey =
        tier.apiAccess && options.issueFirstKey !== false ? await issueKey(deps, account.accountId, 'live') : null;
      return { account, issuedKey };
    },

    getAccount: (accountId: string) => requireAccount(store, accountId),

    /**
     * Moving to a tier with API access issues the first live key pair if the account has none
     * yet, unless `issueFirstKey` is false (an approved request for API access: the key is then
     * issued to the account's owner, core/people/upgrades.ts, never to the operator).
     */
    async setTier(
      accountId: string,
      tierId: string,
      options: { issueFirstKey?: boolean } = {},
    ): Promise<{ account: AccountRecord; issuedKey: IssuedKeyPair | null }> {
      await requireAccount(store, accountId);
      const tier = await requireTier(store.catalog, tierId);
      const account = await store.accounts.setTier(accountId, tier.tierId);
      if (!account) throw notFound(`Account ${accountId}`);
      const hasKey = (await store.keys.listByAccount(accountId)).some((k) => !k.revoked && k.mode === 'live');
      const issuedKey =
        tier.apiAccess && !hasKey && options.issueFirstKey !== false ? await issueKey(deps, accountId, 'live') : null;
      return { account, issuedKey };
    },
  };
}

/** The account's key pairs: issued, listed, revoked, locked to addresses, and checked as presented. */
function keyMethods(deps: AccountServiceDeps) {
  const { store, clock } = deps;
  return {
    /** A new key pair for `mode`: test pairs act on the test wallet and only ever reach the sandbox. */
    async createKey(accountId: string, mode: Mode, limits?: KeyLimitsInput): Promise<IssuedKeyPair> {
      const controls = limits === undefined ? undefined : keyControlsOf(limits);
      const account = await requireAccount(store, accountId);
      const tier = await requireTier(store.catalog, account.tierId);
      if (!tier.apiAccess) {
        throw new DomainError(
          'FAILED_PRECONDITION',
          `Account ${accountId} is on tier ${tier.tierId}, which has no API access; move it to an API tier first.`,
        );
      }
      return issueKey(deps, accountId, mode, controls);
    },

    /**
     * The account's keys, newest first, each with its last use as the store has it (written
     * every few seconds) and, for a key with a day's cap, what it spent today.
     */
    async listKeys(accountId: string): Promise<KeyWithUse[]> {
      await requireAccount(store, accountId);
      const keys = await store.keys.listByAccount(accountId);
      if (keys.length === 0) return [];
      const uses = await store.keyUse.lastUses(keys.map((key) => key.publicKey));
      const capped = keys.filter((key) => (key.controls?.capPerDayKobo ?? 0) > 0).map((key) => key.publicKey);
      const spent = capped.length === 0 ? new Map<string, Kobo>() : await store.keys.spentOn(capped, lagosDay(clock()));
      return keys.map((key) => ({
        ...key,
        lastUsedAt: uses.get(key.publicKey) ?? null,
        spentTodayKobo: spent.get(key.publicKey) ?? kobo(0),
      }));
    },

    /** Changes what the key may do (docs/security.md): each limit given replaces the key's, the rest stay. */
    async setKeyLimits(publicKey: string, change: Partial<KeyLimitsInput>): Promise<ApiKeyRecord> {
      const current = (await requireKey(store, publicKey)).controls ?? NO_KEY_CONTROLS;
      const controls = keyControlsOf({ ...current, ...change });
      const key = await store.keys.setControls(publicKey, isUncontrolled(controls) ? null : controls);
      if (!key) throw notFound(`Key ${publicKey}`);
      return key;
    },

    async revokeKey(publicKey: string): Promise<ApiKeyRecord> {
      await requireKey(store, publicKey);
      const key = await store.keys.revoke(publicKey);
      if (!key) throw notFound(`Key ${publicKey}`);
      return key;
    },

    async setKeyIpLock(publicKey: string, ips: readonly string[]): Promise<ApiKeyRecord> {
      await requireKey(store, publicKey);
      throwIfViolations(ipLockViolations(ips));
      const key = await store.keys.setAllowedIps(publicKey, [...new Set(ips.map(normalizeIp))]);
      if (!key) throw notFound(`Key ${publicKey}`);
      return key;
    },

    /**
     * Rolls a key pair: a new pair (its secret shown once) with the old one's IP lock and
     * limits, and the old one working for `graceHours` more (0: ended at once). The old pair's
     * last use stays in the list.
     */
    async rollKey(
      publicKey: string,
      graceHours: number = DEFAULT_GRACE_HOURS,
    ): Promise<{ issued: IssuedKeyPair; old: ApiKeyRecord }> {
      if (!Number.isSafeInteger(graceHours) || graceHours < 0 || graceHours > MAX_GRACE_HOURS) {
        throw invalid('grace_hours', `grace_hours must be a whole number of hours from 0 to ${MAX_GRACE_HOURS}.`);
      }
      const old = await requireKey(store, publicKey);
      const now = clock();
      if (old.revoked || (old.expiresAt !== undefined && old.expiresAt.getTime() <= now.getTime())) {
        throw new DomainError('FAILED_PRECONDITION', `Key ${publicKey} no longer works; create a new pair instead.`);
      }
      // A roll is no way around a freeze: the new pair would not be frozen.
      if (old.frozen !== undefined) {
        throw new DomainError('FAILED_PRECONDITION', `Key ${publicKey} is frozen; unfreeze it before rolling it.`);
      }
      const pair = generateKeyPair(old.mode);
      const next: ApiKeyRecord = {
        publicKey: pair.publicKey,
        accountId: old.accountId,
        secretHash: pair.secretHash,
        allowedIps: [...old.allowedIps],
        revoked: false,
        mode: old.mode,
        createdAt: now,
      };
      if (old.controls !== undefined) next.controls = old.controls;
      const ended = await store.keys.roll(publicKey, next, new Date(now.getTime() + graceHours * 3_600_000));
      if (!ended) throw notFound(`Key ${publicKey}`);
      return { issued: { publicKey: pair.publicKey, secretKey: pair.secretKey, mode: old.mode }, old: ended };
    },

    ...freezeMethods(deps),

    async verifyKeyPair(publicKey: string, secretKey: string, clientIp: string): Promise<VerifiedKey> {
      const verified = await verifyPresentedPair(store, publicKey, secretKey, clientIp, clock());
      deps.keyUses?.note(publicKey, clock());
      return verified;
    },
  };
}

/**
 * A key's freeze (docs/security.md, The velocity brake): by the brake or by hand, and taken off
 * by the owner, the platform's staff or the operator. The store writes the event and the audit
 * row with it; the owners are mailed only when this call froze the key.
 */
function freezeMethods(deps: AccountServiceDeps) {
  const { store, clock } = deps;
  return {
    async freezeKey(publicKey: string, reason: string, who: KeyFreezer): Promise<ApiKeyRecord> {
      const text = checkFreezeReason(reason);
      const at = clock();
      const done = await store.keys.freeze(
        (await requireKey(store, publicKey)).publicKey,
        { at, reason: text, by: who.by },
        { actor: who.actor, address: who.address, note: text },
      );
      if (!done) throw notFound(`Key ${publicKey}`);
      if (done.changed) {
        deps.notices?.keyFrozen({ accountId: done.key.accountId, mode: done.key.mode, publicKey, reason: text, at });
      }
      return done.key;
    },

    async unfreezeKey(publicKey: string, who: KeyFreezer, note = ''): Promise<ApiKeyRecord> {
      const key = await requireKey(store, publicKey);
      const done = await store.keys.unfreeze(
        key.publicKey,
        { at: clock(), by: who.by },
        { actor: who.actor, address: who.address, note: note.trim().slice(0, MAX_FREEZE_REASON_CHARS) },
      );
      if (!done) throw notFound(`Key ${publicKey}`);
      deps.velocity?.unfrozen(publicKey);
      return done.key;
    },
  };
}

/** The wallets: the operator's credits and debits, and the ledger read a page at a time. */
function walletMethods(deps: AccountServiceDeps) {
  const { store, clock } = deps;
  return {
    /**
     * Credits the account's wallet in `mode` (test credits are test money, never spendable
     * live), once per reference (see `creditOnce`). Without a reference the core makes one up,
     * so such a credit cannot be retried safely unless the retry quotes it.
     */
    async credit(
      accountId: string,
      mode: Mode,
      amountKobo: Kobo,
      memo: string,
      options: { reference?: string } = {},
    ): Promise<Credited> {
      const reference = options.reference ?? '';
      throwIfViolations(creditViolations(amountKobo, memo, reference));
      await requireAccount(store, accountId);
      return creditOnce(store.ledger, { accountId, mode, amountKobo, memo, reference, at: clock() });
    },

    /**
     * Takes money out of the account's wallet in `mode` (a `manual_debit` entry and the
     * `wallet.debited` event), with a required reason, once per reference (a retry with the
     * reference of an earlier debit of the same amount writes nothing), and never below zero:
     * a short balance is refused with what it is.
     */
    async debit(
      accountId: string,
      mode: Mode,
      amountKobo: Kobo,
      reason: string,
      options: { reference?: string } = {},
    ): Promise<ManualDebit> {
      await requireAccount(store, accountId);
      return debitOnce(store.ledger, {
        accountId,
        mode,
        amountKobo,
        reason,
        reference: options.reference ?? '',
        at: clock(),
      });
    },

    /** One page of the account's ledger in `mode`, newest first. */
    async ledger(
      accountId: string,
      mode: Mode,
      requestedSize: number | undefined,
      pageToken: string,
    ): Promise<Page<LedgerEntryRecord>> {
      await requireAccount(store, accountId);
      const limit = pageSize(requestedSize, LEDGER_PAGES, 'page_size');
      return readPage('page_token', () =>
        store.wallet.listLedger(accountId, mode, { limit, ...(pageToken ? { after: pageToken } : {}) }),
      );
    },
  };
}

export function createAccountService(deps: AccountServiceDeps) {
  return { ...accountMethods(deps), ...keyMethods(deps), ...walletMethods(deps) };
}

export type AccountService = ReturnType<typeof createAccountService>;

/** Why an IP lock list is refused, if it is: too many addresses, or one that is not IPv4 or IPv6. */
function ipLockViolations(ips: readonly string[]): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (ips.length > MAX_ALLOWED_IPS)
    violations.push({
      field: 'allowed_ips',
      description: `allowed_ips may list at most ${MAX_ALLOWED_IPS} addresses.`,
    });
  ips.forEach((ip, i) => {
    if (isIP(normalizeIp(ip)) === 0)
      violations.push({
        field: `allowed_ips[${i}]`,
        description: `${JSON.stringify(ip.slice(0, 60))} is not an IPv4 or IPv6 address.`,
      });
  });
  return violations;
}

/** A manual debit made (or made before, `replayed`). */
type ManualDebit = Extract<Debited, { outcome: 'debited' }>;

/** One manual debit: as creditOnce, and a balance short of the amount refused with both figures. */
async function debitOnce(ledger: LedgerStore, asked: DebitInput): Promise<ManualDebit> {
  const input = { ...asked, reason: asked.reason.trim() };
  throwIfViolations(debitViolations(input.amountKobo, input.reason, input.reference));
  const reference = input.reference === '' ? `DB${newReference(input.at)}` : input.reference;
  const debited = await ledger.post({ kind: 'debit', debit: { ...input, reference } });
  if (debited.outcome === 'no_account') throw notFound(`Account ${input.accountId}`);
  if (debited.outcome === 'insufficient')
    throw new DomainError(
      'INSUFFICIENT_BALANCE',
      `The ${input.mode} wallet of ${input.accountId} holds ₦${formatNaira(debited.balanceKobo)}, ` +
        `less than the debit of ₦${formatNaira(input.amountKobo)}; ` +
        'nothing was taken (a wallet never goes below zero).',
    );
  if (debited.replayed && (debited.entry.amountKobo !== -input.amountKobo || debited.entry.mode !== input.mode)) {
    throw new DomainError(
      'IDEMPOTENCY_KEY_REUSED',
      `Reference ${reference} already debited ${-debited.entry.amountKobo} kobo ` +
        `from the ${debited.entry.mode} wallet of account ${input.accountId}; ` +
        'a retry must repeat that amount and wallet, and a new debit needs a new reference.',
      { metadata: { reference } },
    );
  }
  return debited;
}

/** Why a manual debit is refused before it reaches the wallet: the amount, a reason, the reference. */
function debitViolations(amountKobo: Kobo, reason: string, reference: string): FieldViolation[] {
  const violations = creditViolations(amountKobo, '', reference);
  if (reason === '' || reason.length > MAX_MEMO_LENGTH || hasControlCharacters(reason))
    violations.push({
      field: 'reason',
      description: `reason is required: 1 to ${MAX_MEMO_LENGTH} printable characters saying why the money is taken.`,
    });
  return violations;
}

/**
 * One credit: a retry with the reference of an earlier credit of the same amount writes
 * nothing and answers that credit (`replayed`), and one with another amount is refused.
 * An empty reference gets a new one.
 */
async function creditOnce(
  ledger: LedgerStore,
  input: Omit<CreditInput, 'reference' | 'funding'> & { reference: string },
): Promise<Credited> {
  const reference = input.reference === '' ? `CR${newReference(input.at)}` : input.reference;
  const credited = await ledger.post({ kind: 'credit', credit: { ...input, reference } });
  if (!credited) throw notFound(`Account ${input.accountId}`);
  if (credited.replayed && (credited.entry.amountKobo !== input.amountKobo || credited.entry.mode !== input.mode)) {
    throw new DomainError(
      'IDEMPOTENCY_KEY_REUSED',
      `Reference ${reference} already credited ${credited.entry.amountKobo} kobo ` +
        `to the ${credited.entry.mode} wallet of account ${input.accountId}; ` +
        'a retry must repeat that amount and wallet, and a new credit needs a new reference.',
      { metadata: { reference } },
    );
  }
  return credited;
}

/** Why an operator's credit is refused, if it is (also a proposed credit's or debit's reference and memo). */
export function creditViolations(amountKobo: Kobo, memo: string, reference: string): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (reference !== '' && !CREDIT_REFERENCE.test(reference)) {
    violations.push({
      field: 'reference',
      description: `reference must be 1 to ${MAX_CREDIT_REFERENCE_LENGTH} printable ASCII characters without spaces.`,
    });
  }
  if (!isKobo(amountKobo) || amountKobo <= 0 || amountKobo > MAX_AMOUNT_KOBO) {
    violations.push({
      field: 'amount',
      description: `amount must be a positive number of kobo up to ${MAX_AMOUNT_KOBO}.`,
    });
  }
  if (memo.length > MAX_MEMO_LENGTH || hasControlCharacters(memo)) {
    violations.push({ field: 'memo', description: `memo must be at most ${MAX_MEMO_LENGTH} printable characters.` });
  }
  return violations;
}

/**
 * Checks a key pair as a partner presented it. Every failure is the same INVALID_API_KEY
 * except a wrong client IP, which says why (the partner needs to know which server to call
 * from). The secret's hash is compared in constant time, and an unknown public key still
 * costs one comparison, so timing does not tell keys apart.
 */
async function verifyPresentedPair(
  store: Pick<Store, 'accounts' | 'keys' | 'catalog'>,
  publicKey: string,
  secretKey: string,
  clientIp: string,
  now: Date,
): Promise<VerifiedKey> {
  const invalidKeys = () => new DomainError('INVALID_API_KEY', 'The API keys are missing or invalid.');
  const shaped =
    publicKey.startsWith(PUBLIC_KEY_PREFIX) &&
    secretKey.startsWith(SECRET_KEY_PREFIX) &&
    publicKey.length <= MAX_KEY_LENGTH &&
    secretKey.length <= MAX_KEY_LENGTH;
  const key = shaped ? await store.keys.find(publicKey) : null;
  const matches = sameHash(hashSecret(secretKey), key?.secretHash ?? DUMMY_SECRET_HASH);
  if (!key || !matches) throw invalidKeys();
  return checkPresentedKey(store, key, clientIp, now);
}

/**
 * What a key pair whose secret (or a compatible token bound to it, core/accounts/compat.ts)
 * was presented may do now: refused when revoked, expired, on a suspended account or one off
 * the API tier, called from outside its IP lock, or frozen.
 */
export async function checkPresentedKey(
  store: Pick<Store, 'accounts' | 'catalog'>,
  key: ApiKeyRecord,
  clientIp: string,
  now: Date,
): Promise<VerifiedKey> {
  const invalidKeys = () => new DomainError('INVALID_API_KEY', 'The API keys are missing or invalid.');
  if (key.revoked) throw invalidKeys();
  // A rolled pair past its grace period is as invalid as a revoked one.
  if (key.expiresAt !== undefined && key.expiresAt.getTime() <= now.getTime()) throw invalidKeys();
  const account = await store.accounts.get(key.accountId);
  const tier = account ? await store.catalog.getTier(account.tierId) : null;
  if (!account || !tier) throw invalidKeys();
  // Only after the secret matched: a suspended account is not told to strangers.
  refuseIfSuspended(account);
  if (!tier.apiAccess) {
    throw new DomainError('INVALID_API_KEY', 'The API keys are invalid: the account is not on the API tier.');
  }
  if (key.allowedIps.length > 0 && !key.allowedIps.includes(normalizeIp(clientIp))) {
    throw new DomainError(
      'IP_NOT_ALLOWED',
      `This API key is locked to other IP addresses; the request came from ${clientIp || 'an unknown address'}.`,
    );
  }
  // After the secret matched and the address passed: a stranger learns nothing of a freeze.
  if (key.frozen !== undefined) throw keyFrozen(key.frozen.at);
  const controls = key.controls ?? NO_KEY_CONTROLS;
  return {
    accountId: account.accountId,
    tierId: tier.tierId,
    mode: key.mode,
    scopes: controls.scopes,
    spendCapped: hasSpendCaps(controls),
  };
}
