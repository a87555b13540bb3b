/**
 * Test mode over the real gateway and core: a test key pair acts on the account's test
 * wallet, sees only test purchases, has its own idempotency scope, and is always served by
 * the sandbox, even for a family routed to VTpass (here a fake VTpass on port 0, which must
 * never see a test purchase). The live wallet and its ledger do not move by a kobo.
 */
import * as assert from 'uvu/assert';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { ledgerOf } from '../helpers/core.js';
import { startVtpassStack, type VtpassStack } from '../helpers/fake-vtpass.js';
import type { ApiKeys } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

interface World {
  stack: VtpassStack;
  accountId: string;
  live: ApiKeys;
  test: ApiKeys;
}

/** An API account with ₦1,000 live and ₦500 of test money, and a key pair of each mode. */
async function world(stack: VtpassStack): Promise<World> {
  const created = await stack.core.createApiAccount({ balanceKobo: 100_000 });
  const issued = await stack.core.admin.createApiKey({ accountId: created.accountId, mode: Mode.TEST });
  const key = issued.issuedKey!;
  await stack.core.admin.creditWallet({
    accountId: created.accountId,
    amountKobo: 50_000n,
    memo: 'test money',
    mode: Mode.TEST,
  });
  return {
    stack,
    accountId: created.accountId,
    live: { publicKey: created.publicKey, secretKey: created.secretKey },
    test: key,
  };
}

/**
 * 08011111111 is a number VTpass's sandbox (and so the fake) delivers to; the platform's sandbox delivers to it too.
 */
const airtime = (phone: string, extra: Record<string, unknown> = {}) => ({
  network: 'mtn',
  phone,
  amount: 100,
  ...extra,
});

const test = suite('gateway: test mode');
let stack: VtpassStack;

test.before(async () => {
  // Airtime goes to VTpass (the fake); a live purchase reaches it, a test one never does.
  stack = await startVtpassStack({
    routing: { data: 'sandbox', electricity: 'sandbox', cable: 'sandbox', bulksms: 'sandbox' },
  });
});
test.after(async () => {
  await stack.close();
});

test('a test pair is issued as pk_test_/sk_test_ with its mode; the balance says which wallet it reads', async () => {
  const w = await world(stack);
  assert.match(w.test.publicKey, /^pk_test_[0-9a-f]{24}$/);
  assert.match(w.test.secretKey, /^sk_test_/);
  assert.match(w.live.publicKey, /^pk_[0-9a-f]{24}$/, 'live keys keep the specification shape');
  const keys = (await stack.core.admin.listApiKeys({ accountId: w.accountId })).keys;
  assert.equal(new Set(keys.map((k) => k.mode)), new Set([Mode.LIVE, Mode.TEST]));
  const testBalance = await stack.gateway.request({ query: { action: 'balance' }, keys: w.test });
  assert.is(testBalance.status, 200);
  assert.equal(testBalance.json, { status: 'success', balance: 500, tier: 'API Client', mode: 'test' });
  const liveBalance = await stack.gateway.request({ query: { action: 'balance' }, keys: w.live });
  assert.equal(liveBalance.json, { status: 'success', balance: 1000, tier: 'API Client', mode: 'live' });
});

test('a VTpass-routed test purchase is served by the sandbox, debits the test wallet; VTpass sees none', async () => {
  const w = await world(stack);
  const liveLedgerBefore = await ledgerOf(stack.core, w.accountId);
  const vtpassCallsBefore = stack.fake.calls.length;
  const sandboxBefore = stack.core.sandbox.purchases.length;

  const bought = await stack.gateway.request({
    query: { action: 'airtime' },
    keys: w.test,
    body: airtime('08011111111'),
  });
  assert.is(bought.status, 200);
  assert.is(bought.json.status, 'success');
  assert.is(bought.json.balance, 500 - bought.json.charged, 'the answer shows the test balance');
  assert.is(stack.fake.calls.length, vtpassCallsBefore, 'the fake VTpass received no request at all');
  assert.is(stack.core.sandbox.purchases.length, sandboxBefore + 1);
  assert.is(stack.core.sandbox.purchases.at(-1)!.reference, bought.json.reference);

  const account = (await stack.core.admin.getAccount({ accountId: w.accountId })).account!;
  assert.is(account.balanceKobo, 100_000n, 'the live balance is unchanged to the kobo');
  assert.is(account.testBalanceKobo, 50_000n - BigInt(Math.round(bought.json.charged * 100)));
  assert.equal(await ledgerOf(stack.core, w.accountId), liveLedgerBefore, 'the live ledger is unchanged');
  const testLedger = (await stack.core.admin.listLedgerEntries({ accountId: w.accountId, mode: Mode.TEST })).entries;
  assert.equal(
    testLedger.map((e) => [e.kind, e.reference, e.mode]),
    [
      ['debit', bought.json.reference, Mode.TEST],
      ['credit', testLedger[1]!.reference, Mode.TEST],
    ],
  );

  // The same purchase with the live pair reaches the fake.
  const live = await stack.gateway.request({
    query: { action: 'airtime' },
    keys: w.live,
    body: airtime('08011111111'),
  });
  assert.is(live.status, 200);
  assert.ok(stack.fake.calls.length > vtpassCallsBefore, 'the live purchase reached VTpass');
  assert.ok(stack.fake.paysFor('08011111111').some((call) => call.body?.['request_id'] === live.json.reference));
});

test("a test purchase's sandbox outcomes behave as documented: 9999 fails and refunds the test wallet", async () => {
  const w = await world(stack);
  const failed = await stack.gateway.request({
    query: { action: 'airtime' },
    keys: w.test,
    body: airtime('08031119999'),
  });
  assert.is(failed.status, 502);
  assert.is(failed.json.code, 'PROVIDER_FAILED');
  const balance = await stack.gateway.request({ query: { action: 'balance' }, keys: w.test });
  assert.is(balance.json.balance, 500, 'refunded in full to the test wallet');
  const account = (await stack.core.admin.getAccount({ accountId: w.accountId })).account!;
  assert.is(account.balanceKobo, 100_000n);
});

test("history and requery never cross modes: another mode's reference is 404; transactions say livemode", async () => {
  const w = await world(stack);
  const inTest = await stack.gateway.request({
    query: { action: 'airtime' },
    keys: w.test,
    body: airtime('08011111111'),
  });
  const inLive = await stack.gateway.request({
    query: { action: 'airtime' },
    keys: w.live,
    body: airtime('08011111111'),
  });
  assert.is(inTest.status, 200);
  assert.is(inLive.status, 200);

  const own = await stack.gateway.request({
    query: { action: 'transaction', reference: inTest.json.reference },
    keys: w.test,
  });
  assert.is(own.status, 200);
  assert.is(own.json.transaction.livemode, false);
  const ownLive = await stack.gateway.request({
    query: { action: 'transaction', reference: inLive.json.reference },
    keys: w.live,
  });
  assert.is(ownLive.json.transaction.livemode, true);

  const crossed = await stack.gateway.request({
    query: { action: 'transaction', reference: inLive.json.reference },
    keys: w.test,
  });
  assert.is(crossed.status, 404, 'a live reference is not found with a test key');
  const reverse = await stack.gateway.request({
    query: { action: 'transaction', reference: inTest.json.reference },
    keys: w.live,
  });
  assert.is(reverse.status, 404, 'a test reference is not found with a live key');

  const testHistory = await stack.gateway.request({ query: { action: 'transactions' }, keys: w.test });
  assert.equal(
    testHistory.json.transactions.map((t: { reference: string; livemode: boolean }) => [t.reference, t.livemode]),
    [[inTest.json.reference, false]],
  );
  const liveHistory = await stack.gateway.request({ query: { action: 'transactions' }, keys: w.live });
  assert.equal(
    liveHistory.json.transactions.map((t: { reference: string; livemode: boolean }) => [t.reference, t.livemode]),
    [[inLive.json.reference, true]],
  );
});

test('the same idempotency key in both modes makes two separate purchases, each replayed in its own mode', async () => {
  const w = await world(stack);
  const body = airtime('08011111111', { request_id: 'order-77' });
  const inTest = await stack.gateway.request({ query: { action: 'airtime' }, keys: w.test, body });
  const inLive = await stack.gateway.request({ query: { action: 'airtime' }, keys: w.live, body });
  assert.is(inTest.status, 200);
  assert.is(inLive.status, 200);
  assert.is.not(inTest.json.reference, inLive.json.reference);
  assert.is(inLive.headers['idempotent-replayed'], undefined, 'the live purchase is new, not a replay of the test one');

  const replayTest = await stack.gateway.request({ query: { action: 'airtime' }, keys: w.test, body });
  assert.is(replayTest.json.reference, inTest.json.reference);
  assert.is(replayTest.headers['idempotent-replayed'], 'true');
  const replayLive = await stack.gateway.request({ query: { action: 'airtime' }, keys: w.live, body });
  assert.is(replayLive.json.reference, inLive.json.reference);

  const account = (await stack.core.admin.getAccount({ accountId: w.accountId })).account!;
  const charged = BigInt(Math.round(inTest.json.charged * 100));
  assert.is(account.balanceKobo, 100_000n - charged, 'one live debit');
  assert.is(account.testBalanceKobo, 50_000n - charged, 'one test debit');
});

test('a test key has its own per-key quota', async () => {
  const w = await world(stack);
  const remaining = (reply: { headers: Record<string, unknown> }) =>
    Number(/;r=(\d+);/.exec(String(reply.headers['ratelimit']))?.[1]);
  const first = await stack.gateway.request({ query: { action: 'balance' }, keys: w.live });
  const second = await stack.gateway.request({ query: { action: 'balance' }, keys: w.live });
  assert.is(remaining(second), remaining(first) - 1);
  const testFirst = await stack.gateway.request({ query: { action: 'balance' }, keys: w.test });
  // The test key's first request starts from a full quota, however much the live key used.
  assert.is(remaining(testFirst), remaining(first));
});

test('the ledger audit passes and reports both modes apart', async () => {
  await world(stack);
  const report = await stack.core.admin.checkLedger({});
  assert.is(report.violationCount, 0n);
  assert.equal(
    report.modes.map((m) => m.mode),
    [Mode.LIVE, Mode.TEST],
  );
  const live = report.modes[0]!;
  const testMode = report.modes[1]!;
  assert.ok(testMode.transactionsChecked > 0n, 'test purchases were checked');
  assert.ok(testMode.entriesChecked > 0n);
  assert.is(live.transactionsChecked + testMode.transactionsChecked, report.transactionsChecked);
  assert.is(live.entriesChecked + testMode.entriesChecked, report.entriesChecked);
});

test.run();
