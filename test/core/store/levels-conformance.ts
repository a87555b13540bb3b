/**
 * Identity levels on any adapter (docs/kyc.md): credits over a level's limits held through the
 * books and released once with the level, a purchase over the day's spend refused before any
 * debit, the limits and decisions audited. Run by levels-sqlite.test.ts and levels-mongo.test.ts.
 */
import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { newInflowId } from '../../../core/domain/funding.js';
import type { Level, LevelRequestRecord } from '../../../core/domain/levels.js';
import { type Kobo, kobo } from '../../../core/domain/money.js';
import type { Store } from '../../../core/store/port.js';
import { airtimePurchase } from '../../helpers/purchases.js';
import { suite } from '../../helpers/suite.js';
import type { OpenedStore } from './conformance.js';

const T0 = Date.UTC(2025, 0, 1, 8, 0, 0);
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const decision = (note: string, seconds = 100) => ({ actor: 'operator', address: null, note, at: at(seconds) });

async function account(store: Store, level: Level): Promise<string> {
  const accountId = `acct-${randomUUID().slice(0, 12)}`;
  await store.accounts.create({ accountId, name: 'Ada Stores', tierId: 'standard', createdAt: at(0) });
  const changed = await store.ledger.post({
    kind: 'level_change',
    accountId,
    level,
    decision: decision('test set-up', 1),
  });
  assert.is(changed.outcome, 'changed');
  return accountId;
}

async function setLevel1(
  store: Store,
  limits: { balance: number | null; inflow: number | null; spend: number | null },
) {
  const set = await store.kyc.setLimits(
    {
      level: 1,
      maxBalanceKobo: limits.balance as Kobo | null,
      maxInflowKobo: limits.inflow as Kobo | null,
      maxDailySpendKobo: limits.spend as Kobo | null,
    },
    { at: at(2), actor: 'operator', address: null, note: 'the test level' },
  );
  assert.ok(set);
}

/** One transfer recorded and credited, as a provider's notification does it. */
function transfer(store: Store, accountId: string, paidKobo: number, seconds: number, mode: 'live' | 'test' = 'live') {
  return store.ledger.post({
    kind: 'inflow_record',
    inflow: {
      inflowId: newInflowId(),
      provider: 'sandbox',
      providerReference: `REF-${randomUUID()}`,
      accountNumber: '9900000001',
      accountId,
      mode,
      amountPaidKobo: kobo(paidKobo),
      payerName: 'ADA OBI',
      status: 'verified',
      reason: '',
      raw: '{}',
      createdAt: at(seconds),
    },
    credit: { feeKobo: kobo(0), at: at(seconds) },
  });
}

async function balance(store: Store, accountId: string): Promise<number> {
  return (await store.accounts.get(accountId))!.balanceKobo;
}

/** The books agree with the wallet: its balance is minus the sum of its postings, and the ledger check is clean. */
async function booksAgree(store: Store, accountId: string): Promise<void> {
  assert.is(-(await store.books.sumOf(`wallet:${accountId}`, 'live')), await balance(store, accountId));
  const audit = await store.wallet.audit();
  assert.equal(audit.violations, [], 'the ledger check finds nothing');
}

export function levelsConformance(label: string, open: () => Promise<OpenedStore>): void {
  const test = suite(`${label} store: identity levels`);
  let opened: OpenedStore;
  test.before.each(async () => {
    opened = await open();
  });
  test.after.each(async () => {
    await opened.cleanup();
  });

  test('the levels start at the CBN tiers, level 3 without limits, and an operator-made account at 3', async () => {
    const { store } = opened;
    const levels = await store.kyc.levels();
    assert.equal(
      levels.map((l) => [l.level, l.maxBalanceKobo, l.maxInflowKobo, l.maxDailySpendKobo]),
      [
        [1, 30_000_000, 30_000_000, 3_000_000],
        [2, 50_000_000, 50_000_000, 20_000_000],
        [3, null, null, null],
      ],
    );
    const accountId = `acct-${randomUUID().slice(0, 12)}`;
    await store.accounts.create({ accountId, name: 'Made by the operator', tierId: 'standard', createdAt: at(0) });
    assert.is((await store.kyc.levelOf(accountId))?.level, 3);
  });

  test('50 concurrent credits at the edge of the balance limit: exactly up to it credited, the rest held', async () => {
    const { store } = opened;
    await setLevel1(store, { balance: 1_000_000, inflow: null, spend: null });
    const accountId = await account(store, 1);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => transfer(store, accountId, 30_000, 10 + i)));
    const held = results.reduce((sum, r) => sum + (r.credit?.outcome === 'credited' ? r.credit.heldKobo : 0), 0);
    assert.ok(
      results.every((r) => r.credit?.outcome === 'credited'),
      'every transfer is booked',
    );
    assert.is(await balance(store, accountId), 1_000_000, 'the wallet holds exactly its limit');
    assert.is(held, 500_000, 'the rest is held');
    assert.is(await store.books.sumOf('held:over_limit', 'live'), -500_000, 'the held account holds the rest');
    const holds = await store.kyc.holdsOf(accountId, 100);
    assert.is(
      holds.reduce((sum, h) => sum + h.amountKobo, 0),
      500_000,
    );
    assert.ok(holds.every((h) => h.status === 'held'));
    assert.is((await store.kyc.levelOf(accountId))?.inflowKobo, 1_000_000, 'only what reached the wallet counts');
    await booksAgree(store, accountId);
  });

  test('the test world is never limited: a test transfer over the live limits is credited whole', async () => {
    const { store } = opened;
    await setLevel1(store, { balance: 1_000, inflow: 1_000, spend: 1_000 });
    const accountId = await account(store, 1);
    const sent = await transfer(store, accountId, 500_000, 10, 'test');
    assert.ok(sent.credit?.outcome === 'credited');
    assert.is(sent.credit.heldKobo, 0);
    assert.is((await store.accounts.get(accountId))!.testBalanceKobo, 500_000);
    assert.is((await store.kyc.levelOf(accountId))?.inflowKobo, 0, 'the live inflow is untouched');
    assert.equal(await store.kyc.holdsOf(accountId, 10), []);
  });

  test('the cumulative inflow limit holds across credits, and a raise releases the held credit once', async () => {
    const { store } = opened;
    await setLevel1(store, { balance: null, inflow: 500_000, spend: null });
    const accountId = await account(store, 1);
    const first = await transfer(store, accountId, 400_000, 10);
    const second = await transfer(store, accountId, 300_000, 11);
    assert.is(first.credit?.outcome === 'credited' && first.credit.heldKobo, 0);
    assert.is(second.credit?.outcome === 'credited' && second.credit.heldKobo, 200_000);
    assert.is(await balance(store, accountId), 500_000);
    assert.equal(
      (await store.kyc.heldCredits(100)).filter((h) => h.accountId === accountId).map((h) => h.amountKobo),
      [200_000],
      "the console's queue lists the held credit",
    );
    const raised = await store.ledger.post({ kind: 'level_change', accountId, level: 2, decision: decision('BVN') });
    assert.ok(raised.outcome === 'changed');
    assert.is(raised.before, 1);
    assert.equal(
      raised.released.map((h) => h.amountKobo),
      [200_000],
    );
    assert.is(await balance(store, accountId), 700_000, 'the held credit arrived');
    const again = await store.ledger.post({ kind: 'level_change', accountId, level: 2, decision: decision('again') });
    assert.ok(again.outcome === 'changed');
    assert.equal(again.released, [], 'released once');
    assert.is(await balance(store, accountId), 700_000);
    assert.is(await store.books.sumOf('held:over_limit', 'live'), 0);
    await booksAgree(store, accountId);
    const rows = await store.auditLog.list({ action: 'kyc.level', target: accountId, limit: 10 });
    assert.is(rows.length, 3, 'every level change is audited (the set-up, the raise, the repeat)');
  });

  test("a purchase over the day's spend limit is refused with nothing debited; a failed one gives its charge back", async () => {
    const { store } = opened;
    await setLevel1(store, { balance: null, inflow: null, spend: 20_000 });
    const accountId = await account(store, 1);
    await transfer(store, accountId, 100_000, 10);
    const purchase = (seconds: number) =>
      airtimePurchase(`TX-${randomUUID()}`, {
        accountId,
        chargedKobo: kobo(9_800),
        createdAt: at(seconds),
        nextAttemptAt: at(seconds + 60),
      });
    const first = await store.ledger.post({ kind: 'reserve', tx: purchase(20) });
    const second = await store.ledger.post({ kind: 'reserve', tx: purchase(21) });
    assert.is(first.outcome, 'reserved');
    assert.is(second.outcome, 'reserved');
    const third = await store.ledger.post({ kind: 'reserve', tx: purchase(22) });
    assert.ok(third.outcome === 'level_limit');
    assert.equal(third.refusal, { limitKobo: 20_000, spentKobo: 19_600 });
    assert.is(await balance(store, accountId), 100_000 - 19_600, 'nothing debited for the refused one');
    if (first.outcome !== 'reserved') return;
    await store.ledger.post({ kind: 'refund', reference: first.transaction.reference, reason: 'failed', at: at(23) });
    assert.is((await store.ledger.post({ kind: 'reserve', tx: purchase(24) })).outcome, 'reserved');
    const nextDay = await store.ledger.post({ kind: 'reserve', tx: purchase(24 * 3600) });
    assert.is(nextDay.outcome, 'reserved', 'a new Lagos day starts again');
    await booksAgree(store, accountId);
  });

  test('a request is kept masked, one open at a time, and a refusal is audited', async () => {
    const { store } = opened;
    const accountId = await account(store, 1);
    const request: LevelRequestRecord = {
      requestId: randomUUID(),
      accountId,
      level: 2,
      kind: 'bvn',
      numberLast4: '7890',
      numberHash: 'a'.repeat(64),
      documentReference: '',
      requestedBy: 'user-1',
      status: 'pending',
      createdAt: at(5),
      decidedAt: null,
      decidedBy: null,
      note: '',
    };
    assert.is((await store.kyc.openRequest(request)).opened, true);
    const second = await store.kyc.openRequest({ ...request, requestId: randomUUID(), kind: 'nin' });
    assert.is(second.opened, false);
    assert.is(second.request.requestId, request.requestId, 'the open request is answered');
    assert.equal(
      (await store.kyc.pendingRequests(100)).filter((r) => r.accountId === accountId).map((r) => r.numberLast4),
      ['7890'],
    );
    const refused = await store.kyc.refuse(accountId, decision('the name does not match'));
    assert.is(refused?.status, 'refused');
    assert.is(await store.kyc.refuse(accountId, decision('twice')), null, 'nothing open any more');
    const rows = await store.auditLog.list({ action: 'kyc.refuse', target: accountId, limit: 10 });
    assert.is(rows.length, 1);
    assert.is(rows[0]!.note, 'the name does not match');
    assert.is((await store.kyc.levelOf(accountId))?.level, 1, 'a refusal changes no level');
  });

  test("setting a level's limits is audited with before and after", async () => {
    const { store } = opened;
    await setLevel1(store, { balance: 100, inflow: null, spend: 5 });
    const rows = await store.auditLog.list({ action: 'kyc.set_level', limit: 10 });
    assert.ok(rows.length >= 1);
    assert.is(JSON.parse(rows[0]!.after!).maxBalanceKobo, 100);
    assert.is(JSON.parse(rows[0]!.before!).maxBalanceKobo, 30_000_000);
  });

  test.run();
}
