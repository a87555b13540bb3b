/**
 * Calling upstreams for a purchase. A live purchase goes to the upstreams its route
 * gives, in order; each attempt is written on the purchase before its call, and the purchase
 * moves to the next upstream only when its kind's rule (core/providers/failover-rules.ts)
 * reads the call's evidence as proven non-delivery. Anything else (delivered, refused after
 * processing, a time-out, a 5xx, garbage, pending) ends the walk: that upstream is the only
 * one that could have delivered the purchase, and its re-queries, callbacks and reversals go
 * there (providerFor), whatever the routes say later. When the route's last upstream also
 * provably did not deliver, no upstream has the purchase: it fails and is refunded at once.
 */
import type { Kobo } from '../domain/money.js';
import { goodsMissing, type ProductName } from '../domain/products.js';
import { cleanRawAnswer } from '../domain/raw-answers.js';
import type { TransactionRecord, UpstreamAnswerSource, UpstreamAttemptOutcome } from '../domain/records.js';
import type { CallEvidence, ProductProvider, ProviderOutcome, ProviderRequest, Providers } from '../providers/port.js';
import type { Upstream } from '../providers/supply.js';
import type { AttemptEnd, NewUpstreamAnswer, Store } from '../store/port.js';
import type { CostObserver } from './observed-costs.js';
import type { Router, RoutingDecision, SkipReason } from './routing.js';
import type { CallHealth, CircuitState, UpstreamHealth } from './upstream-health.js';

/**
 * Runs one call to an upstream with a deadline. A timeout, a thrown error or anything else that is
 * not a classified answer becomes `unknown`: the upstream may have delivered.
 */
export async function callUpstreamWithDeadline(
  call: (signal: AbortSignal) => Promise<ProviderOutcome>,
  timeoutMs: number,
): Promise<ProviderOutcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    return await call(controller.signal);
  } catch (error) {
    return { kind: 'unknown', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Hears what supply decides, for the metrics (core/metrics.ts): each attempt's outcome, each
 * move to the next upstream and why, each upstream a route skipped, each circuit change and
 * each float reading.
 */
export interface SupplyObserver {
  attempt(upstream: string, product: ProductName, outcome: UpstreamAttemptOutcome): void;
  /** `reason`: a short, bounded word for the proof (`refused`, `code_091`, `http_401`...). */
  failover(from: string, to: string, reason: string): void;
  skipped(upstream: string, reason: SkipReason): void;
  circuit(upstream: string, state: CircuitState): void;
  float(upstream: string, floatKobo: Kobo, alertKobo: Kobo | null): void;
}

/** What routing needs beside the flow's own dependencies. */
export interface SupplyDeps {
  router: Router;
  health: UpstreamHealth;
  /** The data plan's type for routes by plan type; "" when the catalogue has none. */
  planTypeOf?: (planId: number) => Promise<string>;
  /** Keeps what the upstream charged once a purchase is delivered (observed-costs.ts). */
  costs?: CostObserver;
  observer?: SupplyObserver;
}

/** Everything a routed purchase uses of the flow's dependencies. */
interface CallDeps {
  store: Pick<Store, 'supply'>;
  providers: Readonly<Record<'live' | 'test', Providers>>;
  clock: () => Date;
  providerTimeoutMs: number;
  log: (event: string, fields: Record<string, unknown>) => void;
  supply?: SupplyDeps;
}

/**
 * An outcome's raw answer as it is kept for the operator: cleaned of secrets and
 * bounded by core/domain/raw-answers.ts. None when the call had no answer.
 */
export function answersOf(
  source: UpstreamAnswerSource,
  upstream: string,
  outcome: ProviderOutcome,
): NewUpstreamAnswer[] {
  if (outcome.raw === undefined) return [];
  return [{ source, upstream, body: cleanRawAnswer(outcome.raw.body, outcome.raw.httpStatus) }];
}

/** A callback's body as it is kept beside the re-query it led to. */
export function callbackAnswers(upstream: string, body: Uint8Array): NewUpstreamAnswer[] {
  return [{ source: 'callback', upstream, body: cleanRawAnswer(new TextDecoder().decode(body)) }];
}

/** The evidence as one short line for the operator: `refused`, `http 200, code 091, failed`. */
function describeEvidence(evidence: CallEvidence | undefined): string | null {
  if (evidence === undefined) return null;
  if (evidence.kind !== 'answer') return evidence.cause;
  if (!evidence.json) return `http ${evidence.httpStatus}, not JSON`;
  return [`http ${evidence.httpStatus}`, evidence.code && `code ${evidence.code}`, evidence.status]
    .filter((part) => part)
    .join(', ');
}

/** The proof of a failover as a metric label: a few words at most, never free text. */
function failoverReason(evidence: CallEvidence | undefined): string {
  if (evidence === undefined) return 'unknown';
  const word =
    evidence.kind !== 'answer'
      ? evidence.cause
      : evidence.code !== null
        ? `code_${evidence.code}`
        : evidence.status !== null
          ? `status_${evidence.status}`
          : `http_${evidence.httpStatus}`;
  return word
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 40);
}

/** What one call says about the upstream's health (the circuit breaker's input). */
function healthOf(upstream: Upstream, outcome: ProviderOutcome): CallHealth {
  const evidence = outcome.kind === 'failed' || outcome.kind === 'unknown' ? outcome.evidence : undefined;
  if (evidence !== undefined && upstream.notDelivered(evidence)) return 'proven_failure';
  if (outcome.kind !== 'unknown') return 'answered';
  // No evidence on an unknown outcome: the deadline ended the call.
  if (evidence === undefined || (evidence.kind === 'no_answer' && evidence.cause === 'timeout')) return 'timeout';
  return 'answered';
}

/**
 * An unknown outcome whose evidence the upstream's rule reads as proven non-delivery, at the
 * route's last upstream: a failure. Its reason is the same words for every cause, since the
 * adapter's own (a host name in a DNS error) would tell partners about the upstream.
 */
function deliveredNowhere(outcome: ProviderOutcome & { kind: 'unknown' }): ProviderOutcome {
  return {
    kind: 'failed',
    reason: 'No provider could be reached for this purchase.',
    ...(outcome.evidence === undefined ? {} : { evidence: outcome.evidence }),
    ...(outcome.raw === undefined ? {} : { raw: outcome.raw }),
  };
}

/** The upstream's own id of the purchase in an outcome, kept on its attempt for re-queries. */
function upstreamReferenceOf(outcome: ProviderOutcome): string | null {
  if (outcome.kind === 'delivered') return outcome.result.providerReference ?? null;
  return outcome.kind === 'unknown' ? (outcome.upstreamReference ?? null) : null;
}

/**
 * The attempt's outcome as recorded, from the adapter's outcome: a delivery without the goods
 * (a prepaid vend without its token) is pending, as the flow keeps its purchase (goodsMissing).
 */
function recordedOutcome(outcome: ProviderOutcome, tx: TransactionRecord): 'failed' | 'pending' | 'delivered' {
  if (outcome.kind === 'delivered') return goodsMissing(tx, outcome.result) === null ? 'delivered' : 'pending';
  return outcome.kind === 'unknown' ? 'pending' : 'failed';
}

/**
 * A live purchase's route, decided before its reserve: the first candidate's attempt is
 * written in the reserve's own transaction (an attempt's row cost a commit of its
 * own before the call, and another after it).
 */
export async function routePurchase(
  supply: SupplyDeps,
  request: ProviderRequest,
  belowCost: readonly string[] = [],
): Promise<RoutingDecision> {
  const planId = request.details.planId;
  const planType = planId !== undefined && supply.planTypeOf ? await supply.planTypeOf(planId) : '';
  return supply.router.decide(request, planType, belowCost);
}

/**
 * A routing decision's info line (`purchase.routed`), when it says more than the purchase's
 * recorded attempt and the call's own debug line (`provider.purchase`, which names the route
 * and the upstream called): when something was skipped, or nothing was left to call. A
 * purchase that simply went to its route's first upstream has no second info line.
 */
function logDecision(deps: Pick<CallDeps, 'log'>, tx: TransactionRecord, decision: RoutingDecision): void {
  if (decision.skipped.length === 0 && decision.candidates.length > 0) return;
  deps.log('purchase.routed', {
    reference: tx.reference,
    product: tx.product,
    service: tx.service,
    route: decision.route.join(','),
    candidates: decision.candidates.map((u) => u.name).join(','),
    chosen: decision.candidates[0]?.name ?? null,
    skipped: decision.skipped.map((s) => `${s.upstream}:${s.reason}`).join(','),
  });
}

/** What a routed purchase's calls came to: the outcome that stands, and its attempt's end to write with it. */
interface UpstreamsOutcome {
  outcome: ProviderOutcome;
  /** The last attempt's end, for the settle, refund or pending write (absent: no upstream was called). */
  attempt?: AttemptEnd;
  /** The last upstream's answer, kept with that write. */
  answers?: NewUpstreamAnswer[];
}

/**
 * A live purchase's calls: the decision's candidates in order, moving on only on proven
 * non-delivery. The first attempt was written with the reserve (`routePurchase`); each later
 * one is written before its call, after the one before it has ended. Returns the outcome that
 * stands (the last upstream's) and that attempt's end, which the caller writes in the same
 * transaction as what the outcome does to the purchase.
 */
export async function purchaseAtUpstreams(
  deps: CallDeps & { supply: SupplyDeps },
  tx: TransactionRecord,
  request: ProviderRequest,
  decision: RoutingDecision,
): Promise<UpstreamsOutcome> {
  const { health } = deps.supply;
  logDecision(deps, tx, decision);
  for (const skip of decision.skipped) deps.supply.observer?.skipped(skip.upstream, skip.reason);
  if (decision.candidates.length === 0) {
    // Nothing was sent anywhere, so nothing can have been delivered: a plain refusal, refunded.
    return { outcome: { kind: 'failed', reason: `No upstream sells this ${tx.product} purchase now.` } };
  }
  for (const [index, upstream] of decision.candidates.entries()) {
    const seq = index + 1;
    const provider = upstream.products[tx.product]!;
    if (seq > 1) {
      await deps.store.supply.beginAttempt({ reference: tx.reference, seq, upstream: upstream.name, at: deps.clock() });
    }
    health.willCall(upstream.name, deps.clock());
    const started = Date.now();
    const outcome = await callUpstreamWithDeadline(
      (signal) => provider.purchase(request, signal),
      deps.providerTimeoutMs,
    );
    const evidence = outcome.kind === 'failed' || outcome.kind === 'unknown' ? outcome.evidence : undefined;
    const callHealth = healthOf(upstream, outcome);
    health.record(
      upstream.name,
      callHealth,
      deps.clock(),
      callHealth === 'answered' ? undefined : (describeEvidence(evidence) ?? 'no answer'),
    );
    const proven = callHealth === 'proven_failure';
    const next = decision.candidates[index + 1];
    deps.log('provider.purchase', {
      reference: tx.reference,
      mode: tx.mode,
      product: tx.product,
      provider: upstream.name,
      ...(seq === 1 ? { route: decision.route.join(',') } : {}),
      attempt: seq,
      outcome: outcome.kind,
      evidence: describeEvidence(evidence),
      ms: Date.now() - started,
    });
    if (proven && next !== undefined) {
      await deps.store.supply.endAttempt(tx.reference, seq, {
        outcome: 'not_delivered',
        evidence: describeEvidence(evidence),
        costKobo: null,
        at: deps.clock(),
        answers: answersOf('purchase', upstream.name, outcome),
      });
      deps.supply.observer?.attempt(upstream.name, tx.product, 'not_delivered');
      deps.supply.observer?.failover(upstream.name, next.name, failoverReason(evidence));
      deps.log('purchase.failover', {
        reference: tx.reference,
        product: tx.product,
        from: upstream.name,
        to: next.name,
        evidence: describeEvidence(evidence),
      });
      continue;
    }
    // The route's last upstream provably did not deliver either, and every one before it was
    // left only on such proof: nobody can deliver this purchase, so it fails and is refunded
    // now (the contract's 502) instead of waiting for re-queries that cannot change it.
    const stands = proven && outcome.kind === 'unknown' ? deliveredNowhere(outcome) : outcome;
    deps.supply.observer?.attempt(upstream.name, tx.product, recordedOutcome(stands, tx));
    return {
      outcome: stands,
      attempt: {
        seq,
        outcome: recordedOutcome(stands, tx),
        evidence: describeEvidence(evidence),
        costKobo: stands.kind === 'delivered' ? (stands.costKobo ?? null) : null,
        upstreamReference: upstreamReferenceOf(stands),
      },
      answers: answersOf('purchase', upstream.name, outcome),
    };
  }
  // Not reached: the last candidate has no next, so its outcome returned above.
  return { outcome: { kind: 'unknown', reason: 'no upstream was called' } };
}

/**
 * The provider that answers for a purchase after its first call: the upstream recorded on it
 * (its last attempt), or, for a purchase with none recorded (a test purchase, one made before
 * upstreams were recorded, or one a crash stopped before its first call), its family's
 * provider. Null when the recorded upstream is no longer configured: nobody else may be asked.
 * `request` is the purchase's request with the upstream's own id of it, when its attempt kept
 * one, for the re-query.
 */
export async function providerFor(
  deps: CallDeps,
  tx: TransactionRecord,
  request: ProviderRequest,
): Promise<
  | { provider: ProductProvider; upstream: string | null; request: ProviderRequest }
  | { provider: null; upstream: string; request: ProviderRequest }
> {
  if (deps.supply !== undefined && tx.mode === 'live') {
    const attempts = await deps.store.supply.attemptsOf(tx.reference);
    const last = attempts[attempts.length - 1];
    if (last !== undefined) {
      const provider = deps.supply.router.supply.upstreams.get(last.upstream)?.products[tx.product];
      const asked =
        last.upstreamReference === null ? request : { ...request, upstreamReference: last.upstreamReference };
      return provider === undefined
        ? { provider: null, upstream: last.upstream, request: asked }
        : { provider, upstream: last.upstream, request: asked };
    }
  }
  return { provider: deps.providers[tx.mode][tx.product], upstream: null, request };
}
