/**
 * Compatible tokens and plan aliases (docs/compat.md). A compatible token is a token of another
 * site's API shape (MSORG: 40 hex characters; VTpass: three keys, compat-vtpass.ts) bound to one
 * key pair: it acts as that pair, with its mode, IP lock, scopes and caps, and stops working when
 * the pair does. It is random, shown once and stored only as a SHA-256; a lookup by that hash finds it, and the
 * hash found is compared again in constant time. Plan aliases let an account's clients keep the
 * plan ids their software already sends; an alias names one of our plans and nothing else.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  COMPAT_TOKEN_BYTES,
  checkAliasId,
  checkDialect,
  checkInFlight,
  type Dialect,
  MAX_ALIASES_PER_DIALECT,
  MAX_COMPAT_TOKEN_LENGTH,
} from '../domain/compat.js';
import { DomainError, invalid, notFound } from '../domain/errors.js';
import type { Mode } from '../domain/mode.js';
import type { CompatCallbackRecord, CompatTokenRecord, PlanAliasRecord } from '../domain/records.js';
import type { Store } from '../store/port.js';
import { newVtpassToken, readOnlyScopes, readVtpassPair } from './compat-vtpass.js';
import type { KeyUseRecorder } from './key-use.js';
import { MAX_KEY_LENGTH, sameHash } from './keys.js';
import { checkPresentedKey, type VerifiedKey } from './service.js';

interface CompatDeps {
  store: Pick<Store, 'accounts' | 'keys' | 'catalog' | 'compat'>;
  clock: () => Date;
  keyUses?: Pick<KeyUseRecorder, 'note'>;
  /** Why a callback URL is refused (the webhooks' rules), or undefined when it may be used. */
  checkCallbackUrl?: (url: string) => string | undefined;
}

/** The dialects whose sites post callbacks, so whose clients may ask for ours. */
const CALLBACK_DIALECTS: readonly Dialect[] = ['adex'];

/** A verified compatible token: the pair it acts as, its in-flight word and the account's aliases. */
export interface VerifiedCompatToken extends VerifiedKey {
  publicKey: string;
  inFlight: string;
  planAliases: ReadonlyMap<string, number>;
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const invalidToken = () => new DomainError('INVALID_API_KEY', 'Invalid token.');

/** A new token of the dialect's shape, what the store finds it by (hashed), and its last four characters. */
function newToken(dialect: Dialect): { token: string; lookup: string; lastFour: string } {
  if (dialect === 'vtpass') return newVtpassToken();
  const token = randomBytes(COMPAT_TOKEN_BYTES).toString('hex');
  return { token, lookup: token, lastFour: token.slice(-4) };
}

/** The account's compat callback, set or cleared (core/webhooks/compat-callbacks.ts posts to it). */
function callbackSetter(deps: CompatDeps) {
  const { store, clock } = deps;
  return {
    /**
     * Sets the account's callback in a dialect that has one (Adex), or clears it when `url` is
     * empty; returns the callback now (null: none) and the one before.
     */
    async setCallback(
      accountId: string,
      dialectWord: string,
      url: string,
    ): Promise<{ callback: CompatCallbackRecord | null; previous: CompatCallbackRecord | null }> {
      const dialect = checkDialect('dialect', dialectWord);
      if (!CALLBACK_DIALECTS.includes(dialect)) {
        throw invalid('dialect', `Only ${CALLBACK_DIALECTS.join(', ')} clients are told by callback.`);
      }
      if (!(await store.accounts.get(accountId))) throw notFound(`Account ${accountId || '(empty id)'}`);
      const text = url.trim();
      if (text === '') return { callback: null, previous: await store.compat.clearCallback(accountId, dialect) };
      const problem = deps.checkCallbackUrl?.(text);
      if (problem !== undefined) throw invalid('url', problem);
      const callback: CompatCallbackRecord = { accountId, dialect, url: text, updatedAt: clock() };
      return { callback, previous: await store.compat.setCallback(callback) };
    },
  };
}

export function createCompatService(deps: CompatDeps) {
  const { store, clock } = deps;
  const requireToken = async (tokenId: string, accountId?: string): Promise<CompatTokenRecord> => {
    const record = tokenId.length <= MAX_KEY_LENGTH ? await store.compat.getToken(tokenId) : null;
    if (!record || (accountId !== undefined && record.accountId !== accountId)) throw notFound(`Token ${tokenId}`);
    return record;
  };
  return {
    ...callbackSetter(deps),
    /**
     * Makes a token bound to `publicKey` (of `accountId` when given: a holder may bind only its
     * own pairs). The pair must be live or test, not revoked; its account on the API tier.
     */
    async createToken(
      publicKey: string,
      dialectWord: string,
      inFlightWord: string,
      accountId?: string,
    ): Promise<{ token: string; record: CompatTokenRecord }> {
      const dialect = checkDialect('dialect', dialectWord);
      const inFlight = checkInFlight('in_flight', inFlightWord);
      const key = publicKey.length <= MAX_KEY_LENGTH ? await store.keys.find(publicKey) : null;
      if (!key || (accountId !== undefined && key.accountId !== accountId)) throw notFound(`Key ${publicKey}`);
      if (key.revoked) throw invalid('public_key', `The key ${publicKey} is revoked; bind the token to a working key.`);
      const made = newToken(dialect);
      const token = made.token;
      const record: CompatTokenRecord = {
        tokenId: `ct_${randomBytes(8).toString('hex')}`,
        tokenHash: tokenHash(made.lookup),
        lastFour: made.lastFour,
        dialect,
        inFlight,
        publicKey: key.publicKey,
        accountId: key.accountId,
        mode: key.mode,
        createdAt: clock(),
      };
      await store.compat.insertToken(record);
      return { token, record };
    },

    /** An account's tokens, newest first; one mode's when it is given. */
    async listTokens(accountId: string, mode?: Mode): Promise<CompatTokenRecord[]> {
      const tokens = await store.compat.listTokens(accountId);
      return mode === undefined ? tokens : tokens.filter((t) => t.mode === mode);
    },

    /** Revokes a token (of `accountId` when given); revoking one already revoked is NOT_FOUND. */
    async revokeToken(tokenId: string, accountId?: string): Promise<CompatTokenRecord> {
      const record = await requireToken(tokenId, accountId);
      const revoked = await store.compat.revokeToken(record.tokenId, clock());
      if (!revoked) throw notFound(`Token ${tokenId} (not revoked yet)`);
      return revoked;
    },

    /**
     * The pair a token acts as, checked as the key-pair check checks a pair whose secret
     * matched. A token of another dialect than the path's is as invalid as a wrong one.
     */
    async verifyToken(dialect: string, token: string, clientIp: string): Promise<VerifiedCompatToken> {
      // A VTpass pair is looked up by its api key and public key (compat-vtpass.ts).
      const vtpass = dialect === 'vtpass' ? readVtpassPair(token) : undefined;
      const lookup = vtpass?.lookup ?? (dialect === 'vtpass' ? '' : token);
      const shaped = lookup.length > 0 && lookup.length <= MAX_COMPAT_TOKEN_LENGTH;
      const hash = tokenHash(shaped ? lookup : '');
      const record = shaped ? await store.compat.findToken(hash) : null;
      if (!record || !sameHash(hash, record.tokenHash) || record.revokedAt !== undefined) throw invalidToken();
      if (record.dialect !== dialect) throw invalidToken();
      const key = await store.keys.find(record.publicKey);
      if (!key) throw invalidToken();
      const now = clock();
      const checked = await checkPresentedKey(store, key, clientIp, now);
      const scopes = vtpass?.readOnly === true ? readOnlyScopes(checked.scopes) : checked.scopes;
      if (scopes === undefined) throw invalidToken();
      const verified = { ...checked, scopes };
      deps.keyUses?.note(key.publicKey, now);
      const aliases = await store.compat.listAliases(record.accountId, record.dialect);
      return {
        ...verified,
        publicKey: key.publicKey,
        inFlight: record.inFlight,
        planAliases: new Map(aliases.map((a) => [a.aliasId, a.planId])),
      };
    },

    /** Sets an alias to one of our plans (which must exist); at most MAX_ALIASES_PER_DIALECT each. */
    async setAlias(
      accountId: string,
      dialectWord: string,
      aliasIdText: string,
      planId: number,
    ): Promise<{ alias: PlanAliasRecord; previous: PlanAliasRecord | null }> {
      const dialect = checkDialect('dialect', dialectWord);
      const aliasId = checkAliasId('alias_id', aliasIdText);
      if (!(await store.accounts.get(accountId))) throw notFound(`Account ${accountId || '(empty id)'}`);
      const plan = Number.isSafeInteger(planId) && planId > 0 ? await store.catalog.getPlan(planId) : null;
      if (!plan) throw invalid('plan_id', `plan_id ${planId} is not one of our plans.`);
      const existing = await store.compat.listAliases(accountId, dialect);
      if (existing.length >= MAX_ALIASES_PER_DIALECT && !existing.some((a) => a.aliasId === aliasId)) {
        throw invalid('alias_id', `An account keeps at most ${MAX_ALIASES_PER_DIALECT} aliases in one dialect.`);
      }
      const alias: PlanAliasRecord = { accountId, dialect, aliasId, planId: plan.planId, updatedAt: clock() };
      const previous = await store.compat.setAlias(alias);
      return { alias, previous };
    },

    /** Removes one alias, or all of the account's in the dialect; returns how many. */
    async clearAliases(accountId: string, dialectWord: string, aliasIdText: string): Promise<number> {
      const dialect = checkDialect('dialect', dialectWord);
      const aliasId = aliasIdText.trim() === '' ? undefined : checkAliasId('alias_id', aliasIdText);
      return store.compat.clearAliases(accountId, dialect, aliasId);
    },

    /** An account's aliases, in one dialect or all. */
    async listAliases(accountId: string, dialectWord: string): Promise<PlanAliasRecord[]> {
      const dialect: Dialect | undefined = dialectWord === '' ? undefined : checkDialect('dialect', dialectWord);
      return store.compat.listAliases(accountId, dialect);
    },
  };
}

export type CompatService = ReturnType<typeof createCompatService>;
