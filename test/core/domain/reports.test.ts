/** The reports' rules without I/O: the period and its bounds, Lagos days into months, the margin. */
import * as assert from 'uvu/assert';
import { DomainError } from '../../../core/domain/errors.js';
import { kobo } from '../../../core/domain/money.js';
import {
  marginKobo,
  periodInstants,
  reportGroup,
  reportPeriod,
  rollUp,
  type SalesDayRow,
  salesFiguresOf,
  zeroSales,
} from '../../../core/domain/reports.js';
import { suite } from '../../helpers/suite.js';

const test = suite('domain: reports');

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    assert.instance(error, DomainError);
    return (error as DomainError).violations[0]?.field;
  }
  return undefined;
}

test('a period is Lagos days, both included: it starts at 23:00 UTC the day before', () => {
  const period = reportPeriod('2026-10-05', '2026-10-05', '');
  assert.is(period.by, 'day');
  const { from, until } = periodInstants(period);
  assert.is(from.toISOString(), '2026-10-04T23:00:00.000Z');
  assert.is(until.toISOString(), '2026-10-05T23:00:00.000Z');
});

test('a day report covers at most 366 days, a month report at most 60 months; anything else names its field', () => {
  assert.ok(reportPeriod('2024-01-01', '2024-12-31', 'day'), 'a leap year is 366 days');
  assert.ok(reportPeriod('2025-01-01', '2026-01-01', 'day'), 'and 366 days of a common year and a day');
  assert.is(
    fieldOf(() => reportPeriod('2025-01-01', '2026-01-02', 'day')),
    'to',
  );
  assert.ok(reportPeriod('2022-01-15', '2026-12-31', 'month'), 'sixty months, counted by calendar month');
  assert.is(
    fieldOf(() => reportPeriod('2021-12-31', '2026-12-01', 'month')),
    'to',
  );
  assert.is(
    fieldOf(() => reportPeriod('2026-10-02', '2026-10-01', 'day')),
    'to',
  );
  assert.is(
    fieldOf(() => reportPeriod('2026-02-29', '2026-03-01', 'day')),
    'from',
  );
  assert.is(
    fieldOf(() => reportPeriod('2026-10-01', '10/02/2026', 'day')),
    'to',
  );
  assert.is(
    fieldOf(() => reportPeriod('2026-10-01', '2026-10-02', 'week')),
    'by',
  );
  assert.is(reportGroup(''), 'product');
  assert.is(reportGroup('Tier'), 'tier');
  assert.is(
    fieldOf(() => reportGroup('staff')),
    'group',
  );
});

test('days roll up into months and a total; the margin keeps pending and unknown cost out', () => {
  const day = (date: string) =>
    Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8))) / 86_400_000;
  const row = (date: string, key: string, charged: number, cost: number, pending = 0, unknown = 0): SalesDayRow => ({
    ...zeroSales(),
    day: day(date),
    key,
    salesCount: 1,
    chargedKobo: kobo(charged),
    pendingCount: pending > 0 ? 1 : 0,
    pendingKobo: kobo(pending),
    costedCount: cost > 0 ? 1 : 0,
    costKobo: kobo(cost),
    costUnknownCount: unknown > 0 ? 1 : 0,
    costUnknownChargedKobo: kobo(unknown),
  });
  const days = [
    row('2026-09-30', 'airtime', 9_800, 9_600),
    row('2026-10-01', 'airtime', 9_800, 9_700),
    row('2026-10-31', 'data', 5_000, 0, 5_000),
    row('2026-10-31', 'airtime', 9_800, 0, 0, 9_800),
  ];
  const months = rollUp(days, 'month', (r) => r.key, salesFiguresOf, zeroSales);
  assert.equal(
    months.rows.map((r) => [r.period, r.key, r.figures.salesCount, r.figures.chargedKobo, marginKobo(r.figures)]),
    [
      ['2026-09', 'airtime', 1, 9_800, 200],
      ['2026-10', 'airtime', 2, 19_600, 100],
      ['2026-10', 'data', 1, 5_000, 0],
    ],
  );
  assert.is(months.total.chargedKobo, 34_400);
  assert.is(marginKobo(months.total), 300);
  const byDay = rollUp(days, 'day', (r) => r.key, salesFiguresOf, zeroSales);
  assert.equal(
    byDay.rows.map((r) => r.period),
    ['2026-09-30', '2026-10-01', '2026-10-31', '2026-10-31'],
  );
});

test.run();
