/**
 * The books on SQLite beyond the shared conformance: the file itself refuses an unbalanced
 * or amended entry, and the schema step that migrates the history before the books books exactly
 * what the live path books, the reports summing it to what they summed before. (The random
 * sequences of moves run on every adapter: test/core/store/books-random.ts, by conformance.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as assert from 'uvu/assert';
import { newInflowId } from '../../../core/domain/funding.js';
import { kobo } from '../../../core/domain/money.js';
import { LAGOS_OFFSET_MS } from '../../../core/domain/people.js';
import type { LedgerEntryRecord } from '../../../core/domain/records.js';
import type { Store } from '../../../core/store/port.js';
import { openSqliteStore } from '../../../core/store/sqlite/index.js';
import { airtimePurchase } from '../../helpers/purchases.js';
import { sqliteOracle } from '../../helpers/report-oracle.js';
import { suite } from '../../helpers/suite.js';

const books = suite('sqlite books');
let dir: string;
const stores: Store[] = [];

books.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'prepaid-books-'));
});
books.after.each(async () => {
  for (const store of stores.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(filename = join(dir, 'prepaid.db')): Store {
  const store = openSqliteStore({ filename });
  stores.push(store);
  return store;
}

const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 9) + s * 1000);

books('the file refuses an entry that does not balance, a line added to a kept entry, and any edit', async () => {
  const store = open();
  await store.close();
  const db = new Database(join(dir, 'prepaid.db'));
  try {
    db.prepare(
      "INSERT INTO postings VALUES (900, 0, 'world:bank', 'live', 100), (900, 1, 'upstream:vtpass:float', 'live', -99)",
    ).run();
    assert.throws(
      () => db.prepare("INSERT INTO journal VALUES (900, 'upstream_funded', 'live', 'X', 0)").run(),
      /an entry must balance/,
    );
    db.prepare("INSERT INTO postings VALUES (901, 0, 'world:bank', 'live', -5)").run();
    assert.throws(
      () => db.prepare("INSERT INTO journal VALUES (901, 'upstream_funded', 'live', 'Y', 0)").run(),
      /an entry must balance/,
      'one line is not an entry',
    );
    db.prepare("INSERT INTO postings VALUES (902, 0, 'world:bank', 'test', -5), (902, 1, 'x:y:z', 'test', 5)").run();
    assert.throws(
      () => db.prepare("INSERT INTO journal VALUES (902, 'upstream_funded', 'live', 'Z', 0)").run(),
      /an entry must balance/,
      'postings of another mode',
    );
    db.prepare("INSERT INTO postings VALUES (903, 0, 'world:bank', 'live', -5), (903, 1, 'x:y:z', 'live', 5)").run();
    db.prepare("INSERT INTO journal VALUES (903, 'upstream_funded', 'live', 'W', 0)").run();
    assert.throws(
      () => db.prepare("INSERT INTO postings VALUES (903, 2, 'world:bank', 'live', 1)").run(),
      /takes no more postings/,
    );
    assert.throws(() => db.prepare('UPDATE postings SET amount_kobo = 6 WHERE entry_id = 903').run(), /append-only/);
    assert.throws(() => db.prepare('DELETE FROM journal WHERE entry_id = 903').run(), /append-only/);
  } finally {
    db.close();
  }
});

/** A history with every kind of move the store makes, through the adapter. */
async function history(store: Store): Promise<void> {
  await store.accounts.create({ accountId: 'acct-1', name: 'Ada', tierId: 'standard', createdAt: at(0) });
  await store.accounts.create({ accountId: 'acct-2', name: 'Bola', tierId: 'standard', createdAt: at(0) });
  const credit = { accountId: 'acct-1', amountKobo: kobo(500_000), memo: 'opening', at: at(1) };
  await store.ledger.post({ kind: 'credit', credit: { ...credit, mode: 'live', reference: 'CR-1' } });
  await store.ledger.post({ kind: 'credit', credit: { ...credit, mode: 'test', reference: 'CR-T' } });
  const delivered = { seq: 1, outcome: 'delivered' as const, evidence: null, costKobo: kobo(9_600) };
  for (const [i, fate] of ['cost', 'nocost', 'failed', 'reversed', 'pending', 'test', 'later'].entries()) {
    const mode = fate === 'test' ? 'test' : 'live';
    const tx = airtimePurchase(`TX-${i}`, { accountId: 'acct-1', mode, createdAt: at(10 + i), requestId: null });
    await store.ledger.post({ kind: 'reserve', tx, first: { upstream: fate === 'nocost' ? 'clubkonnect' : 'vtpass' } });
    if (fate === 'cost' || fate === 'reversed' || fate === 'test')
      await store.ledger.post({
        kind: 'settle',
        reference: tx.reference,
        result: {},
        at: at(30 + i),
        attempt: delivered,
      });
    if (fate === 'nocost' || fate === 'later')
      await store.ledger.post({ kind: 'settle', reference: tx.reference, result: {}, at: at(30 + i) });
    if (fate === 'later')
      await store.ledger.post({
        kind: 'cost_learnt',
        reference: tx.reference,
        seq: 1,
        costKobo: kobo(9_700),
        at: at(40),
      });
    if (fate === 'failed')
      await store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'refused', at: at(30 + i) });
    if (fate === 'reversed')
      await store.ledger.post({ kind: 'reverse', reference: tx.reference, reason: 'undone', at: at(50) });
  }
  await store.ledger.post({
    kind: 'debit',
    debit: {
      accountId: 'acct-1',
      mode: 'live',
      amountKobo: kobo(1_000),
      reference: 'D-1',
      reason: 'fee',
      at: at(60),
    },
  });
  const inflow = (status: 'verified' | 'unmatched', accountId: string | null) => ({
    inflowId: newInflowId(),
    provider: 'monnify' as const,
    providerReference: `MNFY-${Math.random()}`,
    accountNumber: '6000140770',
    accountId,
    mode: 'live' as const,
    amountPaidKobo: kobo(300_000),
    payerName: 'BOLA',
    status,
    reason: status === 'unmatched' ? 'no wallet' : '',
    raw: '{}',
    createdAt: at(70),
  });
  const credited = inflow('verified', 'acct-2');
  await store.ledger.post({ kind: 'inflow_record', inflow: credited, credit: null });
  await store.ledger.post({
    kind: 'inflow_credit',
    inflowId: credited.inflowId,
    credit: { accountId: 'acct-2', mode: 'live', feeKobo: kobo(1_500), at: at(71) },
    from: 'verified',
  });
  await store.ledger.post({ kind: 'inflow_record', inflow: inflow('unmatched', null), credit: null });
  const rejected = inflow('unmatched', null);
  await store.ledger.post({ kind: 'inflow_record', inflow: rejected, credit: null });
  await store.ledger.post({ kind: 'inflow_reject', inflowId: rejected.inflowId, reason: 'not ours', at: at(72) });
}

/** What a reader sees: each wallet's statement and balance, and each account's sum in the books. */
async function readings(store: Store) {
  const statements: Record<string, LedgerEntryRecord[]> = {};
  const balances: Record<string, [number, number]> = {};
  for (const accountId of ['acct-1', 'acct-2']) {
    for (const mode of ['live', 'test'] as const)
      statements[`${accountId}:${mode}`] = (await store.wallet.listLedger(accountId, mode, { limit: 100 })).items;
    const account = (await store.accounts.get(accountId))!;
    balances[accountId] = [account.balanceKobo, account.testBalanceKobo];
  }
  const sums = (await store.books.sums())
    .filter((row) => row.sumKobo !== 0)
    .map((row) => `${row.mode} ${row.account} ${row.sumKobo}`)
    .sort();
  return { statements, balances, sums };
}

books(
  'the history before the books is migrated into the same bookings, statements and balances unchanged',
  async () => {
    const file = join(dir, 'prepaid.db');
    const live = open(file);
    await history(live);
    const before = await readings(live);
    assert.ok(
      before.sums.includes('live upstream:vtpass:float -19300'),
      'two delivered costs left the float, one came back',
    );
    await live.close();
    // The file as the release before the books left it: no journal (nor the later steps' tables), schema version 34.
    const db = new Database(file);
    db.exec(
      'DROP TABLE journal; DROP TABLE postings; DROP TABLE reconcile_findings; DROP TABLE reconcile_days; ' +
        'DROP TABLE float_readings; DROP TABLE sign_ups; DROP TABLE plan_aliases; DROP TABLE compat_tokens; DROP TABLE compat_callbacks; ' +
        'DROP TABLE kyc_holds; DROP TABLE kyc_requests; DROP TABLE kyc_levels; ' +
        'ALTER TABLE accounts DROP COLUMN kyc_level; ALTER TABLE accounts DROP COLUMN kyc_inflow_kobo; ' +
        'DROP TABLE mail_opt_outs; DROP INDEX events_wallet_money; ' +
        'ALTER TABLE accounts DROP COLUMN email_verified_at; ALTER TABLE accounts DROP COLUMN phone_verified_at;',
    );
    db.pragma('user_version = 34');
    db.close();
    const migrated = open(file);
    const after = await readings(migrated);
    assert.equal(after.statements, before.statements, 'every statement reads as it did');
    assert.equal(after.balances, before.balances);
    assert.equal(after.sums, before.sums, 'the migration books what the live path booked');
    const check = await migrated.wallet.audit();
    assert.equal(check.violations, [], 'the ledger check is clean after the step');
    // The reports sum the migrated postings to what the old computation sums from the rows,
    // the transfer rejected before the books (which has no entry) included.
    const raw = new Database(file, { readonly: true });
    try {
      const day = { from: new Date(Date.UTC(2026, 9, 31, 23)), until: new Date(Date.UTC(2026, 10, 1, 23)) };
      const window = { ...day, offsetMs: LAGOS_OFFSET_MS };
      for (const group of ['product', 'upstream', 'tier'] as const) {
        const rows = await migrated.reports.salesByDay(window, group);
        assert.ok(rows.length > 0);
        assert.equal(rows, sqliteOracle.sales(raw, window, group), `the ${group} report after the step`);
      }
      const funding = await migrated.reports.fundingByDay(window);
      assert.equal(funding, sqliteOracle.funding(raw, window), 'the funding report after the step');
      assert.is(funding[0]?.count, 3, 'the rejected transfer is counted as before');
    } finally {
      raw.close();
    }
  },
);

books.run();
