/**
 * The "ported-number" family adapter (Husmodata, Datastation, Gladtidings and their many
 * look-alikes: one adapter, any number of instances) for airtime and data, from
 * the family's documentation (https://documenter.getpostman.com/view/10645604/TVKHVFW7; docs/upstreams.md).
 * Each site is its own fork of one Django script, so most facts are (unsure) for any given site: the network
 * ids 1 MTN, 2 GLO, 3 9MOBILE, 4 AIRTEL (one site swaps 2 and 3), whether `ident` is kept, the shape of
 * `/api/user/`. Only the Django family is covered, not the Adex-style PHP sites.
 *
 * `Authorization: Token <key>`; purchases are POSTed once and never retried. `Status`
 * decides: `successful` delivered, `failed` failed, `processing`/`pending`/anything else
 * unknown. HTTP 400 with a JSON body (validation, balance at the site), 401, 403 and 404
 * are refusals before any purchase (400: unsure, from the script source only).
 *
 * Re-query: the family documents lookups by the site's own id only (`GET /api/data/{id}`,
 * `/api/topup/{id}`, `/api/billpayment/{id}`), so the id of every answer that carried one is
 * kept on the purchase's attempt and `query` asks by it. A purchase whose answer was lost
 * never got an id: then `query` walks the history list (DRF page-number pages, newest first:
 * unsure) by its `next` links on the site's own address, matching our reference in the echoed
 * `ident` (echoed by some sites only: unsure), until it is found, an entry older than our
 * purchase shows the list has passed it, or MAX_HISTORY_PAGES were read. Not found, or a 404
 * by id (a record not ours or gone: unsure), the purchase stays unknown, never failed.
 *
 * Electricity (`/api/billpayment/`) is read in bills.ts; cable is not sold through the family.
 */
import { type Kobo, kobo } from '../../domain/money.js';
import { canonicalNetwork, type Network } from '../../domain/products.js';
import { evidenceOf } from '../failover.js';
import { nairaBalanceToKobo, nairaCostToKobo, nairaTextToKobo } from '../naira-text.js';
import type {
  CustomerQuery,
  CustomerVerifier,
  PlanSource,
  ProductProvider,
  ProviderOutcome,
  ProviderRequest,
  UpstreamCharge,
  UpstreamPlan,
  VerifyOutcome,
} from '../port.js';
import { exchange, type Fetch, type HttpAnswer, upstreamClient, withRaw } from '../upstream-http.js';
import { asObject } from '../vtpass/codes.js';
import { billBody, billExtras, readValidateMeter, validateMeterPath } from './bills.js';
import { findPurchase, SITE_ID } from './requery.js';

/** Network ids of the Django family (unsure per site: read the site's plan list). */
const PORTED_NUMBER_NETWORKS: Readonly<Record<Network, number>> = { mtn: 1, glo: 2, '9mobile': 3, airtel: 4 };
/** The plan list's key of each network in `Dataplans`. */
const PLAN_KEYS: Readonly<Record<Network, string>> = {
  mtn: 'MTN_PLAN',
  glo: 'GLO_PLAN',
  '9mobile': '9MOBILE_PLAN',
  airtel: 'AIRTEL_PLAN',
};

const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_LIST_BYTES = 1024 * 1024;

interface PortedNumberOptions {
  /** The instance's name (UPSTREAMS), for logs and as the provider's name. */
  name: string;
  /** The site's API base, for example https://www.husmodata.com/api/ */
  baseUrl: string;
  token: string;
  /** The site's integer plan id for one of our plans, or null when it does not sell it. */
  planCode(planId: number): Promise<string | null>;
  fetch?: Fetch;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

export interface PortedNumberProviders {
  airtime: ProductProvider;
  data: ProductProvider & PlanSource;
  /** Electricity (bills.ts); cable is not sold through the family. */
  electricity: ProductProvider & CustomerVerifier;
  /** Our wallet at the site (`user.Account_Balance` of `/api/user/`); rejects when it cannot tell. */
  balance(signal: AbortSignal): Promise<Kobo>;
}

type SitePath = 'topup/' | 'data/' | 'billpayment/';
type Built = { ok: true; path: SitePath; body: Record<string, unknown> } | { ok: false; reason: string };

export function createPortedNumberProviders(options: PortedNumberOptions): PortedNumberProviders {
  const { provider, verify, readUser } = portedNumberCalls(options);

  // A sale may name 9mobile t2.
  const network = (service: string): number | undefined => {
    const canonical = canonicalNetwork(service) ?? service;
    return Object.hasOwn(PORTED_NUMBER_NETWORKS, canonical) ? PORTED_NUMBER_NETWORKS[canonical as Network] : undefined;
  };

  const airtime = provider('topup/', async (request) => {
    const id = network(request.service);
    if (id === undefined) return { ok: false, reason: `The provider does not sell airtime on ${request.service}.` };
    if (request.faceValueKobo % 100 !== 0)
      return { ok: false, reason: 'The provider sells airtime in whole naira only.' };
    return {
      ok: true,
      path: 'topup/',
      body: { network: id, amount: request.faceValueKobo / 100, mobile_number: request.recipient, airtime_type: 'VTU' },
    };
  });

  const data: ProductProvider & PlanSource = {
    ...provider('data/', async (request) => {
      const id = network(request.service);
      if (id === undefined) return { ok: false, reason: `The provider does not sell data on ${request.service}.` };
      const planId = request.details.planId;
      const plan = planId === undefined ? null : await options.planCode(planId);
      if (plan === null || !/^\d{1,9}$/.test(plan))
        return { ok: false, reason: `Data plan ${planId ?? '?'} is not sold by this provider.` };
      return { ok: true, path: 'data/', body: { network: id, mobile_number: request.recipient, plan: Number(plan) } };
    }),
    async listPlans(net, signal) {
      if (!Object.hasOwn(PLAN_KEYS, net)) throw new Error(`unknown network ${String(net)}`);
      const user = await readUser(signal);
      const groups = asObject(asObject(asObject(user['Dataplans'])?.[PLAN_KEYS[net]]));
      if (groups === undefined) throw new Error(`${options.name} plans for ${net}: no plan list`);
      return plansOf(groups);
    },
  };

  const electricity = {
    ...provider('billpayment/', async (request): Promise<Built> => {
      const built = billBody(request);
      return built.ok ? { ok: true, path: 'billpayment/', body: built.body } : built;
    }),
    verify,
  };

  async function balance(signal: AbortSignal): Promise<Kobo> {
    const amount = nairaTextToKobo(asObject((await readUser(signal))['user'])?.['Account_Balance']);
    if (amount === undefined) throw new Error(`${options.name} /api/user/: no balance in the answer`);
    return amount;
  }

  return { airtime, data, electricity, balance };
}

/**
 * The wire under every product: the call with the site's token, a purchase (its ident our
 * reference) and its re-query from the site's list, each read and logged the same way, a
 * meter's validation, and the user record that carries the plans and the balance.
 */
function portedNumberCalls(options: PortedNumberOptions) {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  const log = options.log ?? (() => {});
  const client = upstreamClient(options.fetch);
  const headers = { authorization: `Token ${options.token}` };

  const call = (
    method: 'GET' | 'POST',
    path: string,
    signal: AbortSignal,
    body?: unknown,
    maxBytes = MAX_ANSWER_BYTES,
  ): Promise<HttpAnswer> =>
    exchange(
      { url: new URL(path, base), method, headers, ...(body === undefined ? {} : { body }), signal, maxBytes },
      client,
    );

  function provider(path: SitePath, build: (request: ProviderRequest) => Promise<Built>): ProductProvider {
    return {
      name: options.name,
      async purchase(request, signal) {
        const built = await build(request);
        if (!built.ok) return { kind: 'failed', reason: built.reason };
        const answer = await call('POST', built.path, signal, {
          ...built.body,
          // A bill payment has no ported number to check.
          ...(built.path === 'billpayment/' ? {} : { Ported_number: true }),
          ident: request.reference,
        });
        const body = answer.kind === 'answer' ? asObject(answer.json) : undefined;
        const outcome = withExtras(request, body, readPurchase(answer));
        logCall('purchase', request, answer, outcome);
        return withRaw(
          outcome.kind === 'failed' || outcome.kind === 'unknown'
            ? { ...outcome, evidence: evidenceOf(answer, { code: null, status: statusOf(answer) }) }
            : outcome,
          answer,
        );
      },
      async query(request, signal) {
        const found = await findPurchase(call, base, path, request, signal);
        const outcome: ProviderOutcome =
          found.record === undefined
            ? { kind: 'unknown', reason: found.reason, ...(found.noRecord ? { noRecord: true } : {}) }
            : withCharges(withExtras(request, found.record, readRecord(found.record, 'query')), found.matches);
        logCall('query', request, found.answer, outcome, found.pages);
        // A history page is the whole list; the record of this purchase is what says something about it.
        return found.record === undefined
          ? withRaw(outcome, found.answer)
          : { ...outcome, raw: { body: JSON.stringify(found.record) } };
      },
    };
  }

  /** A delivered electricity record's token. */
  function withExtras(
    request: ProviderRequest,
    record: Record<string, unknown> | undefined,
    outcome: ProviderOutcome,
  ): ProviderOutcome {
    if (outcome.kind !== 'delivered' || record === undefined) return outcome;
    return { ...outcome, result: { ...outcome.result, ...billExtras(request, record) } };
  }

  async function verify(query: CustomerQuery, signal: AbortSignal): Promise<VerifyOutcome> {
    const path = validateMeterPath(query);
    if (path === null) return { kind: 'not_found', reason: `The provider does not serve ${query.service}.` };
    const outcome = readValidateMeter(await call('GET', path, signal));
    log('provider.ported_number', {
      upstream: options.name,
      product: query.product,
      call: 'verify',
      outcome: outcome.kind,
    });
    return outcome;
  }

  function logCall(
    what: string,
    request: ProviderRequest,
    answer: HttpAnswer,
    outcome: ProviderOutcome,
    pages?: number,
  ): void {
    log('provider.ported_number', {
      upstream: options.name,
      reference: request.reference,
      product: request.product,
      call: what,
      ...(pages === undefined ? {} : { pages }),
      http_status: answer.kind === 'answer' ? answer.status : null,
      status: statusOf(answer),
      outcome: outcome.kind,
    });
  }

  async function readUser(signal: AbortSignal): Promise<Record<string, unknown>> {
    const answer = await call('GET', 'user/', signal, undefined, MAX_LIST_BYTES);
    const body = answer.kind === 'answer' && answer.status === 200 ? asObject(answer.json) : undefined;
    if (body === undefined)
      throw new Error(
        `${options.name} /api/user/: ${answer.kind === 'answer' ? `HTTP ${answer.status}` : answer.reason}`,
      );
    return body;
  }

  return { provider, verify, readUser };
}

/** The plans of one network's groups in `/api/user/`'s `Dataplans`, each named with its type and validity. */
function plansOf(groups: Record<string, unknown>): UpstreamPlan[] {
  const plans = new Map<string, UpstreamPlan>();
  for (const group of Object.values(groups)) {
    if (!Array.isArray(group)) continue;
    for (const item of group) {
      const plan = asObject(item);
      const id = plan?.['id'];
      const amountKobo = nairaTextToKobo(plan?.['plan_amount']);
      if (typeof id !== 'number' || amountKobo === undefined || typeof plan?.['plan'] !== 'string') continue;
      const type = typeof plan['plan_type'] === 'string' ? ` ${plan['plan_type']}` : '';
      const days = typeof plan['month_validate'] === 'string' ? ` - ${plan['month_validate']} days` : '';
      plans.set(String(id), { code: String(id), name: `${plan['plan']}${type}${days}`, amountKobo });
    }
  }
  return [...plans.values()];
}

function statusOf(answer: HttpAnswer): string | null {
  const status = answer.kind === 'answer' ? asObject(answer.json)?.['Status'] : undefined;
  return typeof status === 'string' ? status.trim().toLowerCase() : null;
}

function readPurchase(answer: HttpAnswer): ProviderOutcome {
  if (answer.kind === 'no_answer') return { kind: 'unknown', reason: answer.reason };
  const body = asObject(answer.json);
  if (
    (answer.status === 400 && body !== undefined) ||
    answer.status === 401 ||
    answer.status === 403 ||
    answer.status === 404
  ) {
    return { kind: 'failed', reason: `The provider refused the purchase (HTTP ${answer.status}).` };
  }
  if (answer.status < 200 || answer.status >= 300)
    return { kind: 'unknown', reason: `the provider answered HTTP ${answer.status}` };
  if (body === undefined)
    return { kind: 'unknown', reason: `malformed answer from the provider: ${answer.problem ?? 'not a JSON object'}` };
  return readRecord(body, 'purchase');
}

/** A purchase record's `Status`: the same reading for a purchase answer and a history entry. */
function readRecord(record: Record<string, unknown>, call: 'purchase' | 'query'): ProviderOutcome {
  const status = typeof record['Status'] === 'string' ? record['Status'].trim().toLowerCase() : undefined;
  const id = record['id'];
  switch (status) {
    case 'successful': {
      const costKobo = portedNumberCost(record);
      const upstreamCharge = portedNumberCharge(record, costKobo);
      return {
        kind: 'delivered',
        result: typeof id === 'number' || typeof id === 'string' ? { providerReference: String(id) } : {},
        ...(costKobo === undefined ? {} : { costKobo }),
        ...(upstreamCharge === undefined ? {} : { upstreamCharge }),
      };
    }
    case 'failed':
      return {
        kind: 'failed',
        reason: `The provider reports that the purchase failed${call === 'query' ? ' (history)' : ''}.`,
      };
    default:
      return {
        kind: 'unknown',
        reason:
          status === undefined
            ? 'malformed answer from the provider: no Status'
            : `the provider reports the purchase as ${status.slice(0, 24)}`,
        // Kept on the attempt, so the re-query asks for this record by its id.
        ...((typeof id === 'number' || typeof id === 'string') && SITE_ID.test(String(id))
          ? { upstreamReference: String(id) }
          : {}),
      };
  }
}

/** A delivered outcome with the number of charges the history shows under our reference, when it was counted. */
function withCharges(outcome: ProviderOutcome, matches: number | undefined): ProviderOutcome {
  if (matches === undefined || outcome.kind !== 'delivered') return outcome;
  return { ...outcome, upstreamCharge: { ...outcome.upstreamCharge, charges: matches } };
}

/**
 * What a successful record says about our wallet at the site: its cost (portedNumberCost) and
 * the balance around it, `balance_before`/`balance_after` (naira strings in every sample), only
 * when it was paid from the main wallet: a data balance's figures are not naira (unsure, as
 * below). Only a successful record's: whether a failed purchase is refunded at the site is
 * unsure, so the balances beside a failure say nothing certain.
 */
function portedNumberCharge(record: Record<string, unknown>, costKobo: Kobo | undefined): UpstreamCharge | undefined {
  const medium = record['payment_medium'];
  const mainWallet = medium === undefined || medium === null || String(medium).trim().toUpperCase() === 'MAIN WALLET';
  const before = mainWallet ? nairaBalanceToKobo(record['balance_before']) : undefined;
  const after = mainWallet ? nairaBalanceToKobo(record['balance_after']) : undefined;
  const charge: UpstreamCharge = {
    ...(costKobo === undefined ? {} : { chargedKobo: costKobo }),
    ...(before === undefined ? {} : { balanceBeforeKobo: before }),
    ...(after === undefined ? {} : { balanceAfterKobo: after }),
  };
  return Object.keys(charge).length === 0 ? undefined : charge;
}

/**
 * What the site charged our wallet for a successful purchase record (the sites' documentation): an airtime
 * record's `paid_amount` (after the site's discount); otherwise the fall of our balance,
 * `balance_before` less `balance_after`. The balance fall is (unsure) as a cost: it is naira
 * only when the purchase was paid from the main wallet, and Gladtidings pays some data from a
 * data balance (`payment_medium` such as "MTN SME2 DATA BALANCE", whose balances are not
 * naira), so a record naming any other medium gives no cost. Nothing positive, no cost.
 */
export function portedNumberCost(record: Record<string, unknown>): Kobo | undefined {
  const paid = nairaCostToKobo(record['paid_amount']);
  if (paid !== undefined) return paid;
  const medium = record['payment_medium'];
  if (medium !== undefined && medium !== null && String(medium).trim().toUpperCase() !== 'MAIN WALLET')
    return undefined;
  const before = nairaCostToKobo(record['balance_before']);
  const after = nairaCostToKobo(record['balance_after']);
  if (before === undefined || after === undefined || before <= after) return undefined;
  return kobo(before - after);
}
