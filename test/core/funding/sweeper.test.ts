/**
 * The funding sweeper against a real core: a transfer the sandbox bank received but never
 * announced is credited by the sweeper, once however often it runs; an inflow a crash left
 * verified but uncredited (the state between the re-query and the credit) is finished once,
 * and a late notification of it credits nothing more.
 */
import * as assert from 'uvu/assert';
import { newInflowId } from '../../../core/domain/funding.js';
import { kobo } from '../../../core/domain/money.js';
import { createSandboxFunding, type SandboxFunding } from '../../../core/funding/sandbox.js';
import { FundingService } from '../../../gen/prepaid/v1/funding_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';

const test = suite<{ core: TestCore; bank: SandboxFunding }>('funding sweeper');

test.before(async (ctx) => {
  ctx.bank = createSandboxFunding();
  // The sandbox bank stands in for a live funding provider here (FUNDING_SANDBOX_LIVE=on).
  ctx.core = await startCore({
    funding: { sandbox: ctx.bank, sandboxLive: true, fee: { basisPoints: 100, capKobo: null } },
  });
});
test.after(async (ctx) => {
  await ctx.core.close();
});

async function openAccount(core: TestCore): Promise<{ accountId: string; number: string }> {
  const { accountId } = await core.createApiAccount();
  const funding = core.clientWithToken(FundingService, core.adminToken);
  const opened = await funding.openFundingAccounts({
    accountId,
    kyc: {
      kind: 'nin',
      number: '12345678901',
      firstName: 'Ada',
      lastName: 'Obi',
      phone: '08031234567',
      email: 'ada@example.com',
      bankCode: '',
      bankAccount: '',
    },
  });
  return { accountId, number: opened.accounts[0]!.accountNumber };
}

async function ledgerClean(core: TestCore, accountId: string): Promise<void> {
  await assertLedgerInvariant(core, accountId);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
}

test('a transfer no notification announced is credited by the sweeper, once', async ({ core, bank }) => {
  const { accountId, number } = await openAccount(core);
  bank.transfer(number, kobo(250_000), 'QUIET-1', 'SILENT PAYER', new Date());
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 0n, 'nothing before the sweep');
  assert.is(await core.core.fundingSweeper.runOnce(), 1);
  assert.is(await core.core.fundingSweeper.runOnce(), 0, 'a second run credits nothing');
  // ₦2,500 less 1%.
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 247_500n);
  // The notification arriving late changes nothing.
  assert.is(
    await core.core.funding.notify('sandbox', {
      providerReference: 'QUIET-1',
      accountNumber: number,
      amountPaidKobo: kobo(250_000),
    }),
    'already_credited',
  );
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 247_500n);
  await ledgerClean(core, accountId);
});

test('an inflow left verified by a crash is finished once by the sweeper; the late notification adds nothing', async ({
  core,
  bank,
}) => {
  const { accountId, number } = await openAccount(core);
  bank.transfer(number, kobo(100_000), 'CRASH-1', 'PAYER', new Date());
  // The state a crash between the re-query and the credit leaves: recorded verified, not credited.
  await core.store.ledger.post({
    kind: 'inflow_record',
    inflow: {
      inflowId: newInflowId(),
      provider: 'sandbox',
      providerReference: 'CRASH-1',
      accountNumber: number,
      accountId,
      mode: 'live',
      amountPaidKobo: kobo(100_000),
      payerName: 'PAYER',
      status: 'verified',
      reason: '',
      raw: '{}',
      createdAt: new Date(),
    },
    credit: null,
  });
  const [a, b] = await Promise.all([core.core.fundingSweeper.runOnce(), core.core.fundingSweeper.runOnce()]);
  assert.equal([a, b], [1, 1], 'overlapping calls share one run, which credits once');
  assert.is(
    await core.core.funding.notify('sandbox', {
      providerReference: 'CRASH-1',
      accountNumber: number,
      amountPaidKobo: kobo(100_000),
    }),
    'already_credited',
  );
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 99_000n);
  assert.is((await core.store.funding.findInflow('sandbox', 'CRASH-1'))?.status, 'credited');
  await ledgerClean(core, accountId);
});

test('a notification the provider contradicts credits nothing and waits as unmatched', async ({ core, bank }) => {
  const { accountId, number } = await openAccount(core);
  bank.transfer(number, kobo(100_000), 'TAMPER-1', 'PAYER', new Date());
  // The notification claims more than the bank confirms.
  assert.is(
    await core.core.funding.notify('sandbox', {
      providerReference: 'TAMPER-1',
      accountNumber: number,
      amountPaidKobo: kobo(900_000),
    }),
    'unmatched',
  );
  // A reference the bank never saw.
  assert.is(
    await core.core.funding.notify('sandbox', {
      providerReference: 'NEVER-1',
      accountNumber: number,
      amountPaidKobo: kobo(100_000),
    }),
    'not_paid',
  );
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 0n);
  assert.is((await core.store.funding.findInflow('sandbox', 'TAMPER-1'))?.status, 'unmatched');
  assert.is(await core.core.fundingSweeper.runOnce(), 0, 'the sweeper does not credit an unmatched inflow either');
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 0n);
  await ledgerClean(core, accountId);
});

test.run();
