/**
 * What the core measures, and the one log line per purchase outcome. Prometheus series
 * (prom-client), served by a listener of their own (serveMetrics, CORE_METRICS_PORT):
 *
 *   prepaid_core_purchases_total{product,state,mode}                 purchase outcomes (below)
 *   prepaid_core_refunds_total{product,cause,mode}                   refunds: cause failed or reversed
 *   prepaid_core_refunded_kobo_total{product,mode}                   money refunded, in kobo
 *   prepaid_core_pending_transactions                                pending now (read at scrape time)
 *   prepaid_core_pending_needs_attention                             pending past the recovery deadline
 *   prepaid_core_pending_oldest_age_seconds                          age of the oldest pending (0 when none)
 *   prepaid_core_provider_call_duration_seconds{provider,product,operation,mode}   provider latency
 *   prepaid_core_provider_calls_total{provider,product,operation,outcome,mode}     provider answers
 *   prepaid_core_wallet_operation_duration_seconds{operation}        store transactions: reserve, settle, refund,
 *                                                                    reverse, credit
 *   prepaid_core_webhook_deliveries_total{outcome}                   webhook attempts: delivered, retry, failed
 *                                                                    (gave up)
 *   prepaid_core_webhook_undelivered_events                          events waiting for delivery (read at scrape time)
 *   prepaid_core_webhook_oldest_undelivered_age_seconds              age of the oldest of them (0 when none)
 *   prepaid_core_sales_below_cost_total{product,upstream,mode}       sales refused by the margin guard
 *   prepaid_core_upstream_purchases_total{upstream,product,outcome}  live purchase calls per upstream (below)
 *   prepaid_core_upstream_failovers_total{from,to,reason}            moves to the next upstream on proven non-delivery
 *   prepaid_core_upstream_skips_total{upstream,reason}               upstreams a route left out (reasons: its help)
 *   prepaid_core_upstream_circuit_state{upstream}                    0 closed, 1 half-open, 2 open (this core's
 *                                                                    breaker)
 *   prepaid_core_upstream_float_naira{upstream}                      our wallet at the upstream, last reading
 *   prepaid_core_upstream_float_alert_naira{upstream}                its alert threshold (0: none)
 *   prepaid_core_upstream_float_low_total{upstream}                  readings under the alert
 *
 * `state` counts each purchase when it is answered pending (202) and each time the store
 * records a final state, whoever records it (the purchase itself, the recovery worker, a
 * callback): success, failed (refunded), reversed (refunded after success). A purchase
 * answered 202 and delivered later counts once as pending and once as success.
 * `mode` is live or test (test purchases, always on the sandbox), so that test traffic never
 * counts as live sales or as the sandbox-routed live families' calls.
 * Provider `outcome` is delivered, failed, reversed, unknown (pending), or error (the call
 * threw or timed out); `operation` is purchase, query (requery), verify or notify.
 * An upstream purchase's `outcome` is what its attempt records: delivered, failed, pending, or
 * not_delivered (proven non-delivery; the purchase moved on, counted again at the next one).
 *
 * Nothing here is on the request path but counter increments and histogram observations:
 * the series are made once, with the core, and the pending gauges are read from the store
 * only when Prometheus scrapes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from '../runtime/log.js';
import { collectProcessMetrics } from '../runtime/metrics.js';
import type { Mode } from './domain/mode.js';
import type { ProductName } from './domain/products.js';
import type { PendingSummary, TransactionRecord } from './domain/records.js';
import { isRefunded } from './domain/transactions.js';
import type { FundingObserver } from './funding/service.js';
import type { ProductProvider, Providers } from './providers/port.js';
import type { Supply, Upstream } from './providers/supply.js';
import type { PurchaseObserver } from './purchases/flow.js';
import type { SupplyObserver } from './purchases/upstream-calls.js';
import type { CircuitState } from './purchases/upstream-health.js';
import type { UndeliveredSummary } from './store/event-port.js';

/** The states a purchase is counted in. */
type PurchaseState = 'success' | 'failed' | 'pending' | 'reversed';
/** What a refund undid: a failed purchase, or a delivered one the provider reversed. */
type RefundCause = 'failed' | 'reversed';
/** The calls made to a provider. */
type ProviderOperation = 'purchase' | 'query' | 'verify' | 'notify';
/** The store operations whose latency is measured. */
/** The money moves the store's operation series times, by their names from before the journal. */
const TIMED_MOVES = ['reserve', 'settle', 'refund', 'reverse', 'credit'] as const;
type WalletOperation = (typeof TIMED_MOVES)[number];

/** Whether a money move is one the series times. */
export function isTimedMove(kind: string): kind is WalletOperation {
  return (TIMED_MOVES as readonly string[]).includes(kind);
}

/** The core's series. */
export interface CoreMetrics {
  readonly registry: Registry;
  purchase(product: ProductName, state: PurchaseState, mode: Mode): void;
  refund(product: ProductName, cause: RefundCause, chargedKobo: number, mode: Mode): void;
  providerCall(
    provider: string,
    product: ProductName,
    operation: ProviderOperation,
    outcome: string,
    seconds: number,
    mode: Mode,
  ): void;
  walletOperation(operation: WalletOperation, seconds: number): void;
  /** Reads the pending gauges from `summary` at every scrape. */
  watchPending(summary: () => Promise<PendingSummary>, clock?: () => Date): void;
  /** Counts one webhook attempt by outcome: delivered, retry (failed, tried again later) or failed (given up). */
  webhookDelivery(outcome: 'delivered' | 'retry' | 'failed'): void;
  /** Reads the undelivered-events gauges from `summary` at every scrape. */
  watchUndelivered(summary: () => Promise<UndeliveredSummary>, clock?: () => Date): void;
  /**
   * Money in: inflows by provider and outcome, credited Naira, sweeper runs
   * (core/funding/service.ts FundingObserver).
   */
  readonly funding: FundingObserver;
  /** Reads the unmatched-inflows gauge from `count` at every scrape. */
  watchUnmatched(count: () => Promise<number>): void;
  /** Reads the sign-up funnel of the Lagos day so far at every scrape (docs/sign-up.md). */
  watchSignUps(funnel: () => Promise<SignUpFunnel>): void;
  /** Counts a sale the margin guard refused: its price was below the upstream's cost. */
  belowCost(product: ProductName, upstream: string, mode: Mode): void;
  /** Supply by upstream: attempts, failovers, skips, circuits, floats (core/purchases/upstream-calls.ts). */
  readonly supply: SupplyObserver;
  /** Counts a jump of the wall clock (runtime/clock-jump.ts) and keeps its size. */
  clockJump(jumpMs: number): void;
  /** Whether the store can write, and the backups of the embedded store (core/storage/). */
  readonly storage: StorageObserver;
}

/** What the store's write health and the backups tell the metrics. */
export interface StorageObserver {
  /** The store started (false) or stopped (true) refusing writes. */
  writable(ok: boolean): void;
  /** A scheduled or asked-for backup ended: written and verified, or not. */
  backup(ok: boolean): void;
  /** Where the newest good backup's time is read at every scrape (null: none yet); only with a schedule. */
  watchNewestBackup(newest: () => Date | null, clock: () => Date): void;
}

/** Provider latency buckets in seconds: upstreams answer in 0.1 to 5 s; 15 s is the default timeout. */
const PROVIDER_DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];
/**
 * Store transaction buckets in seconds: an embedded write is well under a millisecond
 * (its group commit waits up to a few), a MongoDB transaction a few milliseconds.
 */
const WALLET_DURATION_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/**
 * A registry with the core's series. `defaultMetrics` adds Node's own (CPU, memory,
 * event-loop lag, GC): core/main.ts asks for them, tests do not.
 */
export function createCoreMetrics(options: { defaultMetrics?: boolean } = {}): CoreMetrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectProcessMetrics(registry);
  const registers = [registry];
  const purchases = new Counter({
    name: 'prepaid_core_purchases_total',
    help:
      'Purchase outcomes by product, state and mode (live or test): pending when answered 202; ' +
      'success, failed or reversed when the store records that final state.',
    labelNames: ['product', 'state', 'mode'] as const,
    registers,
  });
  const refunds = new Counter({
    name: 'prepaid_core_refunds_total',
    help:
      'Refunds to wallets by product, cause (failed: the purchase failed; ' +
      'reversed: the provider undid a delivered one) and mode.',
    labelNames: ['product', 'cause', 'mode'] as const,
    registers,
  });
  const refundedKobo = new Counter({
    name: 'prepaid_core_refunded_kobo_total',
    help: 'Money refunded to wallets, in kobo, by product and mode.',
    labelNames: ['product', 'mode'] as const,
    registers,
  });
  const providerDuration = new Histogram({
    name: 'prepaid_core_provider_call_duration_seconds',
    help: 'Time a provider took to answer, by provider, product, operation (purchase, query, verify, notify) and mode.',
    labelNames: ['provider', 'product', 'operation', 'mode'] as const,
    buckets: PROVIDER_DURATION_BUCKETS,
    registers,
  });
  const providerCalls = new Counter({
    name: 'prepaid_core_provider_calls_total',
    help:
      'Provider calls by provider, product, operation, outcome and mode; ' +
      'failed, unknown and error are the failures.',
    labelNames: ['provider', 'product', 'operation', 'outcome', 'mode'] as const,
    registers,
  });
  const walletDuration = new Histogram({
    name: 'prepaid_core_wallet_operation_duration_seconds',
    help: 'Time of one store transaction on the money, by operation (reserve, settle, refund, reverse, credit).',
    labelNames: ['operation'] as const,
    buckets: WALLET_DURATION_BUCKETS,
    registers,
  });
  const pending = pendingSeries(registers);

  const webhooks = webhookSeries(registers);
  const supply = supplySeries(registers);
  const funding = fundingSeries(registers);
  const belowCost = new Counter({
    name: 'prepaid_core_sales_below_cost_total',
    help:
      'Sales refused by the margin guard (422 PRICE_BELOW_COST): ' + "the price was below the upstream's current cost.",
    labelNames: ['product', 'upstream', 'mode'] as const,
    registers,
  });

  return {
    registry,
    webhookDelivery: (outcome) => webhooks.deliveries.inc({ outcome }),
    watchUndelivered(summary, clock = () => new Date()) {
      webhooks.watch(summary, clock);
    },
    purchase: (product, state, mode) => purchases.inc({ product, state, mode }),
    refund(product, cause, chargedKobo, mode) {
      refunds.inc({ product, cause, mode });
      refundedKobo.inc({ product, mode }, chargedKobo);
    },
    providerCall(provider, product, operation, outcome, seconds, mode) {
      providerDuration.observe({ provider, product, operation, mode }, seconds);
      providerCalls.inc({ provider, product, operation, outcome, mode });
    },
    walletOperation: (operation, seconds) => walletDuration.observe({ operation }, seconds),
    watchPending(summary, clock = () => new Date()) {
      pending(summary, clock);
    },
    funding: funding.observer,
    watchUnmatched: (count) => funding.watch(count),
    watchSignUps: signUpSeries(registers),
    belowCost: (product, upstream, mode) => belowCost.inc({ product, upstream, mode }),
    supply,
    storage: storageSeries(registers),
    clockJump: clockSeries(registers),
  };
}

/** Today's sign-ups (Lagos) and how many of them reached each step since, by step. */
type SignUpFunnel = Readonly<
  Record<
    | 'signed_up'
    | 'email_verified'
    | 'phone_verified'
    | 'funded'
    | 'purchased'
    | 'level_2'
    | 'api_tier'
    | 'pending_reviews',
    number
  >
>;

/** `prepaid_core_sign_ups_today{step}`: the funnel of the day's sign-ups, read from the store at scrape time. */
function signUpSeries(registers: Registry[]): (funnel: () => Promise<SignUpFunnel>) => void {
  let read: (() => Promise<SignUpFunnel>) | undefined;
  new Gauge({
    name: 'prepaid_core_sign_ups_today',
    help:
      'Accounts signed up in the developer area this Lagos day, by how far they came: signed_up, ' +
      'email_verified, phone_verified, funded, purchased, level_2, api_tier; and pending_reviews, the level ' +
      'requests of any day waiting for staff now.',
    labelNames: ['step'],
    registers,
    async collect() {
      if (read === undefined) return;
      try {
        for (const [step, count] of Object.entries(await read())) this.set({ step }, count);
      } catch {
        this.set({ step: 'signed_up' }, Number.NaN);
      }
    },
  });
  return (funnel) => {
    read = funnel;
  };
}

/**
 * The store's write health and the backups: `prepaid_core_store_writable` turns 0 the moment a
 * write is refused by the disk and 1 once the probe writes again; the newest good backup's age
 * is read at scrape time, so it grows between backups and an alert can fire on it
 * (docs/operating.md, Alerts).
 */
function storageSeries(registers: Registry[]): StorageObserver {
  const writable = new Gauge({
    name: 'prepaid_core_store_writable',
    help: 'Whether the store can write: 0 while the disk refuses writes (full, read-only), else 1.',
    registers,
  });
  writable.set(1);
  const backups = new Counter({
    name: 'prepaid_core_backups_total',
    help: 'Backups of the embedded store by result: ok (written and verified) or failed.',
    labelNames: ['result'] as const,
    registers,
  });
  let newest: { at: () => Date | null; clock: () => Date; since: Date } | undefined;
  new Gauge({
    name: 'prepaid_core_backup_newest_age_seconds',
    help:
      'Age in seconds of the newest backup that was written and verified (while there is none, the time since ' +
      'scheduled backups began), so a schedule that never succeeds alerts too.',
    registers,
    collect() {
      if (newest === undefined) return;
      const at = newest.at() ?? newest.since;
      this.set(Math.max(0, (newest.clock().getTime() - at.getTime()) / 1000));
    },
  });
  return {
    writable: (ok) => writable.set(ok ? 1 : 0),
    backup: (ok) => backups.inc({ result: ok ? 'ok' : 'failed' }),
    watchNewestBackup(at, clock) {
      newest = { at, clock, since: clock() };
    },
  };
}

/** Jumps of the wall clock: how many, and the last one's size (runtime/clock-jump.ts). */
function clockSeries(registers: Registry[]): (jumpMs: number) => void {
  const jumps = new Counter({
    name: 'prepaid_core_clock_jumps_total',
    help: "Jumps of the core's wall clock against its monotonic clock past 5 s, forward or back.",
    registers,
  });
  const last = new Gauge({
    name: 'prepaid_core_clock_last_jump_seconds',
    help: "The last jump of the core's wall clock, in seconds: positive forward, negative back; 0 when none.",
    registers,
  });
  return (jumpMs) => {
    jumps.inc();
    last.set(jumpMs / 1000);
  };
}

/**
 * The three pending gauges, read from the store's pending summary at scrape time; returns
 * the function that names where that summary comes from.
 */
function pendingSeries(registers: Registry[]) {
  let pendingSource: { summary: () => Promise<PendingSummary>; clock: () => Date } | undefined;
  let lastSummary: Promise<PendingSummary> | undefined;
  /**
   * One store read serves the three pending gauges of a scrape: the first gauge to collect
   * starts it and the other two share it.
   */
  const summaryOnce = (): Promise<PendingSummary> | undefined => {
    if (pendingSource === undefined) return undefined;
    if (lastSummary === undefined) {
      lastSummary = pendingSource.summary();
      const clear = () => {
        lastSummary = undefined;
      };
      void lastSummary.then(
        () => setImmediate(clear),
        () => setImmediate(clear),
      );
    }
    return lastSummary;
  };
  /** A gauge whose value is read from the pending summary; NaN when the store cannot answer. */
  const pendingGauge = (name: string, help: string, pick: (summary: PendingSummary, now: Date) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const summary = summaryOnce();
        if (summary === undefined) return;
        try {
          this.set(pick(await summary, pendingSource!.clock()));
        } catch {
          // A store that is closing or unreachable must not fail the whole scrape.
          this.set(Number.NaN);
        }
      },
    });
  pendingGauge('prepaid_core_pending_transactions', 'Purchases whose outcome is not known yet.', (s) => s.count);
  pendingGauge(
    'prepaid_core_pending_needs_attention',
    'Pending purchases past RECOVERY_ATTENTION_AFTER_MS, waiting for a person.',
    (s) => s.needsAttentionCount,
  );
  pendingGauge(
    'prepaid_core_pending_oldest_age_seconds',
    'Age of the oldest pending purchase in seconds; 0 when none is pending.',
    (s, now) => (s.oldestCreatedAt === null ? 0 : Math.max(0, (now.getTime() - s.oldestCreatedAt.getTime()) / 1000)),
  );
  return (summary: () => Promise<PendingSummary>, clock: () => Date) => {
    pendingSource = { summary, clock };
  };
}

/** The value of each circuit state in prepaid_core_upstream_circuit_state. */
const CIRCUIT_VALUES: Readonly<Record<CircuitState, number>> = { closed: 0, half_open: 1, open: 2 };

/** Supply by upstream: what routing, the circuit breakers and the float poller decide. */
function supplySeries(registers: Registry[]): SupplyObserver {
  const purchases = new Counter({
    name: 'prepaid_core_upstream_purchases_total',
    help:
      'Live purchase calls by upstream, product and outcome: ' +
      'delivered, failed, pending, not_delivered (proven; moved to the next upstream).',
    labelNames: ['upstream', 'product', 'outcome'] as const,
    registers,
  });
  const failovers = new Counter({
    name: 'prepaid_core_upstream_failovers_total',
    help:
      'Purchases moved to the next upstream on proven non-delivery, by from, to and reason ' +
      '(refused, dns, tls, code_091, http_401...).',
    labelNames: ['from', 'to', 'reason'] as const,
    registers,
  });
  const skips = new Counter({
    name: 'prepaid_core_upstream_skips_total',
    help:
      'Upstreams a route left out of a purchase, by upstream and reason: ' +
      'circuit_open, float_low, not_sold, not_configured, below_cost.',
    labelNames: ['upstream', 'reason'] as const,
    registers,
  });
  const circuits = new Gauge({
    name: 'prepaid_core_upstream_circuit_state',
    help: "This core's circuit breaker per upstream: 0 closed, 1 half-open, 2 open.",
    labelNames: ['upstream'] as const,
    registers,
  });
  const floats = new Gauge({
    name: 'prepaid_core_upstream_float_naira',
    help: 'Our wallet at the upstream in Naira, as last read (upstreams with a balance call only).',
    labelNames: ['upstream'] as const,
    registers,
  });
  const alerts = new Gauge({
    name: 'prepaid_core_upstream_float_alert_naira',
    help: "The upstream's float alert in Naira (npx prepaid upstreams set-float-alert); 0 when none is set.",
    labelNames: ['upstream'] as const,
    registers,
  });
  const low = new Counter({
    name: 'prepaid_core_upstream_float_low_total',
    help: 'Float readings under the upstream float alert, by upstream (each also logged as upstream.float_low).',
    labelNames: ['upstream'] as const,
    registers,
  });
  return {
    attempt: (upstream, product, outcome) => purchases.inc({ upstream, product, outcome }),
    failover: (from, to, reason) => failovers.inc({ from, to, reason }),
    skipped: (upstream, reason) => skips.inc({ upstream, reason }),
    circuit: (upstream, state) => circuits.set({ upstream }, CIRCUIT_VALUES[state]),
    float(upstream, floatKobo, alertKobo) {
      floats.set({ upstream }, floatKobo / 100);
      alerts.set({ upstream }, (alertKobo ?? 0) / 100);
      if (alertKobo !== null && floatKobo < alertKobo) low.inc({ upstream });
    },
  };
}

/**
 * Money in: every inflow's outcome by provider, the Naira credited, the unmatched backlog and
 * the sweeper's runs.
 */
function fundingSeries(registers: Registry[]) {
  const inflows = new Counter({
    name: 'prepaid_core_funding_inflows_total',
    help:
      'Bank transfers heard of (notification, sweep or simulation) by provider and outcome: ' +
      'credited, already_credited, unmatched, not_paid, unknown, rejected.',
    labelNames: ['provider', 'outcome'] as const,
    registers,
  });
  const creditedNaira = new Counter({
    name: 'prepaid_core_funding_credited_naira_total',
    help: 'Naira credited to wallets from bank transfers (after the funding fee), by provider.',
    labelNames: ['provider'] as const,
    registers,
  });
  const sweeps = new Counter({
    name: 'prepaid_core_funding_sweeps_total',
    help: 'Funding sweeper runs by result: ok or failed.',
    labelNames: ['result'] as const,
    registers,
  });
  const lastSweep = new Gauge({
    name: 'prepaid_core_funding_sweep_last_success_timestamp_seconds',
    help: 'When the funding sweeper last finished a run without error (Unix seconds); 0 before the first.',
    registers,
  });
  let unmatchedCount: (() => Promise<number>) | undefined;
  new Gauge({
    name: 'prepaid_core_funding_unmatched_inflows',
    help: 'Bank transfers waiting for a person (prepaid funding unmatched): never credited on their own.',
    registers,
    async collect() {
      if (unmatchedCount === undefined) return;
      try {
        this.set(await unmatchedCount());
      } catch {
        this.set(Number.NaN);
      }
    },
  });
  const observer: FundingObserver = {
    inflow(provider, outcome, creditedKobo) {
      inflows.inc({ provider, outcome });
      if (creditedKobo > 0) creditedNaira.inc({ provider }, creditedKobo / 100);
    },
    sweep(ok, at) {
      sweeps.inc({ result: ok ? 'ok' : 'failed' });
      if (ok) lastSweep.set(at.getTime() / 1000);
    },
  };
  return {
    observer,
    watch(count: () => Promise<number>) {
      unmatchedCount = count;
    },
  };
}

/** The webhook series: attempts by outcome, and the undelivered events read at scrape time. */
function webhookSeries(registers: Registry[]) {
  const webhookDeliveries = new Counter({
    name: 'prepaid_core_webhook_deliveries_total',
    help:
      'Webhook delivery attempts by outcome: delivered (a 2xx), retry (failed, tried again later), ' +
      'failed (the retry window closed).',
    labelNames: ['outcome'] as const,
    registers,
  });
  let undeliveredSource: { summary: () => Promise<UndeliveredSummary>; clock: () => Date } | undefined;
  const undeliveredGauge = (name: string, help: string, pick: (summary: UndeliveredSummary, now: Date) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        if (undeliveredSource === undefined) return;
        try {
          this.set(pick(await undeliveredSource.summary(), undeliveredSource.clock()));
        } catch {
          this.set(Number.NaN);
        }
      },
    });
  undeliveredGauge(
    'prepaid_core_webhook_undelivered_events',
    'Events waiting for webhook delivery (pending or being retried).',
    (s) => s.count,
  );
  undeliveredGauge(
    'prepaid_core_webhook_oldest_undelivered_age_seconds',
    'Age of the oldest event waiting for webhook delivery in seconds; 0 when none.',
    (s, now) => (s.oldestCreatedAt === null ? 0 : Math.max(0, (now.getTime() - s.oldestCreatedAt.getTime()) / 1000)),
  );

  return {
    deliveries: webhookDeliveries,
    watch(summary: () => Promise<UndeliveredSummary>, clock: () => Date) {
      undeliveredSource = { summary, clock };
    },
  };
}

/** Hears every purchase outcome: writes its log line and counts it. */
export interface OutcomeRecorder extends PurchaseObserver {
  /** The store recorded `tx` as success, failed or reversed. */
  recorded(tx: TransactionRecord): void;
}

/**
 * One `purchase.outcome` line per outcome (info), with the facts a person needs to find the
 * purchase and none they must not see: no recipient (a customer's phone or meter), no
 * token, no key.
 */
export function createOutcomeRecorder(deps: { log: Logger; metrics?: CoreMetrics | undefined }): OutcomeRecorder {
  const record = (tx: TransactionRecord, state: PurchaseState) => {
    deps.metrics?.purchase(tx.product, state, tx.mode);
    if (isRefunded(state)) deps.metrics?.refund(tx.product, state, tx.chargedKobo, tx.mode);
    deps.log('purchase.outcome', {
      reference: tx.reference,
      account: tx.accountId,
      mode: tx.mode,
      product: tx.product,
      product_service: tx.service,
      state,
      charged_kobo: tx.chargedKobo,
      attempts: tx.attempts,
      ...(tx.failureReason === null ? {} : { reason: tx.failureReason }),
      age_ms: tx.updatedAt.getTime() - tx.createdAt.getTime(),
    });
  };
  return {
    leftPending(tx) {
      if (tx.status === 'pending') record(tx, 'pending');
    },
    refusedBelowCost(product, upstream, mode) {
      deps.metrics?.belowCost(product, upstream, mode);
    },
    recorded(tx) {
      if (tx.status !== 'pending') record(tx, tx.status);
    },
  };
}

/** One provider call timed and its outcome counted under `label` (a provider's or an upstream's name). */
function observe<T>(
  metrics: CoreMetrics,
  mode: Mode,
  label: string,
  product: ProductName,
  operation: ProviderOperation,
  call: () => Promise<T>,
  outcomeOf: (value: T) => string,
): Promise<T> {
  const started = performance.now();
  return call().then(
    (value) => {
      metrics.providerCall(label, product, operation, outcomeOf(value), (performance.now() - started) / 1000, mode);
      return value;
    },
    (error: unknown) => {
      metrics.providerCall(label, product, operation, 'error', (performance.now() - started) / 1000, mode);
      throw error;
    },
  );
}

/** A provider whose purchases and re-queries are timed and counted under `label`. */
function timedCalls<P extends ProductProvider>(
  metrics: CoreMetrics,
  mode: Mode,
  label: string,
  product: ProductName,
  provider: P,
): P {
  return {
    ...provider,
    purchase: (request, signal) =>
      observe(
        metrics,
        mode,
        label,
        product,
        'purchase',
        () => provider.purchase(request, signal),
        (o) => o.kind,
      ),
    query: (request, signal) =>
      observe(
        metrics,
        mode,
        label,
        product,
        'query',
        () => provider.query(request, signal),
        (o) => o.kind,
      ),
  };
}

/**
 * Each upstream's purchases and re-queries (live only: test purchases never reach an upstream)
 * timed and counted under the upstream's instance name, the name routes and attempts use.
 */
export function instrumentSupply(supply: Supply, metrics: CoreMetrics): Supply {
  const upstreams = new Map<string, Upstream>();
  for (const [name, upstream] of supply.upstreams) {
    const products: Partial<Record<ProductName, ProductProvider>> = {};
    for (const [product, provider] of Object.entries(upstream.products) as [ProductName, ProductProvider][])
      products[product] = timedCalls(metrics, 'live', name, product, provider);
    upstreams.set(name, { ...upstream, products });
  }
  return { ...supply, upstreams };
}

/**
 * The providers of one mode with every call timed and its outcome counted, by provider,
 * product and mode. Whatever else a provider offers (plan lists) is passed through as it is.
 */
export function instrumentProviders(providers: Providers, metrics: CoreMetrics, mode: Mode): Providers {
  const wrap = <P extends ProductProvider>(product: ProductName, provider: P): P =>
    timedCalls(metrics, mode, provider.name, product, provider);
  const observed = <T>(
    provider: ProductProvider,
    product: ProductName,
    operation: ProviderOperation,
    call: () => Promise<T>,
    outcomeOf: (value: T) => string,
  ) => observe(metrics, mode, provider.name, product, operation, call, outcomeOf);
  const { electricity, cable, bulksms } = providers;
  return {
    airtime: wrap('airtime', providers.airtime),
    data: wrap('data', providers.data),
    electricity: {
      ...wrap('electricity', electricity),
      verify: (query, signal) =>
        observed(
          electricity,
          'electricity',
          'verify',
          () => electricity.verify(query, signal),
          (o) => o.kind,
        ),
    },
    cable: {
      ...wrap('cable', cable),
      verify: (query, signal) =>
        observed(
          cable,
          'cable',
          'verify',
          () => cable.verify(query, signal),
          (o) => o.kind,
        ),
    },
    bulksms: {
      ...wrap('bulksms', bulksms),
      notify: (message, signal) =>
        observed(
          bulksms,
          'bulksms',
          'notify',
          () => bulksms.notify(message, signal),
          (accepted) => (accepted ? 'accepted' : 'refused'),
        ),
    },
  };
}

/** A running metrics listener. */
export interface MetricsServer {
  /** host:port it listens on. */
  address: string;
  port: number;
  close(): Promise<void>;
}

/** A scrape that takes longer than this is dropped; Prometheus's own default timeout is 10 s. */
const SCRAPE_TIMEOUT_MS = 10_000;

/**
 * Serves `registry` at `GET /metrics` on host:port (0 picks a free port). Anything else
 * is 404. It carries no business data beyond counts, but it binds where the core's gRPC
 * port does (CORE_HOST), which is this machine only by default.
 */
export async function serveMetrics(registry: Registry, host: string, port: number): Promise<MetricsServer> {
  const server = http.createServer({ requestTimeout: SCRAPE_TIMEOUT_MS }, (req, res) => {
    const path = req.url?.split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res
        .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
        .end('Not found; metrics are at GET /metrics.\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () =>
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    address: `${host.includes(':') ? `[${host}]` : host}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
