/**
 * The two-phase purchase (docs/money.md), like a pending transfer in a ledger:
 *   1. the order is already validated and priced (core/domain/orders.ts);
 *   2. reserve: debit, ledger entry and pending transaction in one store transaction;
 *   3. call the provider outside any store transaction, with our reference as its request id;
 *   4. settle (success), refund exactly once (definitive failure), or leave pending for the
 *      recovery worker when the outcome is unknown. An unknown outcome is never refunded.
 */
import { createHash } from 'node:crypto';
import { DomainError, invalid } from '../domain/errors.js';
import { capExceeded } from '../domain/key-controls.js';
import { levelLimitExceeded } from '../domain/levels.js';
import type { Mode } from '../domain/mode.js';
import { formatNaira, type Kobo } from '../domain/money.js';
import { goodsMissing, type ProductName, type PurchaseOrder } from '../domain/products.js';
import { recipientRefused } from '../domain/recipient-controls.js';
import type { ReserveChecks, TransactionRecord } from '../domain/records.js';
import { newReference } from '../domain/reference.js';
import { firstAnswer, isRefunded, nextAttempt, type RetrySchedule } from '../domain/transactions.js';
import { REQUEST_ID_PATTERN } from '../domain/validation.js';
import type { ProviderOutcome, ProviderRequest, ProvidersByMode } from '../providers/port.js';
import type { AttemptEnd, NewUpstreamAnswer, Store } from '../store/port.js';
import { leavesCostToRecord } from './observed-costs.js';
import { type Background, sendReceipt } from './receipts.js';
import {
  answersOf,
  callUpstreamWithDeadline,
  purchaseAtUpstreams,
  routePurchase,
  type SupplyDeps,
} from './upstream-calls.js';

export interface PurchaseDeps {
  /** The flow moves money, reads purchases back and records which upstream got each call. */
  store: Pick<Store, 'ledger' | 'wallet' | 'transactions' | 'supply'>;
  /** Each mode's providers: a purchase is always served by its own mode's (test: the sandbox). */
  providers: ProvidersByMode;
  clock: () => Date;
  /** How long one provider call may take before its outcome counts as unknown. */
  providerTimeoutMs: number;
  /** References whose first provider call is still running in this process. */
  inFlight: Set<string>;
  /** Fire-and-forget work (receipts) that shutdown waits for. */
  background: Background;
  log: (event: string, fields: Record<string, unknown>) => void;
  /** Told when a purchase is left pending, for the outcome log and metrics (core/metrics.ts). */
  observer?: PurchaseObserver;
  /**
   * Upstreams, routes and their health: live purchases are routed and may fail over;
   * without it each family's provider takes every purchase, as before.
   */
  supply?: SupplyDeps;
  /**
   * When a still-pending purchase is asked again and when a person is asked
   * (`RECOVERY_ATTENTION_AFTER_MS`): one schedule for every re-query, the recovery worker's,
   * the console's and a callback's, so none of them unflags a purchase another one flagged.
   * None: `DEFAULT_RETRY_SCHEDULE`.
   */
  retrySchedule?: RetrySchedule;
  /**
   * The velocity brake (core/accounts/velocity.ts): a purchase naming its key (`checks.key`)
   * is refused when this core froze the key, and its reserve is counted; none: nothing is.
   */
  velocity?: {
    /** Throws KEY_FROZEN for a key the brake froze on this core; synchronous, no read. */
    refuseIfFrozen(publicKey: string | undefined): void;
    /** Counts a live reserve of the key, in memory. */
    noteReserve(publicKey: string, chargedKobo: Kobo, recipient: string, at: Date): void;
  };
}

/**
 * Hears what the store cannot tell: that a purchase's first provider answer was not a
 * certain one, so it stays pending (settlements, refunds and reversals are seen where the
 * store records them, core/metrics.ts instrumentStore).
 */
export interface PurchaseObserver {
  /** The first provider call of `tx` gave no certain outcome: it is answered (or stays) pending. */
  leftPending(tx: TransactionRecord): void;
  /** The margin guard refused a sale: its price was below what `upstream` charges for it now. */
  refusedBelowCost(product: ProductName, upstream: string, mode: Mode): void;
}

export interface PurchaseResult {
  transaction: TransactionRecord;
  /** True when an idempotency key matched an earlier request and nothing new happened. */
  replayed: boolean;
}

/**
 * The request fingerprint kept with an idempotency key: the product and what the caller
 * asked for, never what the catalog made of it, so a retry after a price, label or rate
 * change is still the same request. Keys are sorted so the hash does not depend on the
 * order in which a rule listed them.
 */
export function orderHash(order: Pick<PurchaseOrder, 'product' | 'asked'>): string {
  const asked = Object.keys(order.asked)
    .sort()
    .map((key) => [key, order.asked[key]]);
  return createHash('sha256')
    .update(JSON.stringify([order.product, asked]))
    .digest('hex');
}

export function providerRequestOf(
  tx: Pick<TransactionRecord, 'reference' | 'product' | 'service' | 'recipient' | 'faceValueKobo' | 'details'>,
): ProviderRequest {
  return {
    reference: tx.reference,
    product: tx.product,
    service: tx.service,
    recipient: tx.recipient,
    faceValueKobo: tx.faceValueKobo,
    details: tx.details,
  };
}

/**
 * How long one provider call holds a pending transaction: a purchase's own call from the
 * reserve, or a recovery re-query from its claim. Twice the provider's bound, so the call
 * and the store writes after it fit; a holder that died lets go when it ends.
 */
export function leaseUntil(now: Date, providerTimeoutMs: number): Date {
  return new Date(now.getTime() + providerTimeoutMs * 2);
}

/**
 * The first request with this key may still be waiting for the provider, on this core or on
 * another: nothing has been recorded of its call yet (no attempt) and its lease has not
 * ended. A transaction whose lease ended unanswered is a crash survivor, answered pending.
 */
function stillInProgress(tx: TransactionRecord, inFlight: ReadonlySet<string>, now: Date): boolean {
  if (tx.status !== 'pending') return false;
  return inFlight.has(tx.reference) || (tx.attempts === 0 && tx.nextAttemptAt.getTime() > now.getTime());
}

export async function executePurchase(
  deps: PurchaseDeps,
  accountId: string,
  mode: Mode,
  order: PurchaseOrder,
  requestId: string,
  /** Upstreams of the route the sale would be below cost at (the margin guard's choice). */
  belowCost: readonly string[] = [],
  /** The key's and account's controls the reserve checks in its transaction; none: nothing more is read. */
  checks?: ReserveChecks,
): Promise<PurchaseResult> {
  if (requestId !== '' && !REQUEST_ID_PATTERN.test(requestId)) {
    throw invalid('request_id', 'request_id must be 1 to 64 letters, digits, "_" or "-".');
  }
  // Before anything is read: a key frozen here moments ago costs nothing more.
  deps.velocity?.refuseIfFrozen(checks?.key);
  const now = deps.clock();
  const requestHash = requestId ? orderHash(order) : null;
  const reference = newReference(now);
  // A live purchase is routed first, so its first attempt is written with the reserve.
  const routed =
    deps.supply !== undefined && mode === 'live'
      ? await routePurchase(deps.supply, providerRequestOf({ reference, ...order }), belowCost)
      : undefined;
  const first = routed?.candidates[0];
  const reserved = await deps.store.ledger.post({
    kind: 'reserve',
    tx: {
      reference,
      accountId,
      mode,
      product: order.product,
      service: order.service,
      recipient: order.recipient,
      faceValueKobo: order.faceValueKobo,
      chargedKobo: order.chargedKobo,
      details: order.details,
      requestId: requestId || null,
      requestHash,
      // The recovery worker leaves the transaction alone while this request may still be
      // waiting for the provider (the lease); after that it is a crash survivor and gets
      // re-queried. Until then a retry with the same key, on any core, is REQUEST_IN_PROGRESS.
      nextAttemptAt: leaseUntil(now, deps.providerTimeoutMs),
      createdAt: now,
    },
    first: first === undefined ? undefined : { upstream: first.name },
    checks,
  });

  switch (reserved.outcome) {
    case 'no_account':
      throw new DomainError('NOT_FOUND', `Account ${accountId} was not found.`);
    case 'insufficient':
      throw new DomainError(
        'INSUFFICIENT_BALANCE',
        `The wallet balance of ${formatNaira(reserved.balanceKobo)} Naira ` +
          `does not cover the charge of ${formatNaira(order.chargedKobo)} Naira.`,
        { metadata: { balance_kobo: String(reserved.balanceKobo), charge_kobo: String(order.chargedKobo) } },
      );
    case 'key_cap':
      throw capExceeded(reserved.refusal, order.chargedKobo);
    case 'level_limit':
      throw levelLimitExceeded(reserved.refusal, order.chargedKobo);
    case 'recipient':
      throw recipientRefused(reserved.refusal, Math.round((checks?.recipient?.duplicateWindowMs ?? 0) / 1000));
    case 'duplicate':
      return replay(deps, reserved.transaction, requestHash);
    case 'reserved':
      break;
  }

  const tx = reserved.transaction;
  // Live money only: the brake guards real wallets, and a test key's bursts are the partner's tests.
  if (checks?.key !== undefined && mode === 'live')
    deps.velocity?.noteReserve(checks.key, tx.chargedKobo, tx.recipient, now);
  deps.inFlight.add(tx.reference);
  try {
    let final: TransactionRecord;
    try {
      const { outcome, attempt, answers } =
        deps.supply !== undefined && routed !== undefined
          ? await purchaseAtUpstreams({ ...deps, supply: deps.supply }, tx, providerRequestOf(tx), routed)
          : await purchaseAtFamilyProvider(deps, tx);
      final = await applyOutcome(deps, tx, outcome, 0, attempt, answers);
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'STORE_UNAVAILABLE')) throw error;
      final = heldForRecovery(deps, tx, error);
    }
    // The request's answer: a refunded failure is the caller's 502.
    if (final.status === 'failed') throw providerFailed(final);
    return { transaction: final, replayed: false };
  } finally {
    deps.inFlight.delete(tx.reference);
  }
}

/**
 * The money is held (the reserve is on disk) but the store could not record what the upstream
 * said: the purchase is answered pending with its reference, exactly as after a crash at this
 * point. Its lease ends, and the recovery worker asks the upstream again and settles or refunds
 * it once the store can write; nothing is refunded on a guess.
 */
function heldForRecovery(deps: PurchaseDeps, tx: TransactionRecord, error: DomainError): TransactionRecord {
  deps.log('purchase.record_warning', {
    reference: tx.reference,
    mode: tx.mode,
    product: tx.product,
    reason: error.metadata['store_fault'] ?? error.message,
  });
  deps.observer?.leftPending(tx);
  return tx;
}

/** A purchase without routing (test mode, or no supply given): its family's provider, once. */
async function purchaseAtFamilyProvider(
  deps: PurchaseDeps,
  tx: TransactionRecord,
): Promise<{ outcome: ProviderOutcome; attempt?: undefined; answers: NewUpstreamAnswer[] }> {
  const provider = deps.providers[tx.mode][tx.product];
  const started = Date.now();
  const outcome = await callUpstreamWithDeadline(
    (signal) => provider.purchase(providerRequestOf(tx), signal),
    deps.providerTimeoutMs,
  );
  deps.log('provider.purchase', {
    reference: tx.reference,
    mode: tx.mode,
    product: tx.product,
    provider: provider.name,
    outcome: outcome.kind,
    ms: Date.now() - started,
  });
  return { outcome, answers: answersOf('purchase', provider.name, outcome) };
}

/**
 * Records a provider outcome on a pending transaction: settle, refund, or schedule a
 * re-query, and returns the transaction as it stands after. Shared by the purchase, the
 * recovery worker and provider callbacks so that all follow one rule; only a request path
 * turns a refunded failure into its PROVIDER_FAILED answer.
 */
export async function applyOutcome(
  deps: Pick<
    PurchaseDeps,
    'store' | 'providers' | 'clock' | 'background' | 'log' | 'observer' | 'supply' | 'retrySchedule'
  >,
  tx: TransactionRecord,
  outcome: ProviderOutcome,
  attemptsSoFar: number,
  /** The upstream attempt this outcome came from, ended in the same store transaction. */
  attempt?: AttemptEnd,
  /** The upstream's answers that said it, kept in the same store transaction. */
  answers?: readonly NewUpstreamAnswer[],
): Promise<TransactionRecord> {
  const at = deps.clock();
  const missing = outcome.kind === 'delivered' ? goodsMissing(tx, outcome.result) : null;
  if (missing !== null) {
    // Delivered in the upstream's words, but not the goods (a prepaid vend without its token):
    // pending, re-queried for them. The attempt stays pending too, saying why for the operator,
    // so a later answer with the goods marks it delivered with its cost (observed-costs.ts).
    deps.log('purchase.goods_missing', { reference: tx.reference, product: tx.product, reason: missing });
    return applyOutcome(
      deps,
      tx,
      { kind: 'unknown', reason: missing },
      attemptsSoFar,
      attempt === undefined ? undefined : { ...attempt, outcome: 'pending', evidence: missing, costKobo: null },
      answers,
    );
  }
  if (outcome.kind === 'delivered') {
    const settled = await deps.store.ledger.post({
      kind: 'settle',
      reference: tx.reference,
      result: outcome.result,
      at,
      attempt,
      answers,
    });
    if (!settled) throw new DomainError('INTERNAL', `Transaction ${tx.reference} vanished while settling.`);
    if (settled.changed) {
      sendReceipt(deps, settled.transaction);
      // What the upstream charged, for the operator and the plan's cost: after the answer, best-effort.
      const costs = deps.supply?.costs;
      if (
        costs !== undefined &&
        tx.mode === 'live' &&
        leavesCostToRecord(settled.transaction, outcome.costKobo, attempt)
      )
        deps.background.run(() => costs.delivered(settled.transaction, outcome.costKobo));
    }
    return settled.transaction;
  }
  // A reversal of a purchase that never settled is a failure like any other: nothing stays
  // delivered and the upstream has the money back, so the wallet is refunded once. If
  // somebody settled it first (a late success beats a failure learned second), the refund
  // changes nothing and the success is returned.
  if (isRefunded(outcome.kind)) {
    const refunded = await deps.store.ledger.post({
      kind: 'refund',
      reference: tx.reference,
      reason: outcome.reason,
      at,
      attempt,
      answers,
    });
    if (!refunded) throw new DomainError('INTERNAL', `Transaction ${tx.reference} vanished while refunding.`);
    return refunded.transaction;
  }
  const next = nextAttempt(tx, attemptsSoFar, at, deps.retrySchedule);
  await deps.store.wallet.recordAttempt(tx.reference, next, attempt, answers);
  const after = (await deps.store.transactions.get(tx.reference)) ?? tx;
  // Attempt 1 is the purchase's own call (answered 202), or a crash survivor's first requery.
  if (next.attempts === 1) deps.observer?.leftPending(after);
  return after;
}

function providerFailed(tx: TransactionRecord): DomainError {
  return new DomainError(
    'PROVIDER_FAILED',
    `The provider could not complete the purchase: ${sentence(tx.failureReason ?? 'it failed')} ` +
      `The wallet was refunded ${formatNaira(tx.chargedKobo)} Naira in full.`,
    { metadata: { reference: tx.reference, charged_kobo: String(tx.chargedKobo), refunded: 'true' } },
  );
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** Answers a repeated idempotency key with the first request's outcome, never a second debit. */
function replay(deps: PurchaseDeps, tx: TransactionRecord, requestHash: string | null): PurchaseResult {
  if (tx.requestHash !== requestHash) {
    throw new DomainError(
      'IDEMPOTENCY_KEY_REUSED',
      `request_id ${tx.requestId} was already used for a different request (reference ${tx.reference}); ` +
        'use a new request_id for a new purchase.',
      { metadata: { reference: tx.reference } },
    );
  }
  if (stillInProgress(tx, deps.inFlight, deps.clock())) {
    throw new DomainError(
      'REQUEST_IN_PROGRESS',
      `The request with request_id ${tx.requestId} is still being processed; retry shortly.`,
      {
        metadata: { reference: tx.reference },
      },
    );
  }
  const first = firstAnswer(tx);
  if (first.status === 'failed') {
    // The replayed failure says it is one, as a replayed success does (Idempotent-Replayed).
    const failed = providerFailed(first);
    throw new DomainError(failed.code, failed.message, { metadata: { ...failed.metadata, replayed: 'true' } });
  }
  return { transaction: first, replayed: true };
}
