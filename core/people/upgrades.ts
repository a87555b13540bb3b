/**
 * Requests for API access: an owner of an account on a tier without API access asks from the
 * developer area; the operator approves or refuses (`prepaid upgrades`, later the console's
 * queue). Approval moves the account to an API tier without issuing a key to the operator;
 * the first live key pair is issued to an owner when they next open the developer area
 * (claimFirstKey), once, by an atomic mark in the store, so two tabs never get two keys and
 * no secret is ever stored or printed.
 */
import type { AccountService, IssuedKeyPair } from '../accounts/service.js';
import { API_TIER_ID } from '../catalog/defaults.js';
import { DomainError, invalid } from '../domain/errors.js';
import type { UpgradeRequestRecord } from '../domain/records.js';
import type { Notices } from '../mail/notices.js';
import type { Store } from '../store/port.js';
import type { HolderContext } from './service.js';

/** What an owner may say about their plans; a paragraph, not a document. */
const MAX_UPGRADE_NOTE_CHARS = 500;
/** The operator's queue shows this many at most, oldest first. */
const MAX_PENDING_LISTED = 200;

export interface UpgradeDeps {
  store: Pick<Store, 'upgrades' | 'catalog' | 'kyc'>;
  accounts: AccountService;
  clock: () => Date;
  /** API_TIER_MIN_LEVEL: the identity level an account needs to ask (docs/kyc.md). */
  minLevel: number;
  /** The approval's mail to the owners (core/mail/holder-notices.ts); none: nothing is mailed. */
  notices?: Pick<Notices, 'apiAccessApproved'>;
}

export function createUpgrades(deps: UpgradeDeps) {
  const { store, accounts, clock } = deps;

  async function pending(accountId: string): Promise<UpgradeRequestRecord> {
    await accounts.getAccount(accountId);
    const found = await store.upgrades.get(accountId);
    if (found?.status !== 'pending')
      throw new DomainError('FAILED_PRECONDITION', `Account ${accountId} has no pending request for API access.`);
    return found;
  }

  return {
    /** Files the account's request; an account that can already use the API has nothing to ask. */
    async request(context: HolderContext, note: string): Promise<UpgradeRequestRecord> {
      if (context.tier.apiAccess)
        throw new DomainError(
          'FAILED_PRECONDITION',
          'This account can already use the API: create a key pair on the API keys page.',
        );
      const level = (await store.kyc.levelOf(context.account.accountId))?.level ?? 0;
      if (level < deps.minLevel)
        throw new DomainError(
          'FAILED_PRECONDITION',
          `API access needs identity level ${deps.minLevel}; this account is at level ${level}. ` +
            'Verify it on the Verify page first.',
        );
      const text = note.trim();
      if (text.length > MAX_UPGRADE_NOTE_CHARS)
        throw invalid('note', `Write at most ${MAX_UPGRADE_NOTE_CHARS} characters.`);
      return store.upgrades.open({
        accountId: context.account.accountId,
        requestedBy: context.user.email,
        note: text,
        at: clock(),
      });
    },

    status: (context: HolderContext): Promise<UpgradeRequestRecord | null> =>
      store.upgrades.get(context.account.accountId),

    /** The first live key pair of an approval, once; null for every other call. */
    async claimFirstKey(context: HolderContext): Promise<IssuedKeyPair | null> {
      if (!context.tier.apiAccess) return null;
      // A suspended account's first key waits (unclaimed) until it is resumed; its pages still open.
      if (context.account.suspension !== undefined) return null;
      if (!(await store.upgrades.claimFirstKey(context.account.accountId, clock()))) return null;
      return accounts.createKey(context.account.accountId, 'live');
    },

    listPending: (): Promise<UpgradeRequestRecord[]> => store.upgrades.listPending(MAX_PENDING_LISTED),

    /** Moves the account to an API tier (no key for the operator), then marks the request approved. */
    async approve(accountId: string, tierId: string): Promise<UpgradeRequestRecord> {
      await pending(accountId);
      const tier = await store.catalog.getTier(tierId || API_TIER_ID);
      if (tier === null) throw invalid('tier_id', `Tier ${tierId || API_TIER_ID} does not exist.`);
      if (!tier.apiAccess)
        throw invalid('tier_id', `Tier ${tier.tierId} has no API access; approve onto a tier that has it.`);
      await accounts.setTier(accountId, tier.tierId, { issueFirstKey: false });
      const decided = await store.upgrades.decide(accountId, 'approved', clock());
      if (decided === null)
        throw new DomainError('FAILED_PRECONDITION', `Account ${accountId} has no pending request for API access.`);
      // Queued after the approval is stored, as an invitation is: nothing is mailed inside a write.
      deps.notices?.apiAccessApproved({ accountId, tierName: tier.name, at: clock() });
      return decided;
    },

    async refuse(accountId: string): Promise<UpgradeRequestRecord> {
      await pending(accountId);
      const decided = await store.upgrades.decide(accountId, 'refused', clock());
      if (decided === null)
        throw new DomainError('FAILED_PRECONDITION', `Account ${accountId} has no pending request for API access.`);
      return decided;
    },
  };
}

export type Upgrades = ReturnType<typeof createUpgrades>;
