/**
 * `prepaid ledger check` and `prepaid pending list` against a real core: the checker passes
 * on honest books, exits 1 with the violation when the books were changed behind the
 * core's back, and the pending list shows unknown outcomes until recovery settles them.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import * as assert from 'uvu/assert';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite('cli: ledger check and pending list');
let core: TestCore;

test.before.each(async () => {
  core = await startCore();
});
test.after.each(async () => {
  await core.close();
});

test('honest books pass the check with exit 0, after purchases, failures and refunds', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 500_000 });
  await core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n });
  await core.purchase
    .buyAirtime({ accountId, network: 'mtn', phone: '08031239999', amountKobo: 10_000n })
    .catch(() => undefined);
  const run = await runJson(core, ['ledger', 'check']);
  assert.is(run.code, 0, run.stderr);
  assert.is(run.json['ok'], true);
  assert.is(run.json['violation_count'], 0);
  assert.is(run.json['transactions_checked'], 2);
  assert.ok((run.json['entries_checked'] as number) >= 4, 'credit, two debits and a refund were read');
  const text = await runAgainst(core, ['ledger', 'check']);
  assert.match(text.stdout, /no violation/);
});

test('a balance changed behind the core fails the check with exit 1 and names the account', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 500_000 });
  const db = new Database(path.join(core.dataDir, 'prepaid.sqlite'));
  try {
    db.prepare('UPDATE accounts SET balance_kobo = balance_kobo + 100 WHERE account_id = ?').run(accountId);
  } finally {
    db.close();
  }
  const run = await runJson(core, ['ledger', 'check']);
  assert.is(run.code, 1);
  assert.is(run.json['ok'], false);
  // Found twice: against the wallet's entries, and against its postings in the books.
  assert.is(run.json['violation_count'], 2);
  const violations = run.json['violations'] as Array<Record<string, string>>;
  assert.equal(violations.map((v) => v['kind']).sort(), ['balance_mismatch', 'wallet_books_mismatch']);
  assert.ok(violations.every((v) => v['account_id'] === accountId));
  const text = await runAgainst(core, ['ledger', 'check']);
  assert.is(text.code, 1);
  assert.match(text.stdout, /balance_mismatch/);
});

test('pending list shows an unknown outcome until recovery settles it', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 500_000 });
  const { transaction } = await core.purchase.buyAirtime({
    accountId,
    network: 'glo',
    phone: '08031238888',
    amountKobo: 10_000n,
  });
  const before = await runJson(core, ['pending', 'list']);
  assert.is(before.code, 0);
  const listed = before.json['transactions'] as Array<Record<string, unknown>>;
  assert.equal(
    listed.map((t) => t['reference']),
    [transaction!.reference],
  );
  assert.is(listed[0]!['needs_attention'], false);
  const attention = await runJson(core, ['pending', 'list', '--attention', 'yes']);
  assert.equal(attention.json['transactions'], [], 'nothing is past the deadline yet');
  const check = await runJson(core, ['ledger', 'check']);
  assert.is(check.json['pending'], 1);

  await core.recoverNow();
  const after = await runJson(core, ['pending', 'list']);
  assert.equal(after.json['transactions'], []);
  assert.match((await runAgainst(core, ['pending', 'list'])).stdout, /No pending purchases/);
});

test('the check and the pending list say the mode: test money is reported apart from live', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 500_000 });
  await core.admin.creditWallet({ accountId, amountKobo: 200_000n, memo: 'test money', mode: Mode.TEST });
  await core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n });
  const pendingTest = await core.purchase.buyAirtime({
    accountId,
    network: 'glo',
    phone: '08031238888',
    amountKobo: 10_000n,
    mode: Mode.TEST,
  });
  await core.purchase
    .buyAirtime({ accountId, network: 'mtn', phone: '08031239999', amountKobo: 10_000n, mode: Mode.TEST })
    .catch(() => undefined);

  const run = await runJson(core, ['ledger', 'check']);
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.json['modes'], {
    // live: one credit and one debit; test: a credit, two debits and the refund of the failed one.
    live: { transactions_checked: 1, entries_checked: 2, pending: 0, needs_attention: 0, violation_count: 0 },
    test: { transactions_checked: 2, entries_checked: 4, pending: 1, needs_attention: 0, violation_count: 0 },
  });
  const text = await runAgainst(core, ['ledger', 'check']);
  assert.match(text.stdout, /live: 1 transactions, 2 ledger entries, 0 pending/);
  assert.match(text.stdout, /test: 2 transactions, 4 ledger entries, 1 pending/);

  const pending = await runJson(core, ['pending', 'list']);
  const [listed] = pending.json['transactions'] as Array<Record<string, unknown>>;
  assert.equal(
    [listed!['reference'], listed!['mode'], listed!['livemode']],
    [pendingTest.transaction!.reference, 'test', false],
  );
  assert.match(
    (await runAgainst(core, ['pending', 'list'])).stdout,
    new RegExp(`${pendingTest.transaction!.reference}.*\\btest\\b`),
  );
});

test('pending list refuses a bad --limit or --attention before calling the core', async () => {
  assert.is((await runAgainst(core, ['pending', 'list', '--limit', '0'])).code, 2);
  assert.is((await runAgainst(core, ['pending', 'list', '--attention', 'maybe'])).code, 2);
});

test.run();
