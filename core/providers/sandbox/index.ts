/**
 * The default upstream: a deterministic sandbox for all five product families. The
 * recipient's last four digits choose the outcome (see rules.ts), so every path of the
 * purchase flow (delivered, failed and refunded, pending then settled either way) can be
 * driven from a test or a demo without a real aggregator. It can record every call so tests
 * can count them, and it can be made slow to exercise timeouts.
 */
import type { ProductName } from '../../domain/products.js';
import type {
  CustomerQuery,
  CustomerVerifier,
  NotificationSms,
  ProductProvider,
  ProviderOutcome,
  ProviderRequest,
  Providers,
  SmsProvider,
} from '../port.js';
import { purchaseOutcome, queryOutcome } from './rules.js';
import { sandboxVerify } from './verify.js';

// What tests read of the sandbox's rules; nothing else imports through this file.
export { SANDBOX_TARIFF_KOBO_PER_KWH } from './electricity.js';
export { sandboxVerify } from './verify.js';

/** The provider name every sandbox provider reports, for logs and metrics. */
const SANDBOX_NAME = 'sandbox';

/**
 * The longest artificial delay accepted. It is far beyond any provider timeout the platform
 * sets, so a larger value is a typo; it also keeps clear of setTimeout's 2^31-1 ms limit,
 * past which Node fires the timer at once.
 */
const MAX_SANDBOX_DELAY_MS = 10 * 60 * 1000;

/** A receipt whose phone ends in this is refused, to prove a failed receipt never fails a purchase. */
const REFUSED_RECEIPT_ENDING = '9999';

export interface SandboxOptions {
  /** Artificial latency of every purchase/query/notify call in ms (default 0); honours the AbortSignal. */
  delayMs?: number;
  /**
   * Keep a copy of every call in `purchases`, `queries`, `verifications` and `outbox` (the
   * default, for tests). The running service turns it off (core/providers/index.ts): nobody
   * reads the records there, and copying each purchase into a list of thousands cost a
   * clone per call and a steady churn of the old heap.
   */
  record?: boolean;
}

export interface Sandbox extends Providers {
  /**
   * Every platform SMS (receipts) the sandbox would have sent, in order. Tests read it. The
   * four lists stay empty unless `record`.
   */
  readonly outbox: readonly NotificationSms[];
  /** Every purchase call received, in order (product + request), so tests can count provider calls. */
  readonly purchases: readonly ProviderRequest[];
  /** Every query call received, in order. */
  readonly queries: readonly ProviderRequest[];
  /** Every customer verification received, in order. */
  readonly verifications: readonly CustomerQuery[];
}

/** A sandbox answer with the body a real upstream would have sent for it (what it says, as JSON). */
function sandboxAnswered(outcome: ProviderOutcome): ProviderOutcome {
  const said =
    outcome.kind === 'delivered'
      ? { status: 'delivered', ...outcome.result }
      : { status: outcome.kind, reason: outcome.reason };
  return { ...outcome, raw: { httpStatus: 200, body: JSON.stringify({ sandbox: true, ...said }) } };
}

/**
 * Builds the sandbox providers. Each call is recorded as it arrives (an aborted call was
 * still received, as it would be upstream), then waits `delayMs`, then answers by the rules.
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const delayMs = options.delayMs ?? 0;
  if (!Number.isSafeInteger(delayMs) || delayMs < 0 || delayMs > MAX_SANDBOX_DELAY_MS) {
    throw new RangeError(`Sandbox delayMs must be a whole number from 0 to ${MAX_SANDBOX_DELAY_MS}, got ${delayMs}.`);
  }
  const keep = options.record ?? true;
  const outbox: NotificationSms[] = [];
  const purchases: ProviderRequest[] = [];
  const queries: ProviderRequest[] = [];
  const verifications: CustomerQuery[] = [];

  /** Looks a customer up by the number alone (verify.ts); recorded and delayed like any call. */
  const verifier: CustomerVerifier = {
    async verify(query, signal) {
      if (keep) record(verifications, structuredClone(query));
      await pause(delayMs, signal);
      return sandboxVerify(query, new Date());
    },
  };

  function provider(family: ProductName): ProductProvider {
    const answer = async (
      calls: ProviderRequest[],
      outcome: (request: ProviderRequest) => ProviderOutcome,
      request: ProviderRequest,
      signal: AbortSignal,
    ): Promise<ProviderOutcome> => {
      // A request routed to the wrong family is a wiring bug, not an upstream answer.
      if (request.product !== family) {
        throw new Error(`The sandbox ${family} provider was called with a ${request.product} request.`);
      }
      // A copy, so that a caller changing its request later cannot rewrite the record.
      if (keep) record(calls, structuredClone(request));
      await pause(delayMs, signal);
      return outcome(request);
    };
    return {
      name: SANDBOX_NAME,
      purchase: (request, signal) => answer(purchases, purchaseOutcome, request, signal),
      // A re-query's answer as the operator sees it; purchases carry none, so the
      // benchmarks' purchase path writes no answer.
      query: async (request, signal) => sandboxAnswered(await answer(queries, queryOutcome, request, signal)),
    };
  }

  const bulksms: SmsProvider = {
    ...provider('bulksms'),
    async notify(message, signal) {
      await pause(delayMs, signal);
      if (message.to.endsWith(REFUSED_RECEIPT_ENDING)) return false;
      if (keep) record(outbox, { ...message });
      return true;
    },
  };

  return {
    airtime: provider('airtime'),
    data: provider('data'),
    electricity: { ...provider('electricity'), ...verifier },
    cable: { ...provider('cable'), ...verifier },
    bulksms,
    outbox,
    purchases,
    queries,
    verifications,
  };
}

/**
 * The sandbox is the default provider of a long-running service, so what it records for
 * tests is bounded: past twice this many entries, the oldest are dropped in one go (cheap
 * on average; tests that read the records make far fewer calls).
 */
export const MAX_RECORDED_CALLS = 10_000;

function record<T>(list: T[], entry: T): void {
  list.push(entry);
  if (list.length > 2 * MAX_RECORDED_CALLS) list.splice(0, list.length - MAX_RECORDED_CALLS);
}

/**
 * Waits `ms`, or rejects with the signal's reason as soon as it aborts. Like fetch, a call
 * with an already aborted signal rejects at once, even without a delay. The timer and the
 * listener are both removed whichever comes first, so nothing outlives the call.
 */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
