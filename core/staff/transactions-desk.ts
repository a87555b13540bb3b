/**
 * The console's transactions desk: live purchases searched by reference, recipient, account,
 * product, status, upstream and a bounded time range, a page at a time; and one purchase with
 * its evidence (the upstreams called, what they answered, the events about it and their
 * webhook deliveries, its open proposals). Its actions are the attention queue's (core/staff/desk.ts).
 */
import { checkDeskQuery, type DeskTransactionQuery } from '../domain/desk-search.js';
import { notFound } from '../domain/errors.js';
import type { EventRecord } from '../domain/events.js';
import { DESK_PAGES, type Page, pageSize, readPage } from '../domain/paging.js';
import type { TransactionRecord, UpstreamAnswerRecord, UpstreamAttemptRecord } from '../domain/records.js';
import type { ProposalRecord } from '../domain/staff.js';
import type { Store } from '../store/port.js';

/** A purchase has at most three events (success, failed, reversed); the bound only guards the read. */
const EVENT_SCAN = 10;
/** The open proposals a purchase's page looks through for its own. */
const OPEN_PROPOSALS = 500;

export interface TransactionDetail {
  transaction: TransactionRecord;
  attempts: UpstreamAttemptRecord[];
  answers: UpstreamAnswerRecord[];
  events: EventRecord[];
  proposals: ProposalRecord[];
}

export function createTransactionsDesk(deps: {
  store: Pick<Store, 'history' | 'transactions' | 'supply' | 'events' | 'proposals'>;
  clock: () => Date;
}) {
  const { store } = deps;
  return {
    async search(query: DeskTransactionQuery, size: number | undefined, after: string | undefined) {
      const limit = pageSize(size, DESK_PAGES, 'page_size');
      if (query.reference !== undefined) {
        // A reference names one purchase whenever it was made: no range needed.
        const tx = await store.transactions.get(query.reference);
        const found = tx !== null && tx.mode === 'live' ? [tx] : [];
        return { items: found } satisfies Page<TransactionRecord>;
      }
      const checked = checkDeskQuery(query);
      return readPage('page_token', () => store.history.searchDesk(checked, { limit, ...(after ? { after } : {}) }));
    },

    async detail(reference: string): Promise<TransactionDetail> {
      const transaction = reference === '' ? null : await store.transactions.get(reference);
      if (!transaction) throw notFound(`Transaction ${reference.slice(0, 64) || '(empty reference)'}`);
      const [attempts, answers, events, open] = await Promise.all([
        store.supply.attemptsOf(reference),
        store.supply.answersOf(reference),
        store.events.listAboutSubject(transaction.accountId, transaction.mode, reference, EVENT_SCAN),
        store.proposals.listOpen(deps.clock(), OPEN_PROPOSALS),
      ]);
      const proposals = open.filter((p) => p.target === reference);
      return { transaction, attempts, answers, events, proposals };
    },
  };
}

export type TransactionsDesk = ReturnType<typeof createTransactionsDesk>;
