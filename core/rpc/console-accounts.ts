/**
 * The console's accounts list, an account's changes from its page, the transactions desk and
 * a purchase's page (ConsoleService), and the account names every list of the console shows
 * beside an id. The handlers only translate: the power each needs is `CONSOLE_POWERS`
 * (core/rpc/policies.ts), the rules are core/staff/accounts-desk.ts and transactions-desk.ts.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type {
  ConsoleService as ConsoleDesc,
  ManageAccountRequest,
  ProposalSchema,
  TransactionEventSchema,
} from '../../gen/prepaid/v1/console_pb.js';
import { UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { ACCOUNT_SORTS, type AccountListFilter, type AccountSort } from '../domain/account-list.js';
import { invalid } from '../domain/errors.js';
import type { EventRecord } from '../domain/events.js';
import { sizeOrDefault } from '../domain/paging.js';
import type { ProposalRecord } from '../domain/staff.js';
import { productWord, statusWord } from '../domain/words.js';
import type { AccountsDesk } from '../staff/accounts-desk.js';
import type { Actor } from '../staff/audit.js';
import type { TransactionsDesk } from '../staff/transactions-desk.js';
import { attemptMessage } from './admin.js';
import { accountMessage, int64In, timestampInit, transactionMessage } from './convert.js';
import type { StaffHandlers } from './staff-guard.js';

type ConsoleMethods = (typeof ConsoleDesc)['method'];
type Methods = 'listAccounts' | 'manageAccount' | 'searchTransactions' | 'getTransactionDetail';

/** A proposal's message with what it moves: `base` is the plain message (core/rpc/console.ts). */
export function withFacts(
  base: MessageInitShape<typeof ProposalSchema>,
  facts: { accountName: string; movesKobo: number } | undefined,
): MessageInitShape<typeof ProposalSchema> {
  return { ...base, accountName: facts?.accountName ?? '', movesKobo: BigInt(facts?.movesKobo ?? 0) };
}

function sortOf(word: string): AccountSort {
  if (word === '') return 'created';
  if (!(ACCOUNT_SORTS as readonly string[]).includes(word))
    throw invalid('sort', 'sort must be created, balance or name.');
  return word as AccountSort;
}

function suspendedOf(word: string): boolean | undefined {
  if (word === '') return undefined;
  if (word !== 'yes' && word !== 'no') throw invalid('suspended', 'suspended must be yes, no or empty.');
  return word === 'yes';
}

function eventMessage(event: EventRecord): MessageInitShape<typeof TransactionEventSchema> {
  return {
    eventId: event.eventId,
    type: event.type,
    createdAt: timestampInit(event.createdAt),
    delivery: event.delivery,
    attempts: event.attempts,
    lastStatus: event.lastStatus ?? 0,
    lastError: event.lastError ?? '',
    ...(event.lastAttemptAt ? { lastAttemptAt: timestampInit(event.lastAttemptAt) } : {}),
  };
}

/** One change of an account's page, by its desk's use case; what the page shows after it. */
async function manage(accounts: AccountsDesk, req: ManageAccountRequest, who: Actor) {
  const { change, accountId } = req;
  switch (change.case) {
    case 'createAccount':
      return { accountId: (await accounts.createAccount(change.value.name, change.value.tierId, who)).accountId };
    case 'inviteUser': {
      const { email, role } = change.value;
      const made = await accounts.invite(accountId, email, role === UserRole.VIEWER ? 'viewer' : 'owner', who);
      return { accountId, link: made.url };
    }
    case 'disableUser':
      await accounts.disableUser(accountId, change.value.userId, who);
      return { accountId };
    case 'resetTwoStep':
      await accounts.resetTwoStep(accountId, change.value.userId, who);
      return { accountId };
    case 'resetPassword': {
      const reset = await accounts.resetPassword(accountId, change.value.userId, who);
      return { accountId, link: reset.url, mailed: reset.mailed };
    }
    case 'setTier':
      return { accountId: (await accounts.setTier(accountId, change.value.tierId, who)).accountId };
    case 'revokeKey':
      await accounts.revokeKey(accountId, change.value.publicKey, who);
      return { accountId };
    default:
      throw invalid('change', 'change must name what to change.');
  }
}

export function accountConsoleHandlers(deps: {
  accounts: AccountsDesk;
  transactions: TransactionsDesk;
  proposalMessage: (p: ProposalRecord) => MessageInitShape<typeof ProposalSchema>;
}): Pick<StaffHandlers<ConsoleMethods>, Methods> {
  const { accounts, transactions } = deps;
  return {
    async listAccounts(req) {
      const filter: AccountListFilter = {
        ...(req.tierId.trim() === '' ? {} : { tierId: req.tierId.trim() }),
        ...(req.createdFrom ? { createdFrom: timestampDate(req.createdFrom) } : {}),
        ...(req.createdBefore ? { createdBefore: timestampDate(req.createdBefore) } : {}),
        ...(req.balanceMinKobo === undefined
          ? {}
          : { balanceMinKobo: int64In(req.balanceMinKobo, 'balance_min_kobo') }),
        ...(req.balanceMaxKobo === undefined
          ? {}
          : { balanceMaxKobo: int64In(req.balanceMaxKobo, 'balance_max_kobo') }),
      };
      const suspended = suspendedOf(req.suspended);
      const sort = sortOf(req.sort);
      // Newest and richest first by default; names A to Z.
      const descending = (sort !== 'name') !== req.reverse;
      const page = await accounts.listAccounts({
        ...filter,
        ...(suspended === undefined ? {} : { suspended }),
        sort,
        descending,
        size: sizeOrDefault(req.pageSize),
        after: req.pageToken || undefined,
      });
      return { accounts: page.items.map(accountMessage), nextPageToken: page.next ?? '' };
    },
    async manageAccount(req, { who }) {
      return manage(accounts, req, who);
    },
    async searchTransactions(req) {
      const product = productWord(req.product);
      const status = statusWord(req.status);
      const page = await transactions.search(
        {
          ...(req.reference.trim() === '' ? {} : { reference: req.reference.trim() }),
          ...(req.recipient.trim() === '' ? {} : { recipient: req.recipient.trim() }),
          ...(req.accountId.trim() === '' ? {} : { accountId: req.accountId.trim() }),
          ...(req.upstream.trim() === '' ? {} : { upstream: req.upstream.trim() }),
          ...(product === null ? {} : { product }),
          ...(status === null ? {} : { status }),
          from: req.createdFrom ? timestampDate(req.createdFrom) : new Date(Number.NaN),
          until: req.createdBefore ? timestampDate(req.createdBefore) : new Date(Number.NaN),
        },
        sizeOrDefault(req.pageSize),
        req.pageToken || undefined,
      );
      return {
        transactions: page.items.map(transactionMessage),
        nextPageToken: page.next ?? '',
        accountNames: await accounts.namesOf(page.items.map((tx) => tx.accountId)),
      };
    },
    async getTransactionDetail(req) {
      const d = await transactions.detail(req.reference.trim());
      const [names, facts] = await Promise.all([
        accounts.namesOf([d.transaction.accountId]),
        accounts.proposalFacts(d.proposals),
      ]);
      return {
        transaction: transactionMessage(d.transaction),
        accountName: names[d.transaction.accountId] ?? '',
        upstreamAttempts: d.attempts.map(attemptMessage),
        upstreamAnswers: d.answers.map((a) => ({
          n: a.n,
          upstream: a.upstream,
          source: a.source,
          body: a.body,
          at: timestampInit(a.at),
        })),
        events: d.events.map(eventMessage),
        proposals: d.proposals.map((p) => withFacts(deps.proposalMessage(p), facts.get(p.proposalId))),
      };
    },
  };
}
