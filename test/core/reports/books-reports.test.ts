/**
 * The reports are sums of the books' postings, and they say exactly what they said when they
 * were computed from each purchase's status and last attempt and each inflow's status and
 * amounts (that computation is kept in test/helpers/report-oracle.ts as the oracle). A varied
 * stretch of business is written through the store's door; every group, by day and by month,
 * the store's day rows, the reports and the tables every client renders are compared row by
 * row. On SQLite the store is a file, so the sums run on the report's thread as in production;
 * on MongoDB it runs with MONGODB_URI (SKIPPED otherwise).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from '@bufbuild/protobuf';
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import * as assert from 'uvu/assert';
import { LAGOS_OFFSET_MS } from '../../../core/domain/people.js';
import type { ReportGroup } from '../../../core/domain/reports.js';
import { createReports, type FundingReport, type SalesReport } from '../../../core/reports/service.js';
import { fundingReportMessage, salesReportMessage } from '../../../core/rpc/reports.js';
import { openMongoStore } from '../../../core/store/mongo/index.js';
import type { ReportStore, ReportWindow, Store } from '../../../core/store/port.js';
import { openSqliteStore } from '../../../core/store/sqlite/index.js';
import { FundingReportSchema, SalesReportSchema } from '../../../gen/prepaid/v1/console_pb.js';
import { fundingTable, salesTable } from '../../../runtime/report-tables.js';
import { ACTIVITY_DAYS, ACTIVITY_WINDOW, fillReportActivity, fillTestMode } from '../../helpers/report-activity.js';
import { mongoOracle, sqliteOracle } from '../../helpers/report-oracle.js';
import { suite } from '../../helpers/suite.js';

const SEED = Number(process.env['REPORTS_SEED'] ?? 20310330);
const GROUPS: readonly ReportGroup[] = ['product', 'upstream', 'tier'];
const window: ReportWindow = { ...ACTIVITY_WINDOW, offsetMs: LAGOS_OFFSET_MS };
/** One Lagos day inside the stretch, so a period's edges cut through its activity too. */
const oneDay: ReportWindow = {
  from: new Date(Date.UTC(2031, 2, 30, 23)),
  until: new Date(Date.UTC(2031, 2, 31, 23)),
  offsetMs: LAGOS_OFFSET_MS,
};

/** The table the CLI and the console render from the RPC's answer. */
const salesText = (report: SalesReport) => salesTable(create(SalesReportSchema, salesReportMessage(report)));
const fundingText = (report: FundingReport) => fundingTable(create(FundingReportSchema, fundingReportMessage(report)));

/** The old computation as a ReportStore, so the reports and tables can be built from it too. */
/** The old status-based sums: the sales and money-in figures the postings must equal. */
type Oracle = Pick<ReportStore, 'salesByDay' | 'fundingByDay'>;

/**
 * The store's day rows, each read once: a file store sums on a thread of its own per call,
 * and the reports by day and by month of the stretch read the same window again.
 */
function remembered(reports: ReportStore): ReportStore {
  const kept = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    if (!kept.has(key)) kept.set(key, read());
    return kept.get(key) as Promise<T>;
  };
  const id = (w: ReportWindow) => `${w.from.toISOString()} ${w.until.toISOString()} ${w.offsetMs}`;
  return {
    salesByDay: (w, group) => once(`${id(w)} ${group}`, () => reports.salesByDay(w, group)),
    fundingByDay: (w) => once(id(w), () => reports.fundingByDay(w)),
    manualByDay: (w) => once(`${id(w)} manual`, () => reports.manualByDay(w)),
  };
}

async function compare(store: ReportStore, oracle: Oracle, endings: Map<string, number>): Promise<void> {
  for (const w of [window, oneDay]) {
    for (const group of GROUPS) {
      const books = await store.salesByDay(w, group);
      const old = await oracle.salesByDay(w, group);
      assert.ok(old.length > 2, `the ${group} rows are not empty`);
      assert.is(books.length, old.length, `as many ${group} rows as before`);
      for (const [i, row] of old.entries()) assert.equal(books[i], row, `${group} row ${i} (${row.day}, ${row.key})`);
    }
    const books = await store.fundingByDay(w);
    const old = await oracle.fundingByDay(w);
    assert.ok(old.length > 1, 'the funding rows are not empty');
    assert.equal(books, old, 'the funding rows are as before');
  }
  // The sign-up funnel is no sum of postings: it is not compared here.
  const signUps = {} as Store['signUps'];
  const kyc = {} as Store['kyc'];
  const now = createReports({ reports: store, signUps, kyc });
  // Manual moves are read from the books alone: the old computation had none to compare.
  const before = createReports({ reports: { ...oracle, manualByDay: store.manualByDay }, signUps, kyc });
  for (const by of ['day', 'month']) {
    for (const group of GROUPS) {
      const ask = { ...ACTIVITY_DAYS, by, group };
      const [a, b] = [await now.sales(ask), await before.sales(ask)];
      assert.equal(a, b, `the ${group} report by ${by}`);
      assert.equal(salesText(a), salesText(b), `the ${group} table by ${by}`);
    }
    const ask = { ...ACTIVITY_DAYS, by, group: '' };
    const [a, b] = [await now.funding(ask), await before.funding(ask)];
    assert.equal(a, b, `the funding report by ${by}`);
    assert.equal(fundingText(a), fundingText(b), `the funding table by ${by}`);
  }
  // The stretch is varied enough to prove something: every figure is there, months apart.
  const total = (await now.sales({ ...ACTIVITY_DAYS, by: 'month', group: 'product' })).total;
  for (const [name, value] of Object.entries(total)) assert.ok(value > 0, `the total's ${name} is not zero`);
  const funding = (await now.funding({ ...ACTIVITY_DAYS, by: 'month', group: '' })).total;
  for (const [name, value] of Object.entries(funding)) assert.ok(value > 0, `the funding total's ${name} is not zero`);
  assert.is((await now.sales({ ...ACTIVITY_DAYS, by: 'month', group: 'tier' })).rows.length, 6, '2 months x 3 tiers');
  for (const ending of ['reverse_learnt', 'learnt_after_reverse', 'failover', 'unattempted'])
    assert.ok((endings.get(ending) ?? 0) > 0, `the seed made a live purchase ending ${ending}`);
}

/** Test money is not the business's: more of it, of every kind, moves no report. */
async function testModeLeftOut(store: Store, seen: ReportStore, accountIds: readonly string[]): Promise<void> {
  await fillTestMode(store, accountIds, SEED);
  const held = (await store.books.sums()).find((row) => row.mode === 'test' && row.account === 'held:purchases');
  assert.ok((held?.sumKobo ?? 0) < 0, 'the test world holds purchases of its own');
  for (const group of GROUPS)
    assert.equal(await store.reports.salesByDay(window, group), await seen.salesByDay(window, group), group);
  assert.equal(
    await store.reports.fundingByDay(window),
    await seen.fundingByDay(window),
    'the test world adds nothing',
  );
}

const sqlite = suite('reports from the books: sqlite');
let dir: string;
const closing: Array<() => Promise<void> | void> = [];
sqlite.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'prepaid-reports-'));
});
sqlite.after.each(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  rmSync(dir, { recursive: true, force: true });
});

sqlite('every report, group and bucket sums the postings to exactly what the old computation said', async () => {
  const filename = join(dir, 'prepaid.db');
  const store = openSqliteStore({ filename });
  closing.push(() => store.close());
  const { endings, accountIds } = await fillReportActivity(store, SEED);
  const raw = new Database(filename, { readonly: true });
  closing.push(() => {
    raw.close();
  });
  const oracle: Oracle = {
    salesByDay: async (w, group) => sqliteOracle.sales(raw, w, group),
    fundingByDay: async (w) => sqliteOracle.funding(raw, w),
  };
  const seen = remembered(store.reports);
  await compare(seen, oracle, endings);
  await testModeLeftOut(store, seen, accountIds);
});

sqlite.run();

const uri = process.env['MONGODB_URI']?.trim() ?? '';
const mongo = suite('reports from the books: mongo');
if (uri === '') {
  console.log('reports from the books on MongoDB: SKIPPED (set MONGODB_URI to a replica set to run it)');
  mongo.skip('every report sums the postings to what the old computation said (MONGODB_URI not set)', () => {});
} else {
  mongo('every report, group and bucket sums the postings to exactly what the old computation said', async () => {
    const dbName = `prepaid_test_reports_${Date.now().toString(36)}`;
    const store = await openMongoStore({ uri, dbName });
    const client = new MongoClient(uri);
    try {
      const { endings, accountIds } = await fillReportActivity(store, SEED);
      const db = client.db(dbName);
      const oracle: Oracle = {
        salesByDay: (w, group) => mongoOracle.sales(db, w, group),
        fundingByDay: (w) => mongoOracle.funding(db, w),
      };
      const seen = remembered(store.reports);
      await compare(seen, oracle, endings);
      await testModeLeftOut(store, seen, accountIds);
    } finally {
      await store.close();
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
}
mongo.run();
