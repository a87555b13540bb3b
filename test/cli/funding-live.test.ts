/**
 * Live money and the sandbox bank, against a real core without a funding provider: a live
 * wallet has no bank transfer funding (no account number, none opened), a simulated transfer
 * reaches test wallets only, a Sandbox Bank number a live wallet was given while
 * FUNDING_SANDBOX_LIVE was on is neither shown nor credited, and the core warns at start when it
 * is on. Under CLI_MONEY_MOVES=proposals `funding assign` is a proposal like every CLI money move.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { newInflowId } from '../../core/domain/funding.js';
import { kobo } from '../../core/domain/money.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { spawnCore } from '../helpers/process.js';
import { consoleClients, signedInStaff, signInAgain, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite('funding: sandbox money and live wallets');

const OPEN = ['--bvn', '22222222222', '--first-name', 'Ada', '--last-name', 'Obi'];
const CONTACT = ['--phone', '08031234567', '--email', 'ada@example.com'];

async function ledgerClean(core: TestCore, accountId: string): Promise<void> {
  await assertLedgerInvariant(core, accountId);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
}

test('without a provider a live wallet shows no account number, and sandbox transfers never credit it', async () => {
  const core = await startCore();
  try {
    const { accountId } = await core.createApiAccount({ balanceKobo: 0 });
    const live = await runAgainst(core, ['funding', 'open', accountId, ...OPEN, ...CONTACT]);
    assert.is.not(live.code, 0, 'no live account is opened');
    assert.match(live.stderr, /No funding provider takes bank transfers for live wallets/);
    const opened = await runJson(core, ['funding', 'open', accountId, ...OPEN, ...CONTACT, '--mode', 'test']);
    assert.is(opened.code, 0, opened.stderr);
    const testNumber = (opened.json['accounts'] as { account_number: string }[])[0]!.account_number;

    // A Sandbox Bank number the live wallet got while FUNDING_SANDBOX_LIVE was on.
    const liveNumber = '9900000042';
    await core.store.funding.saveVirtualAccount({
      provider: 'sandbox',
      accountNumber: liveNumber,
      accountId,
      mode: 'live',
      bankName: 'Sandbox Bank',
      bankCode: '999',
      accountName: 'PREPAID/ADA OBI',
      providerCustomerRef: `sbx-${accountId}`,
      status: 'active',
      kycKind: 'bvn',
      kycLast4: '2222',
      kycHash: 'h'.repeat(64),
      createdAt: new Date(),
    });
    const funding = core.clientWithToken(FundingService, core.adminToken);
    const shown = await funding.getFunding({ accountId, mode: Mode.LIVE });
    assert.equal([shown.accounts.length, shown.transfersOpen], [0, false], 'no number to pay real money into');
    const testShown = await funding.getFunding({ accountId, mode: Mode.TEST });
    assert.equal([testShown.accounts.map((a) => a.accountNumber), testShown.transfersOpen], [[testNumber], true]);

    for (const number of [liveNumber, '9912345678']) {
      const sent = await runAgainst(core, [
        'funding',
        'simulate-transfer',
        number,
        '5000',
        '--reference',
        `S-${number}`,
      ]);
      assert.is.not(sent.code, 0, number);
      assert.match(sent.stderr, /sandbox transfers credit test wallets only/);
      assert.is(await core.store.funding.findInflow('sandbox', `S-${number}`), null, 'nothing recorded');
    }
    const toTest = await runJson(core, ['funding', 'simulate-transfer', testNumber, '5000', '--reference', 'S-T']);
    assert.is(toTest.json['outcome'], 'credited');
    const balance = async (mode: Mode) => (await core.purchase.getBalance({ accountId, mode })).balanceKobo;
    assert.equal([await balance(Mode.LIVE), await balance(Mode.TEST)], [0n, 5_000_00n]);

    // A live sandbox inflow left from before is never assigned to a live wallet either.
    const left = await core.store.ledger.post({
      kind: 'inflow_record',
      inflow: {
        inflowId: newInflowId(),
        provider: 'sandbox',
        providerReference: 'OLD-1',
        accountNumber: '9912345670',
        accountId: null,
        mode: 'live',
        amountPaidKobo: kobo(1_000_00),
        payerName: 'SANDBOX PAYER',
        status: 'unmatched',
        reason: 'no account has this number',
        raw: '{}',
        createdAt: new Date(),
      },
      credit: null,
    });
    const assigned = await runAgainst(core, ['funding', 'assign', left.inflow.inflowId, accountId]);
    assert.is.not(assigned.code, 0);
    assert.match(assigned.stderr, /never credits a live wallet/);
    assert.is(await balance(Mode.LIVE), 0n);
    await ledgerClean(core, accountId);
  } finally {
    await core.close();
  }
});

test('FUNDING_SANDBOX_LIVE=on is warned about at start', async () => {
  const on = await spawnCore({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'prepaid-sbx-')),
    FUNDING_SANDBOX_LIVE: 'on',
  });
  try {
    const warned = on.stdout
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['event'] === 'config.warning' && l['variable'] === 'FUNDING_SANDBOX_LIVE');
    assert.is(warned?.['level'], 'warn');
    assert.match(String(warned?.['message']), /credits live money/);
  } finally {
    on.child.kill('SIGTERM');
    await on.exited;
  }
});

test('with CLI_MONEY_MOVES=proposals, funding assign is a proposal that credits once when approved', async () => {
  const clock = new TestClock();
  const core = await startCore({ cliMoneyMoves: 'proposals', clock: clock.now });
  try {
    const joined = await signedInStaff(core, clock, 'finance');
    clock.advance(73 * 3_600_000);
    const finance = await signInAgain(core, clock, joined);
    const { accountId } = await core.createApiAccount({ balanceKobo: 0 });
    const { inflow } = await core.store.ledger.post({
      kind: 'inflow_record',
      inflow: {
        inflowId: newInflowId(),
        provider: 'paystack',
        providerReference: 'PSK-1',
        accountNumber: '0123456789',
        accountId: null,
        mode: 'live',
        amountPaidKobo: kobo(2_000_00),
        payerName: 'ADA OBI',
        status: 'unmatched',
        reason: 'no account has this number',
        raw: '{}',
        createdAt: clock.now(),
      },
      credit: null,
    });
    const proposed = await runJson(core, ['funding', 'assign', inflow.inflowId, accountId]);
    assert.is(proposed.code, 0, proposed.stderr);
    const proposalId = String(proposed.json['proposal_id']);
    assert.match(proposalId, /^prp_/);
    assert.is((await core.store.funding.getInflow(inflow.inflowId))?.status, 'unmatched', 'nothing credited yet');
    const balance = async () => (await core.purchase.getBalance({ accountId, mode: Mode.LIVE })).balanceKobo;
    assert.is(await balance(), 0n);

    const { console } = consoleClients(core);
    await console.decideProposal({
      sessionToken: finance.token,
      clientAddress: '127.0.0.1',
      proposalId,
      approve: true,
    });
    assert.is(await balance(), 2_000_00n, 'credited once approved');
    assert.is((await core.store.funding.getInflow(inflow.inflowId))?.status, 'credited');
    await ledgerClean(core, accountId);
  } finally {
    await core.close();
  }
});

test.run();
