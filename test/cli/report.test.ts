/**
 * `prepaid report margin` and `prepaid report funding` against a real core: the figures of a
 * day of known sales equal what the ledger says; by upstream and by month regroup the same
 * money; --csv prints the console's columns; a wrong period never reaches the core.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { ledgerFigures, REPORT_DAY, seedReportSales } from '../helpers/report-sales.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore; accountId: string }>('prepaid report against a real core');

test.before(async (ctx) => {
  ctx.core = await startCore();
  ctx.accountId = (await seedReportSales(ctx.core.store)).accountId;
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test('report margin by product: the day total equals the ledger-derived figures', async ({ core, accountId }) => {
  const run = await runJson(core, ['report', 'margin', '--from', REPORT_DAY, '--to', REPORT_DAY]);
  assert.is(run.code, 0, run.stderr);
  const ledger = await ledgerFigures(core.store, accountId);
  const total = run.json['total'] as Record<string, number>;
  assert.equal(
    [
      total['sales_count'],
      total['charged_kobo'],
      total['refund_count'],
      total['refunded_kobo'],
      total['pending_kobo'],
      total['cost_kobo'],
      total['cost_unknown_charged_kobo'],
      total['margin_kobo'],
    ],
    [
      ledger.salesCount,
      ledger.chargedKobo,
      ledger.refundCount,
      ledger.refundedKobo,
      ledger.pendingKobo,
      ledger.costKobo,
      ledger.unknownChargedKobo,
      ledger.marginKobo,
    ],
  );
  // Known by hand too: 9 800 - 9 600 on airtime and 150 000 - 140 000 on data.
  assert.is(total['margin_kobo'], 200 + 10_000);
  assert.equal(
    (run.json['rows'] as Record<string, unknown>[]).map((r) => [r['period'], r['key'], r['sales_count']]),
    [
      [REPORT_DAY, 'airtime', 4],
      [REPORT_DAY, 'data', 2],
    ],
  );
});

test('by upstream and by month regroup the same money; the table names the columns', async ({ core }) => {
  const upstream = await runJson(core, [
    'report',
    'margin',
    '--from',
    '2026-10-01',
    '--to',
    '2026-10-31',
    '--by',
    'month',
    '--group',
    'upstream',
  ]);
  assert.is(upstream.code, 0, upstream.stderr);
  assert.equal(
    (upstream.json['rows'] as Record<string, unknown>[]).map((r) => [
      r['period'],
      r['key'],
      r['charged_kobo'],
      r['cost_kobo'],
    ]),
    [
      ['2026-10', 'ck', 9_800 * 3, 9_600],
      ['2026-10', 'vtpass', 9_800 + 150_000 + 49_000, 140_000],
    ],
  );
  const table = await runAgainst(core, ['report', 'margin', '--from', REPORT_DAY, '--to', REPORT_DAY]);
  assert.is(table.code, 0, table.stderr);
  const lines = table.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^Period\s+Product\s+Sales\s+Charged \(NGN\)/);
  assert.match(lines.at(-1)!, /^Total\s+6\s+2382\.00\s+2\s+196\.00\s+1\s+490\.00/);
});

test('--csv prints the columns and rows as CSV, the total last', async ({ core }) => {
  const run = await runAgainst(core, ['report', 'margin', '--from', REPORT_DAY, '--to', REPORT_DAY, '--csv']);
  assert.is(run.code, 0, run.stderr);
  const lines = run.stdout.split('\r\n');
  assert.is(lines.length, 5, 'four CR LF lines and nothing after the last');
  assert.is(
    lines[0],
    'Period,Product,Sales,Charged (NGN),Refunds,Refunded (NGN),Pending,Pending ' +
      '(NGN),Costed,Cost (NGN),Cost unknown,"Charged, cost unknown (NGN)",Margin (NGN)',
  );
  assert.is(lines[1], `${REPORT_DAY},airtime,4,392.00,2,196.00,0,0.00,1,96.00,1,98.00,2.00`);
  assert.is(lines[3], 'Total,,6,2382.00,2,196.00,1,490.00,2,1496.00,1,98.00,102.00');
});

test('report funding sums live inflows per provider', async ({ core }) => {
  const inflowId = 'inf_report_0001';
  await core.store.ledger.post({
    kind: 'inflow_record',
    inflow: {
      inflowId,
      provider: 'paystack',
      providerReference: 'PSK-REPORT-1',
      accountNumber: '',
      accountId: null,
      mode: 'live',
      amountPaidKobo: kobo(250_000),
      payerName: 'ADA OBI',
      status: 'unmatched',
      reason: 'no account',
      raw: '{}',
      createdAt: new Date(Date.UTC(2026, 9, 5, 10)),
    },
    credit: null,
  });
  const run = await runJson(core, ['report', 'funding', '--from', REPORT_DAY, '--to', REPORT_DAY]);
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.json['rows'], [
    {
      period: REPORT_DAY,
      provider: 'paystack',
      count: 1,
      amount_paid_kobo: 250_000,
      credited_count: 0,
      fee_kobo: 0,
      credited_kobo: 0,
      unmatched_count: 1,
      unmatched_kobo: 250_000,
    },
  ]);
});

test("report manual: the operator's live credits and debits of the day and their net, test money left out", async ({
  core,
  accountId,
}) => {
  // The day's seeded sales began with the account's own funding, a manual credit too.
  const before = await runJson(core, ['report', 'manual', '--from', REPORT_DAY, '--to', REPORT_DAY]);
  const seeded = (before.json['total'] as Record<string, number>)['credited_kobo']!;
  assert.is((before.json['total'] as Record<string, number>)['credit_count'], 1);
  const at = new Date(Date.UTC(2026, 9, 5, 11));
  const credit = (reference: string, amountKobo: number, mode: 'live' | 'test') =>
    core.store.ledger.post({
      kind: 'credit',
      credit: { accountId, mode, amountKobo: kobo(amountKobo), reference, memo: 'cash at the office', at },
    });
  await credit('CR-REPORT-MANUAL-1', 3_650_050, 'live');
  await credit('CR-REPORT-MANUAL-T', 100_000, 'test');
  await core.store.ledger.post({
    kind: 'debit',
    debit: {
      accountId,
      mode: 'live',
      amountKobo: kobo(50_000),
      reference: 'DR-REPORT-MANUAL-1',
      reason: 'a correction',
      at,
    },
  });
  const run = await runJson(core, ['report', 'manual', '--from', REPORT_DAY, '--to', REPORT_DAY]);
  assert.is(run.code, 0, run.stderr);
  const day = { credit_count: 2, credited_kobo: seeded + 3_650_050, debit_count: 1, debited_kobo: 50_000 };
  assert.equal(run.json['rows'], [{ period: REPORT_DAY, ...day }]);
  assert.equal(run.json['total'], day);
  const csv = await runAgainst(core, ['report', 'manual', '--from', REPORT_DAY, '--to', REPORT_DAY, '--csv']);
  const lines = csv.stdout.trim().split(/\r?\n/);
  assert.is(lines[0], 'Period,Credits,Credited (NGN),Debits,Debited (NGN),Net (NGN)');
  const naira = (k: number) => (k / 100).toFixed(2);
  assert.is(lines[1], `${REPORT_DAY},2,${naira(seeded + 3_650_050)},1,500.00,${naira(seeded + 3_600_050)}`);
  const other = await runJson(core, ['report', 'manual', '--from', '2026-10-06', '--to', '2026-10-06']);
  assert.equal(other.json['rows'], [], 'nothing on another day');
});

test('a wrong period is a usage error and never reaches the core', async ({ core }) => {
  for (const argv of [
    ['--from', '2026-10-31', '--to', '2026-10-01'],
    ['--from', '2026-02-30', '--to', '2026-03-01'],
    ['--from', '2025-01-01', '--to', '2026-01-02'],
    ['--from', '2020-01-01', '--to', '2026-01-01', '--by', 'month'],
    ['--from', '2026-10-01', '--to', '2026-10-02', '--by', 'week'],
    ['--from', '2026-10-01', '--to', '2026-10-02', '--group', 'staff'],
  ]) {
    const run = await runAgainst(core, ['report', 'margin', ...argv]);
    assert.is(run.code, 2, `${argv.join(' ')}: ${run.stderr}`);
  }
  const outside = await runAgainst(core, ['report', 'margin', '--from', '2025-01-01', '--to', '2026-01-02']);
  assert.match(outside.stderr, /at most 366 days/);
});

test.run();
