/**
 * `prepaid wallet debit` against a real core: a direct manual debit (audited, with its
 * reason on the ledger and in wallet.debited), retried once by reference, refused beyond the
 * balance and without a reason, on the test wallet apart; under CLI_MONEY_MOVES=proposals a
 * live debit is a proposal that moves nothing (with a warning when the wallet is short); the
 * ledger check passes after.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore }>('prepaid wallet debit against a real core');

test.before(async (ctx) => {
  ctx.core = await startCore();
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test('a direct debit takes the money once, with its reason, audited; short balances and no reason refused', async ({
  core,
}) => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const debited = await runJson(core, [
    'wallet',
    'debit',
    accountId,
    '250.50',
    '--reason',
    'Chargeback from GTBank, ticket 77',
    '--reference',
    'CHB-77',
  ]);
  assert.is(debited.code, 0, debited.stderr);
  assert.is(debited.json['balance'], 749.5);
  assert.is(debited.json['replayed'], false);
  const again = await runJson(core, [
    'wallet',
    'debit',
    accountId,
    '250.50',
    '--reason',
    'Chargeback from GTBank, ticket 77',
    '--reference',
    'CHB-77',
  ]);
  assert.is(again.json['replayed'], true, 'a retry with the reference debits once');
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 749_50n);

  const short = await runAgainst(core, ['wallet', 'debit', accountId, '5000', '--reason', 'Too much']);
  assert.is.not(short.code, 0);
  assert.match(short.stderr, /holds ₦749\.50, less than the debit of ₦5,000\.00/);
  const noReason = await runAgainst(core, ['wallet', 'debit', accountId, '10', '--reason', '  ']);
  assert.is.not(noReason.code, 0);
  assert.match(noReason.stderr, /reason is required/);
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 749_50n, 'nothing else moved');

  const ledger = await runJson(core, ['wallet', 'ledger', accountId]);
  const newest = (ledger.json['entries'] as Record<string, unknown>[])[0]!;
  assert.equal(
    [newest['kind'], newest['amount'], newest['reference'], newest['memo']],
    ['manual_debit', -250.5, 'CHB-77', 'Chargeback from GTBank, ticket 77'],
  );
  const events = await core.store.events.listFeed(accountId, 'live', 0, 10);
  const told = events.filter((e) => e.type === 'wallet.debited');
  assert.is(told.length, 1, 'one event for the one debit');
  assert.equal(JSON.parse(told[0]!.body).data, {
    reference: 'CHB-77',
    amount: 250.5,
    balance: 749.5,
    reason: 'Chargeback from GTBank, ticket 77',
    source: 'operator',
  });
  const audit = await runJson(core, ['audit', 'list', '--actor', 'cli', '--action', 'admin.debitWallet']);
  assert.is((audit.json['entries'] as unknown[]).length, 2, 'each direct debit call is audited');

  // The test wallet is test money: debited directly, apart from the live one.
  await runJson(core, ['wallet', 'credit', accountId, '100', '--mode', 'test']);
  const test = await runJson(core, ['wallet', 'debit', accountId, '40', '--reason', 'Reset', '--mode', 'test']);
  assert.is(test.code, 0, test.stderr);
  assert.equal([test.json['mode'], test.json['balance']], ['test', 60]);

  const check = await runJson(core, ['ledger', 'check']);
  assert.is(check.code, 0, check.stdout);
});

test('with CLI_MONEY_MOVES=proposals, a live debit is a proposal that moves nothing, warned when short', async () => {
  const strict = await startCore({ cliMoneyMoves: 'proposals' });
  try {
    const { accountId } = await strict.createApiAccount();
    // The CLI's credits are proposals here too: the opening balance goes in through the store.
    await strict.store.ledger.post({
      kind: 'credit',
      credit: {
        accountId,
        mode: 'live',
        amountKobo: kobo(100_00),
        reference: 'OPEN-1',
        memo: '',
        at: new Date(),
      },
    });
    const proposed = await runJson(strict, ['wallet', 'debit', accountId, '500', '--reason', 'Chargeback']);
    assert.is(proposed.code, 0, proposed.stderr);
    assert.match(String(proposed.json['proposal_id']), /^prp_/);
    assert.match(String(proposed.json['warning']), /less than this debit/);
    assert.match(proposed.stderr, /approving it is refused until the balance covers it/);
    assert.is((await strict.admin.getAccount({ accountId })).account!.balanceKobo, 100_00n);
  } finally {
    await strict.close();
  }
});

test.run();
