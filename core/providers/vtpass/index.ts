/**
 * The VTpass adapter for airtime, data, electricity and cable: `pay` to buy, `requery` to
 * ask again, `merchant-verify` to look a customer up, `service-variations` for the data
 * plans. Our reference is the request_id. Every answer goes through codes.ts, which decides
 * what it means for the money; this file builds requests and results.
 *
 * request_id: VTpass wants at least 12 characters whose first 12 are digits YYYYMMDDHHII in
 * Africa/Lagos time, then any alphanumeric suffix. Our reference (core/domain/reference.ts)
 * is exactly that: 12 digits of Lagos time (YYYYMMDDHHmm) and 10 upper-case letters and
 * digits, 22 characters in all. A reference not of that shape is refused before sending.
 *
 * Retries, all bounded and inside the caller's deadline: a `pay` is sent again only when
 * the first attempt provably never reached VTpass (connection refused), always with the
 * same request_id, so VTpass answers a duplicate with 014 (unknown, then re-queried) rather
 * than buying twice; never with a new request_id. Requery, verify and service-variations
 * only read, so they are retried after no answer or a 5xx.
 */

import type { OutboundClient } from '../../../runtime/outbound-http.js';
import { type Kobo, koboToNaira } from '../../domain/money.js';
import {
  CABLE_PROVIDERS,
  type CableProvider,
  type DeliveryResult,
  NETWORKS,
  type Network,
} from '../../domain/products.js';
import type { CablePackageRecord, PlanRecord } from '../../domain/records.js';
import { REFERENCE_PATTERN } from '../../domain/reference.js';
import { evidenceOf } from '../failover.js';
import { nairaTextToKobo } from '../naira-text.js';
import type {
  CustomerQuery,
  CustomerVerifier,
  PackageSource,
  PlanSource,
  ProductProvider,
  ProviderOutcome,
  ProviderRequest,
  UpstreamPlan,
  VerifyOutcome,
} from '../port.js';
import { exchange, type Fetch, type HttpAnswer, pause, upstreamClient, withRaw } from '../upstream-http.js';
import { asObject, classify, codeMeaning, transactionStatus, type VtpassCall } from './codes.js';
import { electricityResult } from './electricity.js';
import {
  AIRTIME_SERVICE_IDS,
  CABLE_SERVICE_IDS,
  DATA_SERVICE_IDS,
  ELECTRICITY_SERVICE_IDS,
  networkServiceId,
  serviceIdOf,
} from './services.js';
import { readVariations } from './variations.js';
import { verifyOutcome } from './verify.js';

/** The name every VTpass provider reports, for logs and routing. */
export const VTPASS_NAME = 'vtpass';

/** A pay or requery answer is a few KB; 64 KiB leaves room for any electricity extras. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** A network's plan list is tens of KB; 1 MiB bounds a runaway answer. */
const MAX_VARIATIONS_BYTES = 1024 * 1024;
/** A pay is sent at most twice, and the second time only if the first never arrived. */
const PAY_ATTEMPTS = 2;
/** Reads are tried at most three times. */
const READ_ATTEMPTS = 3;
/** Pause before the second attempt, doubled before the third: short, the caller's deadline runs. */
const RETRY_PAUSE_MS = 250;

/** Where VTpass is and how we authenticate (as VTpass documents it: api-key always, public-key on GET, secret-key on POST). */
export interface VtpassOptions {
  /** For example https://sandbox.vtpass.com/api/ (ends with "/"). */
  baseUrl: string;
  apiKey: string;
  publicKey: string;
  secretKey: string;
  /**
   * VTpass wants a phone with every payment; electricity and cable purchases may come
   * without one, and then this number (the operator's) is sent.
   */
  fallbackPhone: string;
  clock?: () => Date;
  fetch?: Fetch;
  /** Facts about calls (never a key, header or URL); alerts are logged as errors. */
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** The catalog facts a purchase needs: the upstream codes of plans and packages. */
export interface VtpassCatalog {
  getPlan(planId: number): Promise<PlanRecord | null>;
  getCablePackage(provider: string, packageCode: string): Promise<CablePackageRecord | null>;
}

/** The four bill families through VTpass; data also lists plans, electricity and cable also verify. */
export interface VtpassProviders {
  airtime: ProductProvider;
  data: ProductProvider & PlanSource;
  electricity: ProductProvider & CustomerVerifier;
  cable: ProductProvider & CustomerVerifier;
  /** Our wallet at VTpass (`GET balance`); rejects when it cannot tell. */
  balance(signal: AbortSignal): Promise<Kobo>;
}

/** What a purchase sends to `pay`, or why it cannot be sent at all. */
type PayBody = { ok: true; body: Record<string, string | number> } | { ok: false; reason: string };

/** Builds the VTpass providers; `catalog` gives data plans and cable packages their VTpass codes. */
export function createVtpassProviders(options: VtpassOptions, catalog: VtpassCatalog): VtpassProviders {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  const clock = options.clock ?? (() => new Date());
  const log = options.log ?? (() => {});
  const client = upstreamClient(options.fetch);

  const { post, get } = vtpassRequests(options, base, client);

  const outcomeOf = (call: VtpassCall, request: ProviderRequest, answer: HttpAnswer, started: number) =>
    withRaw(classifyAndLog(call, request, answer, started, { clock, log }), answer);

  function provider(build: (request: ProviderRequest) => Promise<PayBody>): ProductProvider {
    return {
      name: VTPASS_NAME,
      async purchase(request, signal) {
        if (!REFERENCE_PATTERN.test(request.reference)) {
          // Nothing was sent, so nothing can have been charged.
          return {
            kind: 'failed',
            reason: `The reference ${request.reference} cannot be sent to the provider as a request id.`,
          };
        }
        const built = await build(request);
        if (!built.ok) return { kind: 'failed', reason: built.reason };
        const started = Date.now();
        const answer = await withRetries(
          PAY_ATTEMPTS,
          signal,
          () => post('pay', built.body, signal),
          (a) => a.kind === 'no_answer' && !a.delivered,
        );
        return outcomeOf('pay', request, answer, started);
      },
      async query(request, signal) {
        const started = Date.now();
        const answer = await withRetries(
          READ_ATTEMPTS,
          signal,
          () => post('requery', { request_id: request.reference }, signal),
          readAgain,
        );
        return outcomeOf('requery', request, answer, started);
      },
    };
  }

  async function verify(query: CustomerQuery, signal: AbortSignal): Promise<VerifyOutcome> {
    const serviceID =
      query.product === 'electricity'
        ? serviceIdOf(ELECTRICITY_SERVICE_IDS, query.service)
        : serviceIdOf(CABLE_SERVICE_IDS, query.service);
    if (serviceID === undefined) return { kind: 'not_found', reason: `The provider does not serve ${query.service}.` };
    const body: Record<string, string> = { billersCode: query.number, serviceID };
    if (query.product === 'electricity') body['type'] = query.meterType;
    const started = Date.now();
    const answer = await withRetries(READ_ATTEMPTS, signal, () => post('merchant-verify', body, signal), readAgain);
    const outcome = verifyOutcome(answer);
    log('provider.vtpass', {
      call: 'merchant-verify',
      product: query.product,
      service: query.service,
      http_status: answer.kind === 'answer' ? answer.status : null,
      outcome: outcome.kind,
      ms: Date.now() - started,
    });
    return outcome;
  }

  const { plans, packages } = vtpassVariations(get, log);
  const data: ProductProvider & PlanSource = { ...provider((request) => dataBody(request, catalog)), ...plans };

  return {
    airtime: provider(airtimeBody),
    data,
    electricity: { ...provider((request) => electricityBody(request, options.fallbackPhone)), verify },
    cable: { ...provider((request) => cableBody(request, catalog, options.fallbackPhone)), verify, ...packages },
    balance: (signal) => vtpassBalance(get, signal),
  };
}

/**
 * Our wallet at VTpass: `GET balance` answers `{"code":1,"contents":{"balance":<number>}}`
 * (VTpass's documentation: a numeric code 1, not "000", and a number of naira). Anything else,
 * a code "000" or a balance written as text included, is no reading.
 */
async function vtpassBalance(get: VtpassRequests['get'], signal: AbortSignal): Promise<Kobo> {
  const answer = await withRetries(READ_ATTEMPTS, signal, () => get('balance', {}, signal), readAgain);
  const body = answer.kind === 'answer' && answer.status === 200 ? asObject(answer.json) : undefined;
  const balance = asObject(body?.['contents'])?.['balance'];
  const amount = body?.['code'] === 1 && typeof balance === 'number' ? nairaTextToKobo(balance) : undefined;
  if (amount !== undefined) return amount;
  const why = answer.kind === 'answer' ? `no balance in the answer (HTTP ${answer.status})` : answer.reason;
  throw new Error(`VTpass balance: ${why}`);
}

/**
 * The catalogue reads: a network's data plans and a cable provider's bouquets, both from
 * service-variations with the public key, asked again while VTpass cannot answer, and logged.
 */
function vtpassVariations(get: VtpassRequests['get'], log: VtpassLog): { plans: PlanSource; packages: PackageSource } {
  /** One service's variations (data plans or bouquets), asked again while VTpass cannot answer. */
  async function variations(serviceID: string, signal: AbortSignal) {
    const answer = await withRetries(
      READ_ATTEMPTS,
      signal,
      () => get('service-variations', { serviceID }, signal, MAX_VARIATIONS_BYTES),
      readAgain,
    );
    return { answer, read: readVariations(answer) };
  }

  const plans: PlanSource = {
    async listPlans(network: Network, signal: AbortSignal): Promise<UpstreamPlan[]> {
      if (!(NETWORKS as readonly string[]).includes(network)) throw new Error(`unknown network ${String(network)}`);
      const { answer, read } = await variations(DATA_SERVICE_IDS[network], signal);
      log('provider.vtpass', {
        call: 'service-variations',
        network,
        http_status: answer.kind === 'answer' ? answer.status : null,
        plans: read.ok ? read.plans.length : null,
        skipped: read.ok ? read.skipped : null,
      });
      if (!read.ok) throw new Error(`VTpass plans for ${network}: ${read.reason}`);
      return read.plans;
    },
  };

  /** A cable provider's bouquets, read from service-variations exactly as the data plans are. */
  const packages: PackageSource = {
    async listPackages(cable: CableProvider, signal: AbortSignal): Promise<UpstreamPlan[]> {
      if (!(CABLE_PROVIDERS as readonly string[]).includes(cable))
        throw new Error(`unknown cable provider ${String(cable)}`);
      const { answer, read } = await variations(CABLE_SERVICE_IDS[cable], signal);
      log('provider.vtpass', {
        call: 'service-variations',
        cable_provider: cable,
        http_status: answer.kind === 'answer' ? answer.status : null,
        packages: read.ok ? read.plans.length : null,
        skipped: read.ok ? read.skipped : null,
      });
      if (!read.ok) throw new Error(`VTpass bouquets for ${cable}: ${read.reason}`);
      return read.plans;
    },
  };

  return { plans, packages };
}

/** Classifies and logs one pay or requery exchange. */
function classifyAndLog(
  call: VtpassCall,
  request: ProviderRequest,
  answer: HttpAnswer,
  started: number,
  { clock, log }: { clock: () => Date; log: VtpassLog },
): ProviderOutcome {
  const { outcome, code, alert } = classify(call, answer, {
    reference: request.reference,
    now: clock(),
    result: (body) => resultOf(request, body),
  });
  const fields = {
    reference: request.reference,
    product: request.product,
    call,
    http_status: answer.kind === 'answer' ? answer.status : null,
    code,
    meaning: code === null ? null : (codeMeaning(code) ?? null),
    outcome: outcome.kind,
    ms: Date.now() - started,
  };
  log(
    alert ? 'vtpass.account_error' : 'provider.vtpass',
    alert ? { ...fields, reason: outcome.kind === 'delivered' ? null : outcome.reason } : fields,
  );
  // What the failover rule reads (core/providers/failover.ts): whether the pay was written,
  // and VTpass's code. It changes nothing in how the outcome itself is handled.
  if (call === 'pay' && (outcome.kind === 'failed' || outcome.kind === 'unknown')) {
    const body = answer.kind === 'answer' ? asObject(answer.json) : undefined;
    const status = body === undefined ? undefined : transactionStatus(body);
    return { ...outcome, evidence: evidenceOf(answer, { code, status: status ?? null }) };
  }
  // Delivered is delivered (the money is spent upstream), but a prepaid customer without a
  // token needs a person to fetch it from the VTpass dashboard.
  if (
    outcome.kind === 'delivered' &&
    request.product === 'electricity' &&
    request.details.meterType !== 'postpaid' &&
    outcome.result.token === undefined
  ) {
    log('vtpass.token_missing_error', { reference: request.reference, call });
  }
  return outcome;
}

type VtpassRequests = ReturnType<typeof vtpassRequests>;
type VtpassLog = (event: string, fields: Record<string, unknown>) => void;

/** The two ways of calling VTpass: POST with the secret key, GET with the public key. */
function vtpassRequests(options: VtpassOptions, base: URL, client: OutboundClient) {
  function post(
    path: string,
    body: Record<string, unknown>,
    signal: AbortSignal,
    maxBytes = MAX_ANSWER_BYTES,
  ): Promise<HttpAnswer> {
    return exchange(
      {
        url: new URL(path, base),
        method: 'POST',
        headers: { 'api-key': options.apiKey, 'secret-key': options.secretKey },
        body,
        signal,
        maxBytes,
      },
      client,
    );
  }

  function get(
    path: string,
    query: Record<string, string>,
    signal: AbortSignal,
    maxBytes = MAX_ANSWER_BYTES,
  ): Promise<HttpAnswer> {
    const url = new URL(path, base);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return exchange(
      { url, method: 'GET', headers: { 'api-key': options.apiKey, 'public-key': options.publicKey }, signal, maxBytes },
      client,
    );
  }
  return { post, get };
}

/** Tries `send` up to `attempts` times while `again` says the last answer may be retried. */
async function withRetries(
  attempts: number,
  signal: AbortSignal,
  send: () => Promise<HttpAnswer>,
  again: (answer: HttpAnswer) => boolean,
): Promise<HttpAnswer> {
  let answer = await send();
  for (let attempt = 2; attempt <= attempts && again(answer); attempt += 1) {
    if (!(await pause(RETRY_PAUSE_MS * 2 ** (attempt - 2), signal))) break;
    answer = await send();
  }
  return answer;
}

/** A read (requery, verify, plans) may be retried after no answer or a server error. */
const readAgain = (answer: HttpAnswer) => answer.kind === 'no_answer' || answer.status >= 500;

/** What `pay` is sent for airtime. */
async function airtimeBody(request: ProviderRequest): Promise<PayBody> {
  const serviceID = networkServiceId(AIRTIME_SERVICE_IDS, request.service);
  if (serviceID === undefined)
    return { ok: false, reason: `The provider does not sell airtime on ${request.service}.` };
  return {
    ok: true,
    body: {
      request_id: request.reference,
      serviceID,
      amount: koboToNaira(request.faceValueKobo),
      phone: request.recipient,
    },
  };
}

/** The pay body of a data purchase: the plan's VTpass code (variation_code) from the catalog. */
async function dataBody(request: ProviderRequest, catalog: VtpassCatalog): Promise<PayBody> {
  const serviceID = networkServiceId(DATA_SERVICE_IDS, request.service);
  if (serviceID === undefined) return { ok: false, reason: `The provider does not sell data on ${request.service}.` };
  const planId = request.details.planId;
  const plan = planId === undefined ? null : await catalog.getPlan(planId);
  // A plan without the upstream's code cannot be bought from VTpass. Refusing here sends
  // nothing, so the purchase fails cleanly and is refunded at once; `prepaid plans sync`
  // gives plans their codes.
  if (plan === null || plan.providerCode === '') {
    return {
      ok: false,
      reason:
        `Data plan ${planId ?? '?'} cannot be bought from the provider yet ` +
        '(it has no provider code); choose another plan.',
    };
  }
  return {
    ok: true,
    body: {
      request_id: request.reference,
      serviceID,
      billersCode: request.recipient,
      variation_code: plan.providerCode,
      amount: koboToNaira(request.faceValueKobo),
      phone: request.recipient,
    },
  };
}

/** What `pay` is sent for electricity; the customer's phone, or the platform's when none was given. */
async function electricityBody(request: ProviderRequest, fallbackPhone: string): Promise<PayBody> {
  const serviceID = serviceIdOf(ELECTRICITY_SERVICE_IDS, request.service);
  if (serviceID === undefined)
    return { ok: false, reason: `The provider does not serve the disco ${request.service}.` };
  return {
    ok: true,
    body: {
      request_id: request.reference,
      serviceID,
      billersCode: request.recipient,
      variation_code: request.details.meterType ?? 'prepaid',
      amount: koboToNaira(request.faceValueKobo),
      phone: request.details.customerPhone || fallbackPhone,
    },
  };
}

/** What `pay` is sent for a cable package, named by its VTpass code when the catalogue has one. */
async function cableBody(request: ProviderRequest, catalog: VtpassCatalog, fallbackPhone: string): Promise<PayBody> {
  const serviceID = serviceIdOf(CABLE_SERVICE_IDS, request.service);
  if (serviceID === undefined) return { ok: false, reason: `The provider does not serve ${request.service}.` };
  const code = request.details.packageCode ?? '';
  const pkg = code === '' ? null : await catalog.getCablePackage(request.service, code);
  const variation = pkg === null ? code : pkg.providerCode || pkg.packageCode;
  if (variation === '') return { ok: false, reason: 'The cable purchase names no package.' };
  const body: Record<string, string | number> = {
    request_id: request.reference,
    serviceID,
    billersCode: request.recipient,
    variation_code: variation,
    amount: koboToNaira(request.faceValueKobo),
    phone: request.details.customerPhone || fallbackPhone,
    // Months (VTpass's documentation: `quantity`). Whether VTpass reads `amount` as the total or as one
    // month's price is not in VTpass's documentation (unsure); we send the total we charged for.
    quantity: request.details.months ?? 1,
  };
  // DStv and GOtv distinguish renewing the current bouquet from changing to a named one
  // (VTpass's documentation); a purchase recorded before the choice existed was a change. StarTimes has
  // no such field.
  if (request.service !== 'startimes') body['subscription_type'] = request.details.subscriptionType ?? 'change';
  return { ok: true, body };
}

/** The result of a delivered purchase: VTpass's transaction id, and the electricity token and units. */
function resultOf(request: ProviderRequest, body: Record<string, unknown>): DeliveryResult {
  const result: DeliveryResult = {};
  const id = asObject(asObject(body['content'])?.['transactions'])?.['transactionId'];
  if ((typeof id === 'string' || typeof id === 'number') && /^[A-Za-z0-9_-]{1,64}$/.test(String(id)))
    result.providerReference = String(id);
  if (request.product === 'electricity') Object.assign(result, electricityResult(body, request.details.meterType));
  return result;
}
