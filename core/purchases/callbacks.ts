/**
 * Provider callbacks: what an upstream tells us about a transaction after its purchase
 * (VTpass's "this transaction changed"). A callback is only a hint. Its body names the reference; what
 * happened is asked of the provider with a requery, exactly as the recovery worker asks,
 * so a forged or stale callback cannot refund or reverse anything the provider does not
 * confirm. Then:
 *   - pending: settled, refunded (failure or reversal) or left for the worker, as a requery;
 *   - success: a confirmed reversal refunds the charge once and leaves it `reversed`;
 *   - anything else: nothing changes, and a contradiction (a refunded purchase the provider
 *     now calls delivered) is logged for a person.
 * Every store operation it uses acts once at most, so a replayed callback changes nothing.
 */
import { DomainError } from '../domain/errors.js';
import type { TransactionRecord } from '../domain/records.js';
import { isRefunded } from '../domain/transactions.js';
import type { ProviderOutcome } from '../providers/port.js';
import type { NewUpstreamAnswer } from '../store/port.js';
import { applyOutcome, type PurchaseDeps, providerRequestOf } from './flow.js';
import { answersOf, callbackAnswers, callUpstreamWithDeadline, providerFor } from './upstream-calls.js';

/** What became of one callback. */
export type CallbackDisposition =
  /** The transaction changed state: settled, refunded or reversed. */
  | 'applied'
  /** Nothing to change: already final in that state, a replay, or a contradiction logged for a person. */
  | 'unchanged'
  /** No transaction has this reference. */
  | 'unknown_reference'
  /** Not a transaction update this platform understands, or not about a purchase made there. */
  | 'ignored'
  /** The provider could not confirm a final state now; the sender should try again later. */
  | 'retry_later';

/** What a callback did, for the answer to the upstream and the log. */
export interface CallbackResult {
  disposition: CallbackDisposition;
  /** The reference the callback named, when it named one. */
  reference: string;
  /** The transaction's state after the callback, when there is a transaction. */
  status: TransactionRecord['status'] | null;
}

/** Reads the reference out of one upstream's callback body. */
export type CallbackParser = (body: Uint8Array) => { ok: true; reference: string } | { ok: false; reason: string };

/**
 * Callbacks about one reference ask the provider at most once per this interval: a callback
 * replayed or flooded (the URL leaked, an upstream retrying hard) costs one requery, and
 * callbacks arriving while that requery runs wait for its answer instead of asking again.
 * A genuine later change still lands: the upstream retries, and the recovery worker polls.
 */
const CALLBACK_REQUERY_SPACING_MS = 10_000;
/** References remembered for the spacing above; beyond this the oldest are forgotten first. */
const CALLBACK_REQUERY_MEMORY = 10_000;

/**
 * An upstream's push that is about its catalogue rather than a transaction (VTpass's
 * variations-update): the result when `body` is one, null when it is not (the transaction
 * parser then reads it). Pushes arrive at the same URL as transaction updates, since an
 * upstream's dashboard takes one callback URL.
 */
export type PushHandler = (body: Uint8Array) => Promise<CallbackResult | null>;

/**
 * The callback use case; `parsers` names the upstreams that may send callbacks, `pushes`
 * those whose callbacks may also be catalogue pushes.
 */
export function createCallbackService(
  deps: PurchaseDeps,
  parsers: Readonly<Record<string, CallbackParser>>,
  pushes: Readonly<Record<string, PushHandler>> = {},
) {
  const { store, log } = deps;
  const recentRequeries = new Map<string, { atMs: number; result: Promise<CallbackResult> }>();

  /** The requery for one callback, or the one made for the same reference moments ago. */
  function requeryOnce(tx: TransactionRecord, requery: () => Promise<CallbackResult>): Promise<CallbackResult> {
    const nowMs = deps.clock().getTime();
    const last = recentRequeries.get(tx.reference);
    if (last !== undefined && nowMs - last.atMs < CALLBACK_REQUERY_SPACING_MS) {
      // The same answer, said as what it is now: a repeat changes nothing.
      return last.result.then(
        (first) => ({
          disposition: first.disposition === 'retry_later' ? 'retry_later' : 'unchanged',
          reference: tx.reference,
          status: first.status,
        }),
        () => ({ disposition: 'retry_later', reference: tx.reference, status: tx.status }),
      );
    }
    const result = requery();
    recentRequeries.delete(tx.reference);
    recentRequeries.set(tx.reference, { atMs: nowMs, result });
    for (const [reference, entry] of recentRequeries) {
      if (recentRequeries.size <= CALLBACK_REQUERY_MEMORY && nowMs - entry.atMs < CALLBACK_REQUERY_SPACING_MS) break;
      recentRequeries.delete(reference);
    }
    return result;
  }

  return {
    /** Applies one upstream callback; never throws for anything the body says. */
    async applyCallback(providerName: string, body: Uint8Array): Promise<CallbackResult> {
      const parse = Object.hasOwn(parsers, providerName) ? parsers[providerName] : undefined;
      if (parse === undefined) {
        throw new DomainError(
          'INVALID_PARAMETER',
          `There is no provider "${providerName.slice(0, 40)}" that sends callbacks.`,
          {
            violations: [
              { field: 'provider', description: `provider must be one of ${Object.keys(parsers).join(', ')}.` },
            ],
          },
        );
      }
      const push = Object.hasOwn(pushes, providerName) ? pushes[providerName] : undefined;
      const pushed = push === undefined ? null : await push(body);
      if (pushed !== null) return pushed;
      const parsed = parse(body);
      if (!parsed.ok) {
        log('callback.ignored', { provider: providerName, reason: parsed.reason, bytes: body.byteLength });
        return { disposition: 'ignored', reference: '', status: null };
      }
      const tx = await store.transactions.get(parsed.reference);
      if (tx === null) {
        log('callback.unknown_reference', { provider: providerName, reference: parsed.reference });
        return { disposition: 'unknown_reference', reference: parsed.reference, status: null };
      }
      // A test purchase is the sandbox's, so an upstream's callback naming one is ignored here,
      // as is one for a purchase another upstream got (recorded on it), or, for a purchase with
      // no upstream recorded, one its family's provider is not.
      const { provider, upstream, request } = await providerFor(deps, tx, providerRequestOf(tx));
      const servedBy = upstream ?? provider?.name;
      if (provider === null || servedBy !== providerName) {
        log('callback.ignored', {
          provider: providerName,
          reference: tx.reference,
          reason: `${tx.product} ${tx.reference} is served by ${servedBy}`,
        });
        return { disposition: 'ignored', reference: tx.reference, status: tx.status };
      }
      // The purchase is still waiting for its own answer; that answer settles it.
      if (deps.inFlight.has(tx.reference))
        return { disposition: 'retry_later', reference: tx.reference, status: tx.status };
      return requeryOnce(tx, async () => {
        const outcome = await callUpstreamWithDeadline(
          (signal) => provider.query(request, signal),
          deps.providerTimeoutMs,
        );
        const heard = [...callbackAnswers(providerName, body), ...answersOf('requery', providerName, outcome)];
        const result = await applyRequeryAnswer(deps, tx, outcome, heard);
        log('callback.applied', {
          provider: providerName,
          reference: tx.reference,
          outcome: outcome.kind,
          disposition: result.disposition,
          status: result.status,
        });
        return result;
      });
    },
  };
}

/**
 * The requery's answer applied to the transaction as it stands: the flow's rule while it is
 * pending, a reversal once after success, and otherwise nothing but a logged contradiction.
 */
async function applyRequeryAnswer(
  deps: PurchaseDeps,
  tx: TransactionRecord,
  outcome: ProviderOutcome,
  answers: readonly NewUpstreamAnswer[],
): Promise<CallbackResult> {
  const done = (disposition: CallbackDisposition, after: TransactionRecord): CallbackResult => ({
    disposition,
    reference: tx.reference,
    status: after.status,
  });
  if (outcome.kind === 'unknown') return done('retry_later', tx);

  if (tx.status === 'pending') {
    // The flow's own rule for a requery answer, so a callback and the worker agree.
    const after = await applyOutcome(deps, tx, outcome, tx.attempts, undefined, answers);
    return done(after.status === 'pending' ? 'unchanged' : 'applied', after);
  }

  if (tx.status === 'success' && outcome.kind === 'reversed') {
    const reversed = await deps.store.ledger.post({
      kind: 'reverse',
      reference: tx.reference,
      reason: outcome.reason,
      at: deps.clock(),
    });
    if (!reversed) throw new DomainError('INTERNAL', `Transaction ${tx.reference} vanished while reversing.`);
    deps.log('purchase.reversed', { reference: tx.reference, product: tx.product, changed: reversed.changed });
    return done(reversed.changed ? 'applied' : 'unchanged', reversed.transaction);
  }

  const agrees =
    (tx.status === 'success' && outcome.kind === 'delivered') ||
    (tx.status === 'failed' && isRefunded(outcome.kind)) ||
    (tx.status === 'reversed' && outcome.kind === 'reversed');
  if (!agrees) {
    // A refunded purchase the provider calls delivered, or a delivered one it calls failed:
    // no rule can settle that safely; a person compares the two records.
    deps.log('callback.conflict_error', {
      reference: tx.reference,
      product: tx.product,
      status: tx.status,
      provider_says: outcome.kind,
    });
  }
  return done('unchanged', tx);
}

/** The callback use case, as the RPC layer sees it. */
export type CallbackService = ReturnType<typeof createCallbackService>;
