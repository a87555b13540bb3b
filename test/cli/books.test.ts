/**
 * `prepaid books trial-balance`, `prepaid upstreams fund` and `prepaid books settle` against a
 * real core: after a purchase the trial balance shows the wallet, the sale and its cost with
 * debits equal to credits; a top-up moves the float against the bank, a settlement the bank
 * against a provider's clearing and fees; a replay books nothing, another amount under the
 * same reference is refused, and a bad amount or reference is a usage error. Under
 * CLI_MONEY_MOVES=proposals both are four-eyes proposals, booked once a colleague approves;
 * `books findings` lists the reconciliation's findings and resolves one.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { DEFAULT_FOUR_EYES_COOLING_MS } from '../../core/domain/staff.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { consoleClients, signedInStaff, signInAgain, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite('cli: the books');
let core: TestCore;

test.before.each(async () => {
  core = await startCore();
});
test.after.each(async () => {
  await core.close();
});

interface Line {
  account: string;
  kind: string;
  debit_kobo: number;
  credit_kobo: number;
}
interface OfMode {
  mode: string;
  accounts: Line[];
  debit_total_kobo: number;
  credit_total_kobo: number;
}

async function trialBalance(argv: string[] = []): Promise<{ live: OfMode; test: OfMode }> {
  const run = await runJson(core, ['books', 'trial-balance', ...argv]);
  assert.is(run.code, 0, run.stderr);
  const modes = run.json['modes'] as OfMode[];
  assert.equal(
    modes.map((m) => m.mode),
    ['live', 'test'],
  );
  return { live: modes[0]!, test: modes[1]! };
}

/** An account's signed balance in one mode (debit positive), 0 when it has none. */
function balanceOf(of: OfMode, account: string): number {
  const line = of.accounts.find((l) => l.account === account);
  return line === undefined ? 0 : line.debit_kobo - line.credit_kobo;
}

test('after a purchase the trial balance shows the wallet, the sale and its cost, and debits equal credits', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 500_000 });
  await core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n });
  // The sandbox gives no answer for a number ending in 8888: the purchase stays pending, its charge held.
  await core.purchase.buyAirtime({ accountId, network: 'glo', phone: '08031238888', amountKobo: 20_000n });
  const { live, test: testMode } = await trialBalance();
  assert.is(live.debit_total_kobo, live.credit_total_kobo);
  assert.ok(live.debit_total_kobo > 0);
  const wallet = live.accounts.find((l) => l.account === `wallet:${accountId}`);
  assert.ok(wallet, JSON.stringify(live.accounts));
  assert.is(wallet.kind, 'liability');
  assert.is(wallet.debit_kobo, 0);
  const charged = 500_000 - wallet.credit_kobo;
  assert.ok(charged > 0, 'the purchase was charged');
  const revenue = -balanceOf(live, 'revenue:sales') - balanceOf(live, 'revenue:sales_cost_unknown');
  const held = -balanceOf(live, 'held:purchases');
  assert.ok(revenue > 0 && revenue < 10_000, 'the delivered charge (less the tier discount) is revenue');
  assert.ok(held > revenue, 'the pending charge is held');
  assert.is(revenue + held, charged, 'every kobo charged is revenue or held');
  assert.is(balanceOf(live, 'adjustments:manual'), 500_000);
  assert.equal(testMode.accounts, []);
  const sorted = live.accounts.map((l) => l.account);
  assert.equal(sorted, [...sorted].sort());

  const text = await runAgainst(core, ['books', 'trial-balance']);
  assert.is(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    new RegExp(
      `wallet:${accountId}\\s+liability\\s+\\s+${(wallet.credit_kobo / 100).toLocaleString('en-NG')}\\.\\d\\d`,
    ),
  );
  assert.match(text.stdout, /Debits equal credits\./);
  assert.match(text.stdout, /5,000\.00/);
});

test('--at is the end of that Lagos day: a day before anything was booked shows empty books', async () => {
  await core.createApiAccount({ balanceKobo: 500_000 });
  const run = await runJson(core, ['books', 'trial-balance', '--at', '2020-01-31']);
  assert.is(run.code, 0, run.stderr);
  assert.is(run.json['until'], '2020-01-31T23:00:00.000Z');
  const modes = run.json['modes'] as OfMode[];
  assert.equal(modes[0]!.accounts, []);
  const today = await trialBalance();
  assert.is(balanceOf(today.live, 'adjustments:manual'), 500_000);
  const bad = await runAgainst(core, ['books', 'trial-balance', '--at', '31/01/2020']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /YYYY-MM-DD/);
  const impossible = await runAgainst(core, ['books', 'trial-balance', '--at', '2020-02-31']);
  assert.is(impossible.code, 1);
  assert.match(impossible.stderr, /YYYY-MM-DD/);
});

test('upstreams fund moves the float against the bank, once per reference', async () => {
  const funded = await runJson(core, ['upstreams', 'fund', 'sandbox', '25000.50', '--reference', 'BANK-TOPUP-1']);
  assert.is(funded.code, 0, funded.stderr);
  assert.is(funded.json['kind'], 'upstream_funded');
  assert.is(funded.json['replayed'], false);
  const { live } = await trialBalance();
  assert.is(balanceOf(live, 'upstream:sandbox:float'), 2_500_050);
  assert.is(balanceOf(live, 'world:bank'), -2_500_050);
  assert.is(live.accounts.find((l) => l.account === 'upstream:sandbox:float')?.kind, 'asset');

  const again = await runAgainst(core, ['upstreams', 'fund', 'sandbox', '25000.50', '--reference', 'BANK-TOPUP-1']);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /Already booked/);
  assert.is(balanceOf((await trialBalance()).live, 'upstream:sandbox:float'), 2_500_050, 'the replay booked nothing');

  const other = await runAgainst(core, ['upstreams', 'fund', 'sandbox', '100', '--reference', 'BANK-TOPUP-1']);
  assert.is(other.code, 1);
  assert.match(other.stderr, /BANK-TOPUP-1 already booked 2500050 kobo/);

  const unknown = await runAgainst(core, ['upstreams', 'fund', 'nowhere', '100', '--reference', 'BANK-TOPUP-2']);
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /upstream must be one of the configured upstreams: sandbox/);

  const audit = await core.store.auditLog.list({ limit: 10, action: 'books.fund_upstream' });
  assert.is(audit.length, 1, 'one audit row, written with the entry');
  assert.is(audit[0]!.actor, 'cli');
  assert.is(audit[0]!.target, 'BANK-TOPUP-1');
});

test('books settle moves the bank and the fees against the provider’s clearing', async () => {
  const settled = await runJson(core, ['books', 'settle', 'paystack', '9850', '--fee', '150', '--reference', 'STL-1']);
  assert.is(settled.code, 0, settled.stderr);
  assert.is(settled.json['kind'], 'provider_settled');
  const { live } = await trialBalance();
  assert.is(balanceOf(live, 'world:bank'), 985_000);
  assert.is(balanceOf(live, 'funding:paystack:fees'), 15_000);
  assert.is(balanceOf(live, 'funding:paystack:clearing'), -1_000_000);
  assert.is(live.debit_total_kobo, live.credit_total_kobo);

  const noFee = await runJson(core, ['books', 'settle', 'monnify', '100', '--reference', 'STL-2']);
  assert.is(noFee.code, 0, noFee.stderr);
  assert.is((noFee.json['postings'] as unknown[]).length, 2, 'no line for a fee of nothing');

  const replay = await runJson(core, ['books', 'settle', 'paystack', '9850', '--fee', '150', '--reference', 'STL-1']);
  assert.is(replay.json['replayed'], true);
  const otherFee = await runAgainst(core, [
    'books',
    'settle',
    'paystack',
    '9850',
    '--fee',
    '1',
    '--reference',
    'STL-1',
  ]);
  assert.is(otherFee.code, 1);
  assert.match(otherFee.stderr, /already booked/);
  assert.is(balanceOf((await trialBalance()).live, 'world:bank'), 995_000, 'the replays booked nothing');

  const unknown = await runAgainst(core, ['books', 'settle', 'flutterwave', '100', '--reference', 'STL-3']);
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /provider must be one of the funding providers: sandbox, paystack, monnify/);
});

test('a bad amount or reference is a clear usage error and books nothing', async () => {
  const cases: [string[], RegExp][] = [
    [['upstreams', 'fund', 'sandbox', '-5', '--reference', 'R1'], /amounts cannot be negative/],
    [['upstreams', 'fund', 'sandbox', '1.234', '--reference', 'R1'], /AMOUNT_NAIRA/],
    [['upstreams', 'fund', 'sandbox', '0', '--reference', 'R1'], /AMOUNT_NAIRA must be more than zero/],
    [['upstreams', 'fund', 'sandbox', '100'], /missing --reference REF/],
    [['upstreams', 'fund', 'sandbox', '100', '--reference', '  '], /--reference REF is required/],
    [['books', 'settle', 'paystack', 'ten', '--reference', 'R1'], /AMOUNT_NAIRA/],
    [['books', 'settle', 'paystack', '10', '--fee', 'x', '--reference', 'R1'], /--fee/],
  ];
  for (const [argv, message] of cases) {
    const run = await runAgainst(core, argv);
    assert.is(run.code, 2, `${argv.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
  const spaced = await runAgainst(core, ['upstreams', 'fund', 'sandbox', '100', '--reference', 'MY REF']);
  assert.is(spaced.code, 1);
  assert.match(spaced.stderr, /reference is required: 1 to 100 printable ASCII characters without spaces/);
  const long = await runAgainst(core, ['books', 'settle', 'paystack', '100', '--reference', 'R'.repeat(101)]);
  assert.is(long.code, 1);
  assert.match(long.stderr, /reference is required/);
  const { live } = await trialBalance();
  assert.equal(live.accounts, []);
});

/** A core under CLI_MONEY_MOVES=proposals and a finance member past the four-eyes cooling time (the CLI invited them). */
async function proposalsCore() {
  const clock = new TestClock();
  const strict = await startCore({ cliMoneyMoves: 'proposals', clock: clock.now });
  const invited = await signedInStaff(strict, clock, 'finance');
  clock.advance(DEFAULT_FOUR_EYES_COOLING_MS + 3_600_000);
  const finance = await signInAgain(strict, clock, invited);
  const decide = (proposalId: string, approve: boolean) =>
    consoleClients(strict).console.decideProposal({
      sessionToken: finance.token,
      clientAddress: '127.0.0.1',
      proposalId,
      approve,
      note: approve ? '' : 'not our transfer',
    });
  return { strict, decide };
}

test('under CLI_MONEY_MOVES=proposals a top-up and a settlement are proposals, booked once a colleague approves', async () => {
  const { strict, decide } = await proposalsCore();
  const live = async () => ((await runJson(strict, ['books', 'trial-balance'])).json['modes'] as OfMode[])[0]!;
  try {
    const fund = await runJson(strict, ['upstreams', 'fund', 'sandbox', '5000', '--reference', 'GTB-TOP-1']);
    assert.is(fund.code, 0, fund.stderr);
    const proposalId = String(fund.json['proposal_id']);
    assert.match(proposalId, /^prp_/);
    assert.equal([fund.json['proposal_status'], fund.json['replayed']], ['pending', false]);
    const text = await runAgainst(strict, ['upstreams', 'fund', 'sandbox', '5000', '--reference', 'GTB-TOP-1']);
    assert.match(text.stdout, new RegExp(`Already proposed: a top-up of .* to sandbox is ${proposalId} \\(pending\\)`));
    const other = await runAgainst(strict, ['upstreams', 'fund', 'sandbox', '6000', '--reference', 'GTB-TOP-1']);
    assert.is(other.code, 1);
    assert.match(other.stderr, new RegExp(`was proposed before as ${proposalId}`));
    assert.equal((await live()).accounts, [], 'nothing is booked while it waits');

    const approved = await decide(proposalId, true);
    assert.ok(approved.proposal?.applied);
    assert.is(balanceOf(await live(), 'upstream:sandbox:float'), 500_000);
    assert.is(balanceOf(await live(), 'world:bank'), -500_000);
    const again = await decide(proposalId, true).catch((error: Error) => error.message);
    assert.match(String(again), /already approved/);
    assert.is(balanceOf(await live(), 'upstream:sandbox:float'), 500_000, 'approved again: booked once');
    const booked = await runAgainst(strict, ['upstreams', 'fund', 'sandbox', '5000', '--reference', 'GTB-TOP-1']);
    assert.is(booked.code, 1);
    assert.match(booked.stderr, /Reference GTB-TOP-1 is booked already \(upstream_funded, entry/);

    const settle = await runJson(strict, [
      'books',
      'settle',
      'paystack',
      '9850',
      '--fee',
      '150',
      '--reference',
      'STL-9',
    ]);
    assert.is(settle.code, 0, settle.stderr);
    await decide(String(settle.json['proposal_id']), true);
    assert.is(balanceOf(await live(), 'funding:paystack:fees'), 15_000);
    assert.is(balanceOf(await live(), 'funding:paystack:clearing'), -1_000_000);

    const refused = await runJson(strict, ['books', 'settle', 'monnify', '100', '--reference', 'STL-10']);
    await decide(String(refused.json['proposal_id']), false);
    assert.is(balanceOf(await live(), 'funding:monnify:clearing'), 0, 'a refused proposal books nothing');
    const audit = await strict.store.auditLog.list({ limit: 50, target: proposalId });
    assert.equal(
      audit.map((row) => row.action).sort(),
      ['proposal.approve', 'proposal.upstream_topup'],
      'proposed and approved, each audited once',
    );
    const check = await strict.admin.checkLedger({});
    assert.is(check.violationCount, 0n, 'every applied proposal is booked and audited');
  } finally {
    await strict.close();
  }
});

test('books findings lists the open findings; resolve gives one an end with a note, audited, moving no money', async () => {
  const finding = (reference: string) => ({
    day: '2025-06-01',
    upstream: 'site',
    reference,
    class: 'cost_differs' as const,
    atStakeKobo: kobo(-3_00),
    ourCostKobo: kobo(97_00),
    theirChargedKobo: kobo(100_00),
    outcome: 'success' as const,
    theirStatus: 'delivered' as const,
    theirCharges: 1,
    reason: null,
    evidence: null,
    foundAt: new Date('2025-06-02T02:30:00Z'),
  });
  await core.store.findings.record([finding('TX-A'), finding('TX-B')]);
  const listed = await runJson(core, ['books', 'findings', '--open']);
  assert.is(listed.code, 0, listed.stderr);
  const ids = (listed.json['findings'] as { finding_id: string }[]).map((f) => f.finding_id);
  assert.equal(ids, ['2025-06-01/site/cost_differs/TX-A', '2025-06-01/site/cost_differs/TX-B']);

  const noNote = await runAgainst(core, ['books', 'findings', 'resolve', ids[0]!]);
  assert.is(noNote.code, 2);
  assert.match(noNote.stderr, /--note TEXT is required/);
  const resolved = await runJson(core, [
    'books',
    'findings',
    'resolve',
    ids[0]!,
    '--note',
    'commission changed on 1 June',
  ]);
  assert.is(resolved.code, 0, resolved.stderr);
  assert.equal([resolved.json['resolved_by'], resolved.json['resolution']], ['cli', 'commission changed on 1 June']);
  const twice = await runAgainst(core, ['books', 'findings', 'resolve', ids[0]!, '--note', 'again']);
  assert.is(twice.code, 1);
  assert.match(twice.stderr, /resolved already by cli/);
  const unknown = await runAgainst(core, [
    'books',
    'findings',
    'resolve',
    '2025-06-01/site/cost_differs/TX-Z',
    '--note',
    'x',
  ]);
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /Finding 2025-06-01\/site\/cost_differs\/TX-Z/);
  const notAnId = await runAgainst(core, ['books', 'findings', 'resolve', 'TX-A', '--note', 'x']);
  assert.match(notAnId.stderr, /finding_id is DATE\/UPSTREAM\/CLASS\/REFERENCE/);
  const badProposal = await runAgainst(core, ['books', 'findings', 'resolve', ids[1]!, '--proposal', 'prp_nobody']);
  assert.match(badProposal.stderr, /Proposal prp_nobody/);

  const open = await runJson(core, ['books', 'findings', '--open']);
  assert.equal(
    (open.json['findings'] as { finding_id: string }[]).map((f) => f.finding_id),
    [ids[1]],
    'the resolved one left',
  );
  const all = await runJson(core, ['books', 'findings']);
  assert.is((all.json['findings'] as unknown[]).length, 2, 'every finding, resolved ones too');
  const audit = await core.store.auditLog.list({ limit: 5, action: 'finding.resolve' });
  assert.equal(
    audit.map((row) => [row.actor, row.target, row.note]),
    [['cli', ids[0], 'commission changed on 1 June']],
  );
  assert.equal((await trialBalance()).live.accounts, [], 'resolving moved no money');
});

test.run();
