/**
 * The ClubKonnect (Nellobytes Systems) adapter for airtime and data, from
 * ClubKonnect's documentation (https://www.clubkonnect.com/APIDocs.asp), where every fact is (unsure):
 * ClubKonnect's own pages could not be read. Every call is a GET with UserID and APIKey in the query string, so the
 * URL is never logged nor put in a reason. Our reference is the RequestID, so a re-query
 * (`APIQueryV1.asp?RequestID=`) finds a purchase whose answer was lost.
 *
 * A purchase is sent once, never retried: a repeated GET could buy twice, and whether
 * ClubKonnect refuses a repeated RequestID is unknown. Reads (query, balance, plans) are
 * sent once too; the caller asks again later.
 *
 * Electricity and cable (APIElectricityV1.asp, APICableTVV1.asp, and their verify scripts)
 * are read in bills.ts.
 */
import type { Kobo } from '../../domain/money.js';
import type { Network } from '../../domain/products.js';
import { evidenceOf } from '../failover.js';
import { nairaTextToKobo } from '../naira-text.js';
import type {
  CustomerQuery,
  CustomerVerifier,
  PlanSource,
  ProductProvider,
  ProviderOutcome,
  ProviderRequest,
  UpstreamPlan,
  VerifyOutcome,
} from '../port.js';
import { exchange, type Fetch, type HttpAnswer, upstreamClient, withRaw } from '../upstream-http.js';
import { asObject } from '../vtpass/codes.js';
import { cableParams, electricityExtras, electricityParams, readVerify, verifyParams } from './bills.js';
import { classifyClubkonnect, codeAndStatus } from './codes.js';

/** `MobileNetwork` codes (4 public clients agree; unsure). */
const CLUBKONNECT_NETWORKS: Readonly<Record<Network, string>> = { mtn: '01', glo: '02', '9mobile': '03', airtel: '04' };

const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_PLANS_BYTES = 1024 * 1024;

interface ClubkonnectOptions {
  /** The instance's name (UPSTREAMS), for logs. */
  name: string;
  /** For example https://www.nellobytesystems.com/ */
  baseUrl: string;
  userId: string;
  apiKey: string;
  /** ClubKonnect's `DataPlan` code for one of our plans, or null when it does not sell it. */
  planCode(planId: number): Promise<string | null>;
  fetch?: Fetch;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

export interface ClubkonnectProviders {
  airtime: ProductProvider;
  data: ProductProvider & PlanSource;
  electricity: ProductProvider & CustomerVerifier;
  cable: ProductProvider & CustomerVerifier;
  /** Our wallet at ClubKonnect (`APIWalletBalanceV1.asp`); rejects when it cannot tell. */
  balance(signal: AbortSignal): Promise<Kobo>;
}

type Params = { ok: true; script: string; params: Record<string, string> } | { ok: false; reason: string };

export function createClubkonnectProviders(options: ClubkonnectOptions): ClubkonnectProviders {
  const { get, provider, verify } = clubkonnectCalls(options);

  const network = (service: string): string | undefined =>
    Object.hasOwn(CLUBKONNECT_NETWORKS, service) ? CLUBKONNECT_NETWORKS[service as Network] : undefined;

  const airtime = provider(async (request) => {
    const code = network(request.service);
    if (code === undefined) return { ok: false, reason: `The provider does not sell airtime on ${request.service}.` };
    if (request.faceValueKobo % 100 !== 0)
      return { ok: false, reason: 'The provider sells airtime in whole naira only.' };
    return {
      ok: true,
      script: 'APIAirtimeV1.asp',
      params: { MobileNetwork: code, Amount: String(request.faceValueKobo / 100), MobileNumber: request.recipient },
    };
  });

  const data: ProductProvider & PlanSource = {
    ...provider(async (request) => {
      const code = network(request.service);
      if (code === undefined) return { ok: false, reason: `The provider does not sell data on ${request.service}.` };
      const planId = request.details.planId;
      const plan = planId === undefined ? null : await options.planCode(planId);
      if (plan === null || plan === '')
        return { ok: false, reason: `Data plan ${planId ?? '?'} is not sold by this provider.` };
      return {
        ok: true,
        script: 'APIDatabundleV1.asp',
        params: { MobileNetwork: code, DataPlan: plan, MobileNumber: request.recipient },
      };
    }),
    async listPlans(net, signal) {
      const code = network(net);
      if (code === undefined) throw new Error(`unknown network ${String(net)}`);
      const answer = await get('APIDatabundlePlansV2.asp', {}, signal, MAX_PLANS_BYTES);
      const plans = readPlans(answer, code);
      if (plans === undefined) throw new Error(`ClubKonnect plans for ${net}: no usable plan list`);
      return plans;
    },
  };

  async function balance(signal: AbortSignal): Promise<Kobo> {
    return readBalance(await get('APIWalletBalanceV1.asp', {}, signal));
  }

  const electricity = { ...provider(async (request) => electricityParams(request)), verify };
  const cable = { ...provider(async (request) => cableParams(request)), verify };

  return { airtime, data, electricity, cable, balance };
}

/**
 * The wire under every product: the GET signed with UserID and APIKey, a purchase and its
 * re-query read and logged the same way for each product, and a customer's verification.
 */
function clubkonnectCalls(options: ClubkonnectOptions) {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  const log = options.log ?? (() => {});
  const client = upstreamClient(options.fetch);

  function get(
    script: string,
    params: Record<string, string>,
    signal: AbortSignal,
    maxBytes = MAX_ANSWER_BYTES,
  ): Promise<HttpAnswer> {
    const url = new URL(script, base);
    url.searchParams.set('UserID', options.userId);
    url.searchParams.set('APIKey', options.apiKey);
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return exchange({ url, method: 'GET', headers: {}, signal, maxBytes }, client);
  }

  function provider(build: (request: ProviderRequest) => Promise<Params>): ProductProvider {
    return {
      name: options.name,
      async purchase(request, signal) {
        const built = await build(request);
        // Nothing was sent, so nothing can have been charged.
        if (!built.ok) return { kind: 'failed', reason: built.reason };
        const answer = await get(built.script, { ...built.params, RequestID: request.reference }, signal);
        const outcome = withExtras(request, answer, classifyClubkonnect('purchase', answer, request.reference));
        logCall('purchase', request, answer, outcome);
        return withRaw(
          outcome.kind === 'failed' || outcome.kind === 'unknown'
            ? { ...outcome, evidence: evidenceOf(answer, codeAndStatus(answer)) }
            : outcome,
          answer,
        );
      },
      async query(request, signal) {
        const answer = await get('APIQueryV1.asp', { RequestID: request.reference }, signal);
        const outcome = withExtras(request, answer, classifyClubkonnect('query', answer, request.reference));
        logCall('query', request, answer, outcome);
        return withRaw(outcome, answer);
      },
    };
  }

  /** A delivered electricity order's token, read from the answer that said it completed. */
  function withExtras(request: ProviderRequest, answer: HttpAnswer, outcome: ProviderOutcome): ProviderOutcome {
    const body = answer.kind === 'answer' ? asObject(answer.json) : undefined;
    if (outcome.kind !== 'delivered' || body === undefined) return outcome;
    return { ...outcome, result: { ...outcome.result, ...electricityExtras(request, body) } };
  }

  async function verify(query: CustomerQuery, signal: AbortSignal): Promise<VerifyOutcome> {
    const call = verifyParams(query);
    if (call === null) return { kind: 'not_found', reason: `The provider does not serve ${query.service}.` };
    const outcome = readVerify(await get(call.script, call.params, signal));
    log('provider.clubkonnect', {
      upstream: options.name,
      product: query.product,
      call: 'verify',
      outcome: outcome.kind,
    });
    return outcome;
  }

  function logCall(call: string, request: ProviderRequest, answer: HttpAnswer, outcome: ProviderOutcome): void {
    const { code, status } = codeAndStatus(answer);
    log('provider.clubkonnect', {
      upstream: options.name,
      reference: request.reference,
      product: request.product,
      call,
      http_status: answer.kind === 'answer' ? answer.status : null,
      code,
      status,
      outcome: outcome.kind,
    });
  }

  return { get, provider, verify };
}

/** Our wallet's balance from `APIWalletBalanceV1.asp`'s answer; throws when it cannot tell. */
function readBalance(answer: HttpAnswer): Kobo {
  const amount =
    answer.kind === 'answer' && answer.status === 200 ? nairaTextToKobo(asObject(answer.json)?.['balance']) : undefined;
  if (amount !== undefined) return amount;
  const why = answer.kind === 'answer' ? `no balance in the answer (HTTP ${answer.status})` : answer.reason;
  throw new Error(`ClubKonnect balance: ${why}`);
}

/**
 * The plans of one network from `APIDatabundlePlansV2.asp` (shape from one client only;
 * unsure): MOBILE_NETWORK.<name>[].{ID, PRODUCT[]}, matched on ID, since the network's key
 * ("MTN", "Glo", ...) is not known for every network.
 */
function readPlans(answer: HttpAnswer, networkCode: string): UpstreamPlan[] | undefined {
  if (answer.kind !== 'answer' || answer.status !== 200) return undefined;
  const networks = asObject(asObject(answer.json)?.['MOBILE_NETWORK']);
  if (networks === undefined) return undefined;
  const plans: UpstreamPlan[] = [];
  for (const entries of Object.values(networks)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      const group = asObject(entry);
      if (group?.['ID'] !== networkCode || !Array.isArray(group['PRODUCT'])) continue;
      for (const item of group['PRODUCT']) {
        const product = asObject(item);
        const code = product?.['PRODUCT_ID'];
        const name = product?.['PRODUCT_NAME'];
        const amountKobo = nairaTextToKobo(product?.['PRODUCT_AMOUNT']);
        if (typeof code === 'string' && code !== '' && typeof name === 'string' && amountKobo !== undefined)
          plans.push({ code, name, amountKobo });
      }
    }
  }
  return plans;
}
