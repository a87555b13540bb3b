/** Supply on SQLite: upstream attempts, the route table and upstream settings. */
import type Database from 'better-sqlite3';
import { costKnownPostings } from '../../domain/books.js';
import type { Mode } from '../../domain/mode.js';
import { type Kobo, kobo } from '../../domain/money.js';
import type { ProductName } from '../../domain/products.js';
import { RAW_ANSWERS_PER_PURCHASE } from '../../domain/raw-answers.js';
import type {
  RouteRecord,
  UpstreamAnswerRecord,
  UpstreamAnswerSource,
  UpstreamAttemptOutcome,
  UpstreamAttemptRecord,
  UpstreamSettingsRecord,
} from '../../domain/records.js';
import type { AttemptEnd, NewUpstreamAnswer, RouteKey, SupplyMoney, SupplyStore } from '../port.js';
import { type BookStatements, book, postingsOf, prepareBookStatements } from './books.js';
import type { GroupCommit } from './group-commit.js';
import { fromMs, toMs } from './rows.js';

interface AttemptRow {
  reference: string;
  seq: number;
  upstream: string;
  started_at: number;
  outcome: string | null;
  evidence: string | null;
  cost_kobo: number | null;
  upstream_reference: string | null;
  ended_at: number | null;
}

interface AnswerRow {
  reference: string;
  n: number;
  upstream: string;
  source: string;
  body: string;
  at: number;
}

function answerFromRow(row: AnswerRow): UpstreamAnswerRecord {
  return {
    reference: row.reference,
    n: row.n,
    upstream: row.upstream,
    source: row.source as UpstreamAnswerSource,
    body: row.body,
    at: fromMs(row.at),
  };
}

interface RouteRow {
  product: string;
  network: string;
  plan_type: string;
  disco: string;
  upstreams: string;
  updated_at: number;
}

interface SettingsRow {
  upstream: string;
  float_alert_kobo: number | null;
  updated_at: number;
}

function attemptFromRow(row: AttemptRow): UpstreamAttemptRecord {
  return {
    reference: row.reference,
    seq: row.seq,
    upstream: row.upstream,
    startedAt: fromMs(row.started_at),
    outcome: row.outcome as UpstreamAttemptOutcome | null,
    evidence: row.evidence,
    costKobo: row.cost_kobo === null ? null : kobo(row.cost_kobo),
    upstreamReference: row.upstream_reference,
    endedAt: row.ended_at === null ? null : fromMs(row.ended_at),
  };
}

function routeFromRow(row: RouteRow): RouteRecord {
  return {
    product: row.product as ProductName,
    network: row.network,
    planType: row.plan_type,
    disco: row.disco,
    upstreams: JSON.parse(row.upstreams) as string[],
    updatedAt: fromMs(row.updated_at),
  };
}

function settingsFromRow(row: SettingsRow): UpstreamSettingsRecord {
  return {
    upstream: row.upstream,
    floatAlertKobo: row.float_alert_kobo === null ? null : kobo(row.float_alert_kobo),
    updatedAt: fromMs(row.updated_at),
  };
}

function keyParams(key: RouteKey): Omit<RouteRow, 'upstreams' | 'updated_at'> {
  return { product: key.product, network: key.network, plan_type: key.planType, disco: key.disco };
}

/**
 * Writing attempts: begun before a call, ended once. The wallet runs them too, inside the
 * reserve and the settle, refund or pending write of the same purchase.
 */
export function prepareAttemptStatements(db: Database.Database) {
  return {
    lastAnswer: db.prepare<[string], AnswerRow>(
      'SELECT * FROM upstream_answers WHERE reference = ? ORDER BY n DESC LIMIT 1',
    ),
    addAnswer: db.prepare<AnswerRow>(
      `INSERT INTO upstream_answers (reference, n, upstream, source, body, at)
     VALUES (@reference, @n, @upstream, @source, @body, @at)
     ON CONFLICT (reference, n) DO UPDATE SET upstream = excluded.upstream, source = excluded.source,
       body = excluded.body, at = excluded.at`,
    ),
    // A new attempt has no upstream id yet: the column takes its default, null.
    begin: db.prepare<Omit<AttemptRow, 'upstream_reference'>>(
      `INSERT INTO upstream_attempts (reference, seq, upstream, started_at, outcome, evidence, cost_kobo, ended_at)
     VALUES (@reference, @seq, @upstream, @started_at, NULL, NULL, NULL, NULL)
     ON CONFLICT (reference, seq) DO NOTHING`,
    ),
    end: db.prepare<
      Pick<AttemptRow, 'reference' | 'seq' | 'outcome' | 'evidence' | 'cost_kobo' | 'upstream_reference' | 'ended_at'>
    >(
      `UPDATE upstream_attempts SET outcome = @outcome, evidence = @evidence, cost_kobo = @cost_kobo,
         upstream_reference = COALESCE(@upstream_reference, upstream_reference), ended_at = @ended_at
     WHERE reference = @reference AND seq = @seq AND outcome IS NULL`,
    ),
    /** The cost of a purchase's delivered attempt, the last one that recorded it (the books' settle). */
    deliveredCost: db.prepare<[string], { upstream: string; cost_kobo: number }>(
      `SELECT upstream, cost_kobo FROM upstream_attempts
       WHERE reference = ? AND outcome = 'delivered' AND cost_kobo IS NOT NULL ORDER BY seq DESC LIMIT 1`,
    ),
  };
}

/**
 * Keeps an upstream's answer about a purchase, inside the caller's transaction: not again when
 * it equals the last one kept; past the bound, in the last one's place.
 */
export function keepAnswer(
  statements: ReturnType<typeof prepareAttemptStatements>,
  reference: string,
  answers: readonly NewUpstreamAnswer[] | undefined,
  at: Date,
): void {
  for (const answer of answers ?? []) {
    const last = statements.lastAnswer.get(reference);
    if (last !== undefined && last.source === answer.source && last.body === answer.body) continue;
    const n = last === undefined ? 1 : Math.min(last.n + 1, RAW_ANSWERS_PER_PURCHASE);
    statements.addAnswer.run({ reference, n, ...answer, at: toMs(at) });
  }
}

/** An attempt's end as its row's parameters. */
export function attemptEndRow(reference: string, end: AttemptEnd, at: Date) {
  return {
    reference,
    seq: end.seq,
    outcome: end.outcome,
    evidence: end.evidence,
    cost_kobo: end.costKobo,
    upstream_reference: end.upstreamReference ?? null,
    ended_at: toMs(at),
  };
}

/**
 * A delivered purchase settled before its cost was known, whose cost is learnt now: its
 * revenue of unknown cost becomes revenue, and the cost leaves that upstream's float, once.
 */
function bookLearntCost(books: BookStatements, reference: string, seq: number, costKobo: Kobo, at: Date): void {
  const settled = postingsOf(books, reference, 'settle');
  const unknown = settled.find((posting) => posting.account === 'revenue:sales_cost_unknown');
  if (unknown === undefined || postingsOf(books, reference, 'cost_known').length > 0) return;
  // A delivery the upstream already undid has no cost to book: its reversal gave everything back.
  if (postingsOf(books, reference, 'reverse').length > 0) return;
  const upstream = books.upstreamOf.get({ reference, seq })?.upstream;
  if (upstream === undefined) return;
  const entryMode = books.modeOf.get(reference)?.mode as Mode;
  book(
    books,
    'cost_known',
    entryMode,
    reference,
    at,
    costKnownPostings(kobo(-unknown.amountKobo), { upstream, costKobo }),
  );
}

export function createSupplyStore(db: Database.Database, commit: GroupCommit): SupplyStore & SupplyMoney {
  const statements = prepareAttemptStatements(db);
  const books = prepareBookStatements(db);
  const { begin, end } = statements;
  const answersOf = db.prepare<[string], AnswerRow>('SELECT * FROM upstream_answers WHERE reference = ? ORDER BY n');
  const later = db.prepare<Pick<AttemptRow, 'reference' | 'seq' | 'cost_kobo' | 'ended_at'>>(
    `UPDATE upstream_attempts SET outcome = 'delivered', cost_kobo = @cost_kobo,
       ended_at = COALESCE(ended_at, @ended_at)
     WHERE reference = @reference AND seq = @seq AND (outcome IS NULL OR outcome = 'pending')`,
  );
  const attemptsOf = db.prepare<[string], AttemptRow>(
    'SELECT * FROM upstream_attempts WHERE reference = ? ORDER BY seq',
  );
  const attemptsBetween = db.prepare<[number, number, number], AttemptRow>(
    `SELECT * FROM upstream_attempts WHERE started_at >= ? AND started_at < ?
     ORDER BY started_at, reference, seq LIMIT ?`,
  );
  const listRoutes = db.prepare<[], RouteRow>('SELECT * FROM routes ORDER BY product, network, plan_type, disco');
  const getRoute = db.prepare<Omit<RouteRow, 'upstreams' | 'updated_at'>, RouteRow>(
    `SELECT * FROM routes
     WHERE product = @product AND network = @network AND plan_type = @plan_type AND disco = @disco`,
  );
  const putRoute = db.prepare<RouteRow>(
    `INSERT INTO routes (product, network, plan_type, disco, upstreams, updated_at)
     VALUES (@product, @network, @plan_type, @disco, @upstreams, @updated_at)
     ON CONFLICT (product, network, plan_type, disco) DO UPDATE SET upstreams = excluded.upstreams,
       updated_at = excluded.updated_at`,
  );
  const deleteRoute = db.prepare<Omit<RouteRow, 'upstreams' | 'updated_at'>>(
    'DELETE FROM routes WHERE product = @product AND network = @network AND plan_type = @plan_type AND disco = @disco',
  );
  const listSettings = db.prepare<[], SettingsRow>('SELECT * FROM upstream_settings ORDER BY upstream');
  const getSettings = db.prepare<[string], SettingsRow>('SELECT * FROM upstream_settings WHERE upstream = ?');
  const putSettings = db.prepare<SettingsRow>(
    `INSERT INTO upstream_settings (upstream, float_alert_kobo, updated_at)
       VALUES (@upstream, @float_alert_kobo, @updated_at)
     ON CONFLICT (upstream) DO UPDATE SET float_alert_kobo = excluded.float_alert_kobo,
       updated_at = excluded.updated_at`,
  );
  return {
    async beginAttempt(attempt) {
      // On the purchase path: one operation of the shared commit, like the money operations.
      return commit.run(
        () =>
          begin.run({
            reference: attempt.reference,
            seq: attempt.seq,
            upstream: attempt.upstream,
            started_at: toMs(attempt.at),
            outcome: null,
            evidence: null,
            cost_kobo: null,
            ended_at: null,
          }).changes === 1,
      );
    },
    async endAttempt(reference, seq, outcome) {
      await commit.run(() => {
        end.run(attemptEndRow(reference, { ...outcome, seq }, outcome.at));
        keepAnswer(statements, reference, outcome.answers, outcome.at);
      });
    },
    async deliveredLater(reference, seq, costKobo, at) {
      return commit.run(() => {
        if (later.run({ reference, seq, cost_kobo: costKobo, ended_at: toMs(at) }).changes !== 1) return false;
        if (costKobo !== null) bookLearntCost(books, reference, seq, costKobo, at);
        return true;
      });
    },
    async attemptsOf(reference) {
      return attemptsOf.all(reference).map(attemptFromRow);
    },
    async answersOf(reference) {
      return answersOf.all(reference).map(answerFromRow);
    },
    async attemptsBetween(from, to, limit) {
      return attemptsBetween.all(toMs(from), toMs(to), limit).map(attemptFromRow);
    },
    async listRoutes() {
      return listRoutes.all().map(routeFromRow);
    },
    async setRoute(route) {
      return db
        .transaction(() => {
          const before = getRoute.get(keyParams(route));
          putRoute.run({
            ...keyParams(route),
            upstreams: JSON.stringify(route.upstreams),
            updated_at: toMs(route.updatedAt),
          });
          return before === undefined ? null : routeFromRow(before);
        })
        .immediate();
    },
    async clearRoute(key) {
      return db
        .transaction(() => {
          const before = getRoute.get(keyParams(key));
          if (before === undefined) return null;
          deleteRoute.run(keyParams(key));
          return routeFromRow(before);
        })
        .immediate();
    },
    async listUpstreamSettings() {
      return listSettings.all().map(settingsFromRow);
    },
    async setUpstreamSettings(settings) {
      return db
        .transaction(() => {
          const before = getSettings.get(settings.upstream);
          putSettings.run({
            upstream: settings.upstream,
            float_alert_kobo: settings.floatAlertKobo,
            updated_at: toMs(settings.updatedAt),
          });
          return before === undefined ? null : settingsFromRow(before);
        })
        .immediate();
    },
  };
}
