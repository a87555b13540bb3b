/**
 * Known sales for the report tests (CLI and console): purchases written through the store on
 * fixed Lagos days, with their upstream attempts and costs, ended as the flow ends them
 * (settled, refunded, reversed or left pending), and the figures the ledger says they add up
 * to. The expected figures come from the wallet's ledger entries, not from the seeding, so a
 * report that agrees with them agrees with the money.
 */
import { kobo } from '../../core/domain/money.js';
import type { LedgerEntryRecord } from '../../core/domain/records.js';
import type { Store } from '../../core/store/port.js';
import { airtimePurchase } from './purchases.js';

/** 5 October 2026 in Lagos begins at 23:00 UTC on the 4th. */
export const REPORT_DAY = '2026-10-05';
const at = (hourUtc: number) => new Date(Date.UTC(2026, 9, 5, hourUtc));

type Ending = 'settle' | 'refund' | 'reverse' | 'pending';

/** Seeds one live account's purchases on REPORT_DAY; returns its id and the references by how they ended. */
export async function seedReportSales(store: Store): Promise<{ accountId: string; references: Map<string, Ending> }> {
  const accountId = `acct_report_${Date.now().toString(36)}`;
  await store.accounts.create({ accountId, name: 'Report Stores', tierId: 'api', createdAt: at(0) });
  await store.ledger.post({
    kind: 'credit',
    credit: {
      accountId,
      mode: 'live',
      amountKobo: kobo(10_000_000),
      reference: `fund-${accountId}`,
      memo: 'float',
      at: at(0),
    },
  });
  const references = new Map<string, Ending>();
  const sales: ReadonlyArray<[Ending, number, string, number | null, 'airtime' | 'data']> = [
    ['settle', 9_800, 'ck', 9_600, 'airtime'],
    ['settle', 9_800, 'vtpass', null, 'airtime'],
    ['settle', 150_000, 'vtpass', 140_000, 'data'],
    ['refund', 9_800, 'ck', null, 'airtime'],
    ['reverse', 9_800, 'ck', 9_600, 'airtime'],
    ['pending', 49_000, 'vtpass', null, 'data'],
  ];
  for (const [i, [ending, charged, upstream, cost, product]] of sales.entries()) {
    const reference = `2026100512${String(i).padStart(2, '0')}RPT${accountId.slice(-7).toUpperCase()}`;
    const createdAt = at(8 + i);
    const reserved = await store.ledger.post({
      kind: 'reserve',
      tx: airtimePurchase(reference, {
        accountId,
        product,
        chargedKobo: kobo(charged),
        createdAt,
        nextAttemptAt: createdAt,
      }),
    });
    if (reserved.outcome !== 'reserved') throw new Error(`seeding a report sale: ${reserved.outcome}`);
    await store.supply.beginAttempt({ reference, seq: 1, upstream, at: createdAt });
    await store.supply.endAttempt(reference, 1, {
      outcome: ending === 'refund' ? 'failed' : ending === 'pending' ? 'pending' : 'delivered',
      evidence: null,
      costKobo: cost === null ? null : kobo(cost),
      at: createdAt,
    });
    if (ending === 'settle' || ending === 'reverse')
      await store.ledger.post({ kind: 'settle', reference, result: { providerReference: 'P' }, at: createdAt });
    if (ending === 'reverse')
      await store.ledger.post({ kind: 'reverse', reference, reason: 'reversed by the upstream', at: createdAt });
    if (ending === 'refund')
      await store.ledger.post({ kind: 'refund', reference, reason: 'failed at the upstream', at: createdAt });
    references.set(reference, ending);
  }
  return { accountId, references };
}

/** Every live ledger entry of the account, oldest first. */
async function ledgerOf(store: Store, accountId: string): Promise<LedgerEntryRecord[]> {
  const entries: LedgerEntryRecord[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store.wallet.listLedger(
      accountId,
      'live',
      after === undefined ? { limit: 100 } : { limit: 100, after },
    );
    entries.push(...page.items);
    if (page.next === undefined) return entries.reverse();
    after = page.next;
  }
}

/**
 * What the ledger says the day's sales were: each purchase's debit is its charge, each refund
 * entry gives one back; the pending purchase is one whose debit has no refund and whose status
 * is pending; a delivered purchase's known cost is its delivered attempt's.
 */
export async function ledgerFigures(store: Store, accountId: string) {
  const entries = await ledgerOf(store, accountId);
  const debits = entries.filter((e) => e.kind === 'debit');
  const refunds = entries.filter((e) => e.kind === 'refund');
  let pendingKobo = 0;
  let costKobo = 0;
  let unknownChargedKobo = 0;
  for (const debit of debits) {
    const tx = await store.transactions.get(debit.reference);
    const attempts = await store.supply.attemptsOf(debit.reference);
    const delivered = attempts.find((a) => a.outcome === 'delivered');
    if (tx?.status === 'pending') pendingKobo += -debit.amountKobo;
    if (tx?.status === 'success') {
      if (delivered?.costKobo != null) costKobo += delivered.costKobo;
      else unknownChargedKobo += -debit.amountKobo;
    }
  }
  const chargedKobo = -debits.reduce((sum, e) => sum + e.amountKobo, 0);
  const refundedKobo = refunds.reduce((sum, e) => sum + e.amountKobo, 0);
  return {
    salesCount: debits.length,
    chargedKobo,
    refundCount: refunds.length,
    refundedKobo,
    pendingKobo,
    costKobo,
    unknownChargedKobo,
    marginKobo: chargedKobo - refundedKobo - pendingKobo - unknownChargedKobo - costKobo,
  };
}
