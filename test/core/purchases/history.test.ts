/**
 * Transaction history and lookup: newest first, cursor pages of bounded size, and an account
 * never sees another account's transactions.
 */

import { timestampMs } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from '../rpc/support.js';

let core!: TestCore;

const test = suite('transaction history');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

/** Makes `count` airtime purchases a few milliseconds apart; returns their references, oldest first. */
async function purchases(accountId: string, count: number): Promise<string[]> {
  const references: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const { transaction } = await core.purchase.buyAirtime({
      accountId,
      network: 'mtn',
      phone: '08031234567',
      amountKobo: BigInt(50_00 + i * 100),
    });
    references.push(transaction!.reference);
    // Distinct creation times, so "newest first" has one right answer.
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  return references;
}

test('pages of two walk every purchase once, newest first, and the last page has no cursor', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
  const made = await purchases(accountId, 5);
  const pages: string[][] = [];
  const times: number[] = [];
  let pageToken = '';
  do {
    const page = await core.purchase.listTransactions({ accountId, pageSize: 2, pageToken });
    pages.push(page.transactions.map((t) => t.reference));
    times.push(...page.transactions.map((t) => timestampMs(t.createdAt!)));
    pageToken = page.nextPageToken;
  } while (pageToken && pages.length < 10);
  assert.equal(
    pages.map((p) => p.length),
    [2, 2, 1],
  );
  assert.equal(pages.flat(), [...made].reverse());
  assert.ok(
    times.every((t, i) => i === 0 || t <= times[i - 1]!),
    'created_at never increases down the list',
  );
  await assertLedgerInvariant(core, accountId);
});

test('page size 0 means 20, and a next cursor is given when more remain', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_000_00 });
  const made = await purchases(accountId, 21);
  const first = await core.purchase.listTransactions({ accountId });
  assert.is(first.transactions.length, 20);
  assert.ok(first.nextPageToken !== '');
  const second = await core.purchase.listTransactions({ accountId, pageToken: first.nextPageToken });
  assert.equal(
    second.transactions.map((t) => t.reference),
    [made[0]],
  );
  assert.is(second.nextPageToken, '');
});

test('page size 100 is allowed', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 1_000_00 });
  await purchases(accountId, 2);
  assert.is((await core.purchase.listTransactions({ accountId, pageSize: 100 })).transactions.length, 2);
});

for (const pageSize of [101, -1, 1_000_000]) {
  test(`page size ${pageSize} is INVALID_ARGUMENT on "limit"`, async () => {
    const { accountId } = await core.createApiAccount();
    const refused = await rejection(core.purchase.listTransactions({ accountId, pageSize }));
    assert.is(refused.code, Code.InvalidArgument);
    assert.is(refused.reason, 'INVALID_PARAMETER');
    assert.equal(
      refused.violations.map((v) => v.field),
      ['limit'],
    );
  });
}

for (const pageToken of ['garbage', 'eyJ4IjoxfQ', '%%%']) {
  test(`a cursor the core did not issue ("${pageToken}") is INVALID_ARGUMENT on "cursor"`, async () => {
    const { accountId } = await core.createApiAccount();
    const refused = await rejection(core.purchase.listTransactions({ accountId, pageToken }));
    assert.is(refused.code, Code.InvalidArgument);
    assert.equal(
      refused.violations.map((v) => v.field),
      ['cursor'],
    );
  });
}

test('an account sees only its own transactions', async () => {
  const a = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const b = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const [fromA] = await purchases(a.accountId, 1);
  const [fromB] = await purchases(b.accountId, 1);
  assert.equal(
    (await core.purchase.listTransactions({ accountId: a.accountId })).transactions.map((t) => t.reference),
    [fromA],
  );
  assert.equal(
    (await core.purchase.listTransactions({ accountId: b.accountId })).transactions.map((t) => t.reference),
    [fromB],
  );
});

test("another account's reference is NOT_FOUND, exactly like a reference that does not exist", async () => {
  const owner = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const stranger = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const [reference] = await purchases(owner.accountId, 1);
  const foreign = await rejection(
    core.purchase.getTransaction({ accountId: stranger.accountId, reference: reference! }),
  );
  assert.is(foreign.code, Code.NotFound);
  assert.is(foreign.reason, 'NOT_FOUND');
  const unknown = await rejection(
    core.purchase.getTransaction({ accountId: stranger.accountId, reference: '202601010000AAAAAAAAAA' }),
  );
  assert.is(unknown.code, Code.NotFound);
  assert.is(foreign.message.replace(reference!, 'REF'), unknown.message.replace('202601010000AAAAAAAAAA', 'REF'));
  assert.is(
    (await core.purchase.getTransaction({ accountId: owner.accountId, reference: reference! })).transaction!.reference,
    reference,
  );
});

test('the history of an account that does not exist is NOT_FOUND', async () => {
  assert.is(
    (await rejection(core.purchase.listTransactions({ accountId: 'acc_ffffffffffffffff' }))).code,
    Code.NotFound,
  );
});

test('an empty reference is NOT_FOUND', async () => {
  const { accountId } = await core.createApiAccount();
  assert.is((await rejection(core.purchase.getTransaction({ accountId, reference: '' }))).code, Code.NotFound);
});

test.run();
