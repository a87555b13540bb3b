/**
 * The MSORG reads (docs/compat.md): a purchase record by its `id` (any product at any record
 * path: one client re-queries airtime at `/api/data/{id}`), the history pages, `GET /api/user/`
 * (the balance in `user.Account_Balance` and `user.wallet_balance`, the plan lists at the
 * account's prices), and the meter and smart card checks.
 */
import { canonicalNetwork } from '../../../core/domain/products.js';
import type { Product, Transaction } from '../../../gen/prepaid/v1/types_pb.js';
import { accountOf } from '../../actions/action.js';
import { int64, naira } from '../../actions/views.js';
import { ApiError, toApiError } from '../../errors.js';
import type { CompatAnswer, CompatRequest } from '../dialect.js';
import { byOurs, CABLE_IDS, DISCO_IDS, lookUp, meterTypeOf, NETWORK_IDS } from './ids.js';
import { MsorgInput } from './input.js';
import { nairaText, purchaseRecord } from './records.js';

/** The family's page size (Django REST Framework's page-number pagination; unsure per site). */
const HISTORY_PAGE_SIZE = 20;
/** The deepest page served: older purchases are in the main API's history and the developer area. */
const MAX_HISTORY_PAGE = 50;
/** The core's page size while looking for one product's purchases, and how many of its pages are read at most. */
const CORE_PAGE_SIZE = 100;
const MAX_CORE_PAGES = 20;

const recordContext = (request: CompatRequest) => ({
  inFlight: request.caller.inFlight,
  ident: '',
  ported: false,
  aliases: request.caller.planAliases,
});

/** `GET /api/<product>/{id}`: one record, 404 when it is not the caller's. */
export async function readRecord(request: CompatRequest, reference: string): Promise<CompatAnswer> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(reference)) return { status: 404, body: { detail: 'Not found.' } };
  const res = await request.core.purchase.getTransaction({ ...accountOf(request.caller), reference });
  if (res.transaction === undefined) return { status: 404, body: { detail: 'Not found.' } };
  const tx = res.transaction;
  return { status: 200, body: { ...purchaseRecord(tx, recordContext(request)), ident: tx.requestId || tx.reference } };
}

/** `GET /api/<product>/?page=N`: the family's paginated history of one product, newest first. */
export async function readHistory(request: CompatRequest, path: string, product: Product): Promise<CompatAnswer> {
  const pageText = request.query.get('page') ?? '1';
  const page = /^[1-9]\d{0,2}$/.test(pageText) ? Number(pageText) : 0;
  if (page < 1 || page > MAX_HISTORY_PAGE) return { status: 404, body: { detail: 'Invalid page.' } };
  const wanted = page * HISTORY_PAGE_SIZE + 1;
  const rows: Transaction[] = [];
  let pageToken = '';
  for (let read = 0; read < MAX_CORE_PAGES && rows.length < wanted; read++) {
    const res = await request.core.purchase.listTransactions({
      ...accountOf(request.caller),
      pageSize: CORE_PAGE_SIZE,
      pageToken,
    });
    rows.push(...res.transactions.filter((tx) => tx.product === product));
    pageToken = res.nextPageToken;
    if (pageToken === '') break;
  }
  const results = rows.slice((page - 1) * HISTORY_PAGE_SIZE, page * HISTORY_PAGE_SIZE);
  const context = recordContext(request);
  return {
    status: 200,
    body: {
      // The purchases counted so far; a site's own count is of all of them (unsure what clients read of it).
      count: rows.length,
      next: rows.length > page * HISTORY_PAGE_SIZE ? `/api/${path}/?page=${page + 1}` : null,
      previous: page > 1 ? `/api/${path}/?page=${page - 1}` : null,
      results: results.map((tx) => ({ ...purchaseRecord(tx, context), ident: tx.requestId || tx.reference })),
    },
  };
}

/** The family's plan type groups, from ours. */
function planGroup(type: string): string {
  if (type === 'cg') return 'CORPORATE';
  return type === '' ? 'OTHER' : type.toUpperCase();
}

/** `GET /api/user/`: the account, its balance and its plan lists, as the family answers them. */
export async function readUser(request: CompatRequest): Promise<CompatAnswer> {
  const account = accountOf(request.caller);
  const [balance, plans, ...packages] = await Promise.all([
    request.core.purchase.getBalance(account),
    request.core.purchase.listPlans({ ...account, network: '', planType: '' }),
    ...CABLE_IDS.map((cable) => request.core.purchase.listPackages({ ...account, provider: cable.ours })),
  ]);
  // A plan is listed under the id its clients send: the account's alias, else our plan_id.
  const aliasOf = new Map<number, string>();
  for (const [alias, planId] of request.caller.planAliases) aliasOf.set(planId, alias);
  const dataplans: Record<string, Record<string, unknown[]>> = {};
  for (const network of NETWORK_IDS) dataplans[`${network.name}_PLAN`] = { ALL: [] };
  for (const plan of plans.plans) {
    const network = byOurs(NETWORK_IDS, canonicalNetwork(plan.network) ?? plan.network);
    if (network === undefined) continue;
    const planId = int64(plan.planId);
    const alias = aliasOf.get(planId);
    const id = alias === undefined ? planId : /^\d{1,15}$/.test(alias) ? Number(alias) : alias;
    const group = planGroup(plan.type);
    const row = {
      id,
      dataplan_id: String(id),
      network: network.id,
      plan_type: group,
      plan_network: network.name,
      month_validate: plan.validity,
      plan: plan.label,
      plan_amount: nairaText(plan.priceKobo),
    };
    const lists = dataplans[`${network.name}_PLAN`]!;
    lists['ALL']!.push(row);
    const grouped = lists[group] ?? [];
    grouped.push(row);
    lists[group] = grouped;
  }
  const cableplan: Record<string, unknown[]> = {};
  CABLE_IDS.forEach((cable, i) => {
    cableplan[`${cable.name}PLAN`] = packages[i]!.packages.map((p) => ({
      id: p.packageCode,
      cableplan_id: p.packageCode,
      cable: cable.name,
      package: p.name,
      plan_amount: nairaText(p.priceKobo),
    }));
  });
  cableplan['cablename'] = CABLE_IDS.map((cable) => ({ id: cable.id, name: cable.name }));
  return {
    status: 200,
    body: {
      user: {
        username: request.caller.accountId,
        Account_Balance: naira(balance.balanceKobo),
        wallet_balance: nairaText(balance.balanceKobo),
        bonus_balance: '0.0',
        tier: balance.tierName,
        bank_accounts: { accounts: [] },
      },
      notification: { message: '' },
      Dataplans: dataplans,
      Cableplan: cableplan,
      Disco: DISCO_IDS.map((disco) => ({ id: disco.id, name: disco.name })),
    },
  };
}

/** A failed check, in the family's answer: `invalid` and the reason (400, so no client takes it as a name). */
function checkRefused(request: CompatRequest, error: unknown): CompatAnswer {
  const apiError = error instanceof ApiError ? error : toApiError(error, request.log);
  if (apiError.status >= 500) throw apiError;
  return { status: 400, body: { invalid: true, error: [apiError.message] } };
}

/** `GET /api/validatemeter`: who owns a meter, in every query spelling the family's clients use. */
export async function validateMeter(request: CompatRequest): Promise<CompatAnswer> {
  const input = new MsorgInput(request.query.size > 0 ? request.query : request.body);
  const disco = lookUp(DISCO_IDS, input.raw('disconame', 'disco_id', 'disco', 'disco_name'));
  if (disco === undefined) input.reject('disconame', 'A valid disco id is required (1 to 10).');
  const meterNumber = input.text(['meternumber', 'meter_number'], true);
  const meterType = meterTypeOf(input.raw('mtype', 'meter_type', 'MeterType'));
  if (meterType === undefined) input.reject('mtype', 'mtype must be 1 (prepaid) or 2 (postpaid).');
  try {
    input.done();
    const res = await request.core.purchase.verifyCustomer({
      ...accountOf(request.caller),
      disco: disco!.ours,
      meterNumber,
      meterType: meterType!,
      provider: '',
      smartCard: '',
    });
    const minimum = res.minimumAmountKobo === undefined ? null : naira(res.minimumAmountKobo);
    return {
      status: 200,
      body: {
        invalid: false,
        name: res.customerName,
        address: res.address ?? '',
        Customer_Name: res.customerName,
        content: {
          Customer_Name: res.customerName,
          Address: res.address ?? '',
          Meter_Number: res.customerNumber,
          Minimum_Amount: minimum,
          Meter_Type: res.meterType.toUpperCase(),
          WrongBillersCode: false,
        },
      },
    };
  } catch (error) {
    return checkRefused(request, error);
  }
}

/** `GET /api/validateiuc`: who owns a smart card. */
export async function validateIuc(request: CompatRequest): Promise<CompatAnswer> {
  const input = new MsorgInput(request.query.size > 0 ? request.query : request.body);
  const cable = lookUp(CABLE_IDS, input.raw('cablename', 'cable_id'));
  if (cable === undefined) input.reject('cablename', 'A valid cable id is required (1 GOTV, 2 DSTV, 3 STARTIME).');
  const smartCard = input.text(['smart_card_number', 'smartcardnumber', 'iuc'], true);
  try {
    input.done();
    const res = await request.core.purchase.verifyCustomer({
      ...accountOf(request.caller),
      disco: '',
      meterNumber: '',
      meterType: '',
      provider: cable!.ours,
      smartCard,
    });
    return {
      status: 200,
      body: { invalid: false, name: res.customerName, current_bouquet: res.currentBouquet ?? '' },
    };
  } catch (error) {
    return checkRefused(request, error);
  }
}
