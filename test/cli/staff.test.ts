/**
 * `prepaid staff ...` and `prepaid audit list` against a real core: the set-up link is
 * printed once and works in the console's set-up RPC; list and disable follow; the audit
 * log holds the CLI's own calls with actor cli.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { consoleClients, signedInStaff, signInAgain, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore }>('prepaid staff and audit against a real core');

test.before(async (ctx) => {
  ctx.core = await startCore();
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test('staff invite prints a set-up link that works; list and disable follow; audit list shows them', async ({
  core,
}) => {
  const invited = await runJson(core, ['staff', 'invite', '--email', 'Kemi@Ops.example.ng', '--role', 'finance']);
  assert.is(invited.code, 0, invited.stderr);
  const url = String(invited.json['setup_url']);
  assert.match(url, /\/setup\/[A-Za-z0-9_-]{43}$/);
  assert.match(invited.stderr, /send it to the new member only/);
  const setup = await consoleClients(core).console.getStaffSetup({ setupToken: url.split('/setup/')[1]! });
  assert.is(setup.email, 'kemi@ops.example.ng');
  assert.is(setup.role, 'finance');

  const badRole = await runJson(core, ['staff', 'invite', '--email', 'x@ops.example.ng', '--role', 'owner']);
  assert.is.not(badRole.code, 0);

  const listed = await runJson(core, ['staff', 'list']);
  assert.equal(
    (listed.json['members'] as Record<string, unknown>[]).map((m) => [m['email'], m['role'], m['set_up']]),
    [['kemi@ops.example.ng', 'finance', false]],
  );
  const disabled = await runJson(core, ['staff', 'disable', 'kemi@ops.example.ng']);
  assert.is(disabled.json['disabled'], true);

  const audit = await runJson(core, ['audit', 'list', '--actor', 'cli', '--action', 'staff.']);
  assert.equal(
    (audit.json['entries'] as Record<string, unknown>[]).map((e) => [e['action'], e['target']]),
    [
      ['staff.disable', 'kemi@ops.example.ng'],
      ['staff.invite', 'kemi@ops.example.ng'],
    ],
  );
  const badLimit = await runJson(core, ['audit', 'list', '--limit', '0']);
  assert.is.not(badLimit.code, 0);
});

test('with CLI_MONEY_MOVES=proposals, wallet credit prints a proposal and moves nothing', async () => {
  const strict = await startCore({ cliMoneyMoves: 'proposals' });
  try {
    const created = await strict.admin.createAccount({ name: 'Strict Stores', tierId: 'api' });
    const accountId = created.account!.accountId;
    const credited = await runJson(strict, ['wallet', 'credit', accountId, '1500', '--memo', 'float']);
    assert.is(credited.code, 0, credited.stderr);
    assert.match(String(credited.json['proposal_id']), /^prp_/);
    assert.is((await strict.admin.getAccount({ accountId })).account!.balanceKobo, 0n);
  } finally {
    await strict.close();
  }
});

test('with CLI_MONEY_MOVES=proposals, a retried credit is one proposal that credits once under its reference and memo', async () => {
  const clock = new TestClock();
  const strict = await startCore({ cliMoneyMoves: 'proposals', clock: clock.now });
  try {
    // The approver has been staff for longer than the four-eyes cooling time.
    const joined = await signedInStaff(strict, clock, 'finance');
    clock.advance(73 * 3_600_000);
    const finance = await signInAgain(strict, clock, joined);
    const accountId = (await strict.admin.createAccount({ name: 'Retry Stores', tierId: 'api' })).account!.accountId;
    const credit = (amount: string) =>
      runJson(strict, ['wallet', 'credit', accountId, amount, '--memo', 'GTB transfer 777', '--reference', 'GTB-777']);
    const first = await credit('777');
    const retries = [await credit('777'), await credit('777')];
    assert.is(first.code, 0, first.stderr);
    assert.equal(
      retries.map((r) => [r.json['proposal_id'], r.json['replayed']]),
      [
        [first.json['proposal_id'], true],
        [first.json['proposal_id'], true],
      ],
      'a retry is the same proposal',
    );
    const told = await runAgainst(strict, ['wallet', 'credit', accountId, '777', '--reference', 'GTB-777']);
    assert.match(told.stdout, /Already proposed: .* is prp_\w+ \(pending\); no second proposal was made/);
    const otherAmount = await credit('778');
    assert.is.not(otherAmount.code, 0);
    assert.match(otherAmount.stderr, new RegExp(String(first.json['proposal_id'])));

    const proposalId = String(first.json['proposal_id']);
    const { console } = consoleClients(strict);
    const queue = await console.getAttention({ sessionToken: finance.token, clientAddress: '127.0.0.1' });
    assert.equal(
      queue.proposals.map((p) => [p.proposalId, p.reference, p.memo]),
      [[proposalId, 'GTB-777', 'GTB transfer 777']],
      'one proposal, keeping the reference and memo',
    );
    await console.decideProposal({
      sessionToken: finance.token,
      clientAddress: '127.0.0.1',
      proposalId,
      approve: true,
    });
    const again = await credit('777');
    assert.equal([again.json['proposal_id'], again.json['proposal_status']], [proposalId, 'approved']);

    const ledger = await strict.admin.listLedgerEntries({ accountId });
    assert.equal(
      ledger.entries.map((e) => [e.kind, e.amountKobo, e.reference, e.memo]),
      [['credit', 777_00n, 'GTB-777', 'GTB transfer 777']],
      'credited once, under the reference and memo the CLI gave',
    );
    const check = await runJson(strict, ['ledger', 'check']);
    assert.is(check.code, 0, check.stdout);
  } finally {
    await strict.close();
  }
});

test.run();
