/**
 * The commission an upstream states in its answer moves the cost rule in force (an observed
 * `commission_details`, docs/products.md), through the real gateway and core with the fake
 * VTpass: the rule follows the rate that explains the cost exactly, audited with actor
 * `system`; the tier price built on it moves; an answer no rate explains moves nothing and is
 * logged at warn; a sale with no rule in force creates none.
 */
import * as assert from 'uvu/assert';
import { runJson } from '../../cli/run.js';
import { startVtpassStack, type VtpassStack } from '../../helpers/fake-vtpass.js';
import type { Reply } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';

type Account = { accountId: string; publicKey: string; secretKey: string };

const test = suite<{ stack: VtpassStack; a: Account }>('commissions follow the upstream’s answers');

/** The fake's sandbox number that VTpass delivers (VTpass's documentation). */
const PHONE = '08011111111';

test.before(async (ctx) => {
  ctx.stack = await startVtpassStack({ supply: true });
  ctx.a = await ctx.stack.core.createApiAccount({ balanceKobo: 100_000_00 });
});

test.after(async ({ stack }) => {
  await stack.close();
});

function buy(stack: VtpassStack, account: Account, network: string, amount: number): Promise<Reply> {
  return stack.gateway.request({
    query: { action: 'airtime' },
    keys: { publicKey: account.publicKey, secretKey: account.secretKey },
    body: { network, phone: PHONE, amount },
  });
}

async function pricing(stack: VtpassStack, ...args: string[]): Promise<Record<string, unknown>> {
  const run = await runJson(stack.core, ['pricing', ...args]);
  assert.is(run.code, 0, run.stderr);
  return run.json;
}

/** The commission percent of each airtime rule at VTpass, by network. */
async function airtimeRules(stack: VtpassStack): Promise<Record<string, unknown>> {
  const listed = (await pricing(stack, 'costs', 'list'))['rules'] as Record<string, unknown>[];
  return Object.fromEntries(
    listed.filter((r) => r['product'] === 'airtime').map((r) => [r['service'], r['commission_percent']]),
  );
}

/** Waits (at most 10 s) for `done`: the follow runs after the purchase's answer. */
async function eventually(done: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 500 && !(await done()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The rules become `expected` once the follow has run. */
async function rulesBecome(stack: VtpassStack, expected: Record<string, unknown>): Promise<void> {
  await eventually(async () => JSON.stringify(await airtimeRules(stack)) === JSON.stringify(expected));
  assert.equal(await airtimeRules(stack), expected);
}

test('a stated commission moves the rule in force, and the tier price with it', async ({ stack, a }) => {
  // The operator believes VTpass gives 2% on MTN airtime; its answers say 3% (the fake's rate).
  await pricing(
    stack,
    'costs',
    'set',
    'airtime',
    '--network',
    'mtn',
    '--upstream',
    'vtpass',
    '--commission-percent',
    '2',
  );
  await pricing(stack, 'rule', 'api', '--product', 'airtime', '--network', 'mtn', '--margin-percent', '1');
  // Cost 980 by the rule, plus 1%: 989.80.
  const first = await buy(stack, a, 'mtn', 1000);
  assert.is(first.status, 200, first.text);
  assert.is(first.json.charged, 989.8);

  await rulesBecome(stack, { mtn: 3 });
  const audit = await stack.core.store.auditLog.list({ action: 'prices.commission', limit: 10 });
  const followed = audit.find((row) => row.actor === 'system');
  assert.ok(followed, 'the change is audited as the system’s');
  assert.is(followed.target, 'airtime/mtn/vtpass');
  assert.match(followed.note, new RegExp(`purchase ${first.json.reference as string}`));
  assert.match(followed.after ?? '', /"commissionBasisPoints":300/);
  assert.ok(stack.coreLog.some((line) => line.includes('"event":"pricing.commission_observed"')));

  // The cost is now 970: the same rule prices the next sale at 979.70.
  const second = await buy(stack, a, 'mtn', 1000);
  assert.is(second.json.charged, 979.7);
});

test('an answer no rate explains moves nothing; a sale without a rule creates none', async ({ stack, a }) => {
  // 2.5% of 333 Naira is 8.325: VTpass rounds it to 8.33, which no whole hundredth of a
  // percent gives when rounded down as our rules round. The rule stays.
  stack.fake.commissions.set('mtn', 2.5);
  await pricing(
    stack,
    'costs',
    'set',
    'airtime',
    '--network',
    'mtn',
    '--upstream',
    'vtpass',
    '--commission-percent',
    '3',
  );
  const warnsBefore = stack.coreLog.filter((l) => l.includes('"event":"pricing.commission_unexplained"')).length;
  const odd = await buy(stack, a, 'mtn', 333);
  assert.is(odd.status, 200, odd.text);
  const unexplained = () => stack.coreLog.filter((l) => l.includes('"event":"pricing.commission_unexplained"'));
  await eventually(() => unexplained().length > warnsBefore);
  const warned = unexplained().at(-1) ?? '';
  assert.match(warned, /"level":"warn"/);
  assert.match(warned, new RegExp(`"reference":"${odd.json.reference as string}"`));
  assert.equal(await airtimeRules(stack), { mtn: 3 });

  // Glo has no rule: its sale states 3% and no rule appears. An MTN sale after it, whose
  // stated 4% does move MTN's rule, shows the follows after the Glo sale have run.
  const glo = await buy(stack, a, 'glo', 1000);
  assert.is(glo.status, 200, glo.text);
  stack.fake.commissions.set('mtn', 4);
  assert.is((await buy(stack, a, 'mtn', 1000)).status, 200);
  await rulesBecome(stack, { mtn: 4 });
});

test.run();
