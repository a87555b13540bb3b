/**
 * Page RPCs take a turn of the event loop each (core/rpc/turns.ts): the waiting calls go in
 * the order they came, one per turn, and pages asked for all at once, beside purchases, still
 * all answer, each with the right page.
 */
import * as assert from 'uvu/assert';
import { ownTurn } from '../../../core/rpc/turns.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';

const test = suite('core rpc: a turn of its own for each page');

let core!: TestCore;
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

test('callers go in the order they came, each in a turn of the event loop no other shares', async () => {
  // A counter of turns: one immediate after another, each in the next turn.
  let turn = 0;
  let counting = true;
  const count = () => {
    turn += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  const seen: { caller: number; turn: number }[] = [];
  await Promise.all([1, 2, 3, 4].map((caller) => ownTurn().then(() => seen.push({ caller, turn }))));
  counting = false;
  assert.equal(
    seen.map((s) => s.caller),
    [1, 2, 3, 4],
  );
  const turns = seen.map((s) => s.turn);
  assert.is(new Set(turns).size, 4, `four callers in four turns, not ${turns.join(', ')}`);
});

test('pages asked for all at once, beside purchases, all answer with the right page', async () => {
  const accountId = (await core.createApiAccount({ balanceKobo: 1_000_000_00 })).accountId;
  for (let i = 0; i < 5; i += 1)
    await core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 100_00n });
  const expected = (await core.purchase.listTransactions({ accountId, pageSize: 3 })).transactions.map(
    (t) => t.reference,
  );
  assert.is(expected.length, 3);

  const pages = Array.from({ length: 20 }, () => core.purchase.listTransactions({ accountId, pageSize: 3 }));
  const purchases = Array.from({ length: 5 }, () =>
    core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 100_00n }),
  );
  const [answered, bought] = await Promise.all([Promise.all(pages), Promise.all(purchases)]);
  assert.is(bought.length, 5);
  for (const page of answered) {
    assert.is(page.transactions.length, 3);
    // A page is the newest three at the time it was read: the purchases beside it may come first.
    const references = page.transactions.map((t) => t.reference);
    const known = new Set([...expected, ...bought.map((b) => b.transaction!.reference)]);
    for (const reference of references)
      assert.ok(known.has(reference), `${reference} is one of the account's transactions`);
    assert.ok(page.nextPageToken !== '', 'more pages follow');
  }
  const after = await core.purchase.listTransactions({ accountId, pageSize: 100 });
  assert.is(after.transactions.length, 10);
});

test.run();
