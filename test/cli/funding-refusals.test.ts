/**
 * A provider's refusal to open a wallet's account, shown where the holder and the operator look
 *: against a real core with the fake Monnify and the fake Paystack, `prepaid funding
 * open` when Monnify refuses the BVN (its reason echoing the number) and Paystack opens; then
 * `prepaid funding accounts` says which provider refused, when, its reason without the number,
 * and what to do; when every provider refuses, `open` is a field error naming the provider. A
 * Paystack identification refused later (its signed event) is shown the same way. Giving the
 * identity again once Monnify accepts it opens the account and the refusal is no longer shown.
 * The BVN is in no output, no log line and no audit row.
 */
import * as assert from 'uvu/assert';
import { createMonnifyFunding } from '../../core/funding/monnify.js';
import { createPaystackFunding } from '../../core/funding/paystack.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type FakeMonnify, startFakeMonnify } from '../helpers/fake-monnify.js';
import { type FakePaystack, startFakePaystack } from '../helpers/fake-paystack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  monnify: FakeMonnify;
  paystack: FakePaystack;
  logged: string[];
}

const test = suite<State>('prepaid funding: providers refusing to open', { logged: [] } as unknown as State);

const BVN = '22345678901';

test.before(async (state) => {
  state.logged = [];
  state.monnify = await startFakeMonnify();
  state.paystack = await startFakePaystack();
  state.core = await startCore({
    funding: {
      providers: [
        createMonnifyFunding({
          apiKey: state.monnify.apiKey,
          secretKey: state.monnify.secretKey,
          contractCode: state.monnify.contractCode,
          baseUrl: state.monnify.url,
        }),
        createPaystackFunding({
          secretKey: state.paystack.secretKey,
          baseUrl: state.paystack.url,
          preferredBank: 'test-bank',
        }),
      ],
    },
    log: (event, fields) => state.logged.push(JSON.stringify({ event, ...fields })),
  });
  state.gateway = await startTestGateway(state.core);
});
test.after(async (state) => {
  await state.gateway.close();
  await state.core.close();
  await state.monnify.stop();
  await state.paystack.stop();
});

function open(accountId: string, extra: string[] = []): string[] {
  return [
    'funding',
    'open',
    accountId,
    '--bvn',
    BVN,
    '--first-name',
    'Ada',
    '--last-name',
    'Obi',
    '--phone',
    '08031234567',
    '--email',
    `${accountId}@example.com`,
    ...extra,
  ];
}

interface RefusalJson {
  provider: string;
  at: string;
  step: string;
  reason: string;
}

async function assertBvnNowhere(state: State, accountId: string, printed: string[]): Promise<void> {
  for (const text of printed) assert.not.ok(text.includes(BVN), `printed: ${text}`);
  assert.not.ok(state.logged.join('\n').includes(BVN), 'the BVN is in a log line');
  const audit = await state.core.store.auditLog.list({ target: accountId, limit: 50 });
  assert.not.ok(JSON.stringify(audit).includes(BVN), 'the BVN is in the audit log');
}

test('Monnify refuses a BVN, Paystack opens: `funding accounts` names Monnify, when, why, what now', async (state) => {
  const { accountId } = await state.core.createApiAccount();
  state.monnify.refuseIdentity(BVN, `BVN ${BVN} could not be validated with the customer name`);
  const before = Date.now();
  const opened = await runJson(state.core, open(accountId));
  assert.is(opened.code, 0, opened.stderr);
  const json = opened.json as { accounts: { provider: string }[]; refused: RefusalJson[] };
  assert.equal(
    json.accounts.map((a) => a.provider),
    ['paystack'],
  );
  assert.equal(
    json.refused.map((r) => [r.provider, r.step]),
    [['monnify', 'open']],
  );
  assert.match(json.refused[0]!.reason, 'could not be validated with the customer name');
  assert.match(json.refused[0]!.reason, '[number withheld]');

  const listed = await runJson(state.core, ['funding', 'accounts', accountId]);
  const refusals = (listed.json as { refusals: RefusalJson[] }).refusals;
  assert.equal(
    refusals.map((r) => [r.provider, r.step]),
    [['monnify', 'open']],
  );
  assert.ok(Date.parse(refusals[0]!.at) >= before - 1000 && Date.parse(refusals[0]!.at) <= Date.now() + 1000);
  const text = await runAgainst(state.core, ['funding', 'accounts', accountId]);
  assert.is(text.code, 0, text.stderr);
  assert.match(text.stdout, /Refused: monnify refused the identity at \d{4}-\d\d-\d\dT/);
  assert.match(text.stdout, 'could not be validated with the customer name');
  assert.match(text.stdout, `Give the identity again: \`prepaid funding open ${accountId} --bvn ...\``);
  await assertBvnNowhere(state, accountId, [opened.stdout, opened.stderr, listed.stdout, text.stdout]);

  // Accepted on a second try: only Monnify is asked again, and the refusal is gone.
  state.monnify.refuseIdentity(BVN, null);
  const again = await runJson(state.core, open(accountId));
  assert.is(again.code, 0, again.stderr);
  const providers = (again.json as { accounts: { provider: string }[] }).accounts.map((a) => a.provider).sort();
  assert.ok(providers.includes('monnify') && providers.includes('paystack'));
  const after = await runJson(state.core, ['funding', 'accounts', accountId]);
  assert.equal((after.json as { refusals: RefusalJson[] }).refusals, []);
  assert.not.match((await runAgainst(state.core, ['funding', 'accounts', accountId])).stdout, 'Refused');
});

test('every provider refusing is a field error naming them; `funding accounts` keeps both', async (state) => {
  const { accountId } = await state.core.createApiAccount();
  // Paystack's dedicated accounts need a BVN: a NIN is refused by its adapter at once.
  const nin = open(accountId).map((a) => (a === '--bvn' ? '--nin' : a));
  state.monnify.refuseIdentity(BVN, 'NIN supplied does not match the customer name');
  const run = await runAgainst(state.core, nin);
  assert.is.not(run.code, 0);
  assert.match(run.stderr, 'Monnify refused the NIN');
  assert.match(run.stderr, 'Paystack dedicated accounts need a BVN');
  const listed = await runJson(state.core, ['funding', 'accounts', accountId]);
  assert.equal((listed.json as { refusals: RefusalJson[] }).refusals.map((r) => r.provider).sort(), [
    'monnify',
    'paystack',
  ]);
  state.monnify.refuseIdentity(BVN, null);
  await assertBvnNowhere(state, accountId, [run.stdout, run.stderr, listed.stdout]);
});

test("Paystack's identification refused later is shown the same way, with its step", async (state) => {
  const { accountId } = await state.core.createApiAccount();
  const opened = await runJson(state.core, open(accountId, ['--bank-code', '007', '--bank-account', '0123456789']));
  assert.is(opened.code, 0, opened.stderr);
  assert.match((opened.json as { pending: string[] }).pending.join(' '), 'paystack');
  const code = state.paystack.customerCodes().at(-1)!;
  const event = state.paystack.identify(code, false, `Account number or BVN ${BVN} is incorrect`);
  const response = await fetch(`http://127.0.0.1:${state.gateway.port}/callbacks/paystack`, {
    method: 'POST',
    body: event.body,
    headers: { 'Content-Type': 'application/json', 'x-paystack-signature': event.signature },
  });
  assert.is(response.status, 200);
  const listed = await runJson(state.core, ['funding', 'accounts', accountId]);
  const refusals = (listed.json as { refusals: RefusalJson[] }).refusals;
  assert.equal(
    refusals.map((r) => [r.provider, r.step, r.reason]),
    [['paystack', 'identification', 'Account number or BVN [number withheld] is incorrect']],
  );
  const text = (await runAgainst(state.core, ['funding', 'accounts', accountId])).stdout;
  assert.match(text, 'Refused: paystack refused the identification at');
  await assertBvnNowhere(state, accountId, [listed.stdout, text]);
});

test.run();
