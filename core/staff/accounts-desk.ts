/**
 * The console's accounts: the list (filtered, sorted, paged), the names of the accounts a page
 * shows beside their ids, and the changes an account's page makes, each by the use case the
 * CLI's command calls (core/accounts/, core/people/) and audited with the member as the actor.
 */
import type { AccountService } from '../accounts/service.js';
import { type AccountListFilter, type AccountSort, checkAccountFilter } from '../domain/account-list.js';
import { notFound } from '../domain/errors.js';
import { ACCOUNT_PAGES, type Page, pageSize, readPage } from '../domain/paging.js';
import type { AccountRecord, ApiKeyRecord } from '../domain/records.js';
import type { ProposalRecord } from '../domain/staff.js';
import type { NewInvitation, PeopleService } from '../people/service.js';
import type { Store } from '../store/port.js';
import type { Actor, AuditTrail } from './audit.js';

export interface AccountsDeskDeps {
  store: Pick<Store, 'accounts' | 'keys' | 'people' | 'transactions' | 'funding'>;
  accounts: Pick<AccountService, 'createAccount' | 'setTier' | 'revokeKey'>;
  people: Pick<PeopleService, 'invite' | 'disableUser' | 'resetTwoStep' | 'issuePasswordReset'>;
  audit: AuditTrail;
}

export interface AccountListAsk extends AccountListFilter {
  sort: AccountSort;
  descending: boolean;
  /** Undefined: the default size. */
  size: number | undefined;
  after: string | undefined;
}

/** A proposal as its approver reads it: whose account, and how much it moves. */
export interface ProposalFacts {
  accountName: string;
  movesKobo: number;
}

/** The most distinct accounts one page's names are looked up for: every list the console shows is bounded below it. */
const MAX_NAMED = 500;

export function createAccountsDesk(deps: AccountsDeskDeps) {
  const { store, audit } = deps;
  /** Each id's account name; ids that name no account are left out. */
  async function namesOf(ids: Iterable<string>): Promise<Record<string, string>> {
    const distinct = [...new Set([...ids].filter((id) => id !== ''))].slice(0, MAX_NAMED);
    const found = await Promise.all(distinct.map((id) => store.accounts.get(id)));
    const names: Record<string, string> = {};
    for (const account of found) if (account) names[account.accountId] = account.name;
    return names;
  }
  return {
    async listAccounts(ask: AccountListAsk): Promise<Page<AccountRecord>> {
      const limit = pageSize(ask.size, ACCOUNT_PAGES, 'page_size');
      const filter = checkAccountFilter(ask);
      return readPage('page_token', () =>
        store.accounts.list({
          ...filter,
          sort: ask.sort,
          descending: ask.descending,
          limit,
          ...(ask.after ? { after: ask.after } : {}),
        }),
      );
    },

    namesOf,

    /**
     * What each proposal would move, for the approver, and its account's name: read from the
     * purchase (a refund, a pending resolved as failed: its charge) or the transfer (an
     * assignment: the amount paid), never from what the page was sent.
     */
    async proposalFacts(proposals: readonly ProposalRecord[]): Promise<Map<string, ProposalFacts>> {
      const accountNames = await namesOf(proposals.map((p) => p.accountId));
      const facts = new Map<string, ProposalFacts>();
      await Promise.all(
        proposals.map(async (p) => {
          let movesKobo: number = p.amountKobo;
          if (p.kind === 'refund' || p.kind === 'pending_failed') {
            movesKobo = (await store.transactions.get(p.target))?.chargedKobo ?? 0;
          } else if (p.kind === 'inflow_assign') {
            movesKobo = (await store.funding.getInflow(p.target))?.amountPaidKobo ?? 0;
          }
          facts.set(p.proposalId, { accountName: accountNames[p.accountId] ?? '', movesKobo });
        }),
      );
      return facts;
    },

    /** `prepaid accounts create`: never a key pair for staff to see; on an API tier the owner makes it. */
    async createAccount(name: string, tierId: string, who: Actor): Promise<AccountRecord> {
      const { account } = await deps.accounts.createAccount(name, tierId, { issueFirstKey: false });
      await audit(who, {
        action: 'account.create',
        target: account.accountId,
        after: { name: account.name, tier_id: account.tierId },
      });
      return account;
    },

    async setTier(accountId: string, tierId: string, who: Actor): Promise<AccountRecord> {
      const before = await store.accounts.get(accountId);
      if (!before) throw notFound(`Account ${accountId || '(empty id)'}`);
      const { account } = await deps.accounts.setTier(accountId, tierId, { issueFirstKey: false });
      await audit(who, {
        action: 'account.set_tier',
        target: accountId,
        before: { tier_id: before.tierId },
        after: { tier_id: account.tierId },
      });
      return account;
    },

    async revokeKey(accountId: string, publicKey: string, who: Actor): Promise<ApiKeyRecord> {
      const key = publicKey === '' ? null : await store.keys.find(publicKey);
      // The page acts for one account: a key of another is not this page's to revoke.
      if (!key || key.accountId !== accountId) throw notFound(`Key ${publicKey.slice(0, 64) || '(empty key)'}`);
      const revoked = await deps.accounts.revokeKey(publicKey);
      await audit(who, {
        action: 'key.revoke',
        target: publicKey,
        before: { revoked: key.revoked },
        after: { revoked: true },
      });
      return revoked;
    },

    /** `prepaid users invite`: the link is mailed to the invitee when mail is set up, and answered once. */
    async invite(accountId: string, email: string, role: 'owner' | 'viewer', who: Actor): Promise<NewInvitation> {
      const made = await deps.people.invite(accountId, email, role, who.actor);
      await audit(who, { action: 'users.invite', target: accountId, after: { email: made.invitation.email, role } });
      return made;
    },

    async disableUser(accountId: string, userId: string, who: Actor): Promise<void> {
      await requireMember(store, accountId, userId);
      const done = await deps.people.disableUser(userId, accountId);
      await audit(who, {
        action: 'users.disable',
        target: userId,
        after: { account_id: accountId, email: done.user.email },
      });
    },

    /** Audited by the use case, with the member as the actor. */
    async resetTwoStep(accountId: string, userId: string, who: Actor): Promise<void> {
      await requireMember(store, accountId, userId);
      await deps.people.resetTwoStep(userId, who);
    },

    async resetPassword(accountId: string, userId: string, who: Actor) {
      await requireMember(store, accountId, userId);
      return deps.people.issuePasswordReset(userId, who);
    },
  };
}

/** A user the page acts on must be one of its account's members. */
async function requireMember(store: Pick<Store, 'people'>, accountId: string, userId: string): Promise<void> {
  const membership = userId === '' ? null : await store.people.getMembership(userId, accountId);
  if (!membership) throw notFound(`User ${userId.slice(0, 64) || '(empty id)'}`);
}

export type AccountsDesk = ReturnType<typeof createAccountsDesk>;
