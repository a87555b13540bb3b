/**
 * The MSORG dialect (docs/compat.md): the API of the Django VTU script many Nigerian sites run
 * ("By MSORG DEVELOPERS"), as the reseller software written for it calls it. `Authorization:
 * Token <40 hex>` (one space or two) or a `Token:` header; Django REST Framework's refusals
 * (`{"detail":"Invalid token."}`, `{"error":[...]}` and per-field lists); paths with and
 * without their trailing slash.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiError } from '../../errors.js';
import type { CompatAnswer, CompatRoute, Dialect } from '../dialect.js';
import {
  buyData,
  buyTopup,
  PURCHASE_PRODUCTS,
  type PurchasePath,
  payBill,
  purchasePathScope,
  subscribeCable,
} from './purchases.js';
import { readHistory, readRecord, readUser, validateIuc, validateMeter } from './reads.js';

const BUY = { topup: buyTopup, data: buyData, billpayment: payBill, cablesub: subscribeCable } as const;

/** Where Django REST Framework field names differ from ours, the family's name of our field. */
const FIELD_NAMES: Readonly<Record<string, string>> = {
  phone: 'mobile_number',
  plan_id: 'plan',
  disco: 'disco_name',
  meter_type: 'MeterType',
  provider: 'cablename',
  smart_card: 'smart_card_number',
  package_code: 'cableplan',
  request_id: 'ident',
};

/** The paths whose products are not sold here yet: the family's own refusal, as its clients read it. */
const NOT_AVAILABLE = new Set(['epin', 'rechargepin']);

const NOT_AVAILABLE_ROUTE: CompatRoute = {
  methods: ['GET', 'POST'],
  scope: 'read',
  handle: async () => ({
    status: 400,
    body: { error: ['This Service is not currently available please check back'] },
  }),
};

function purchaseRoute(path: PurchasePath, reference: string | undefined): CompatRoute {
  if (reference !== undefined) {
    return { methods: ['GET'], scope: 'read', handle: (request) => readRecord(request, reference) };
  }
  return {
    methods: ['GET', 'POST'],
    scope: purchasePathScope(path),
    handle: (request) =>
      request.method === 'POST' ? BUY[path](request) : readHistory(request, path, PURCHASE_PRODUCTS[path]),
  };
}

const USER_ROUTE: CompatRoute = { methods: ['GET', 'POST'], scope: 'balance', handle: readUser };
const METER_ROUTE: CompatRoute = { methods: ['GET', 'POST'], scope: 'verify', handle: validateMeter };
const IUC_ROUTE: CompatRoute = { methods: ['GET', 'POST'], scope: 'verify', handle: validateIuc };

/** `Token <key>` with any whitespace, in Authorization or in a header of its own. */
const TOKEN_AUTHORIZATION = /^\s*Token\s+([^\s,]+)\s*$/i;

export const msorg: Dialect = {
  name: 'msorg',
  route(segments) {
    const [first, second, ...rest] = segments;
    if (first === undefined || rest.length > 0) return undefined;
    if (Object.hasOwn(PURCHASE_PRODUCTS, first)) return purchaseRoute(first as PurchasePath, second);
    if (second !== undefined) return undefined;
    if (first === 'user') return USER_ROUTE;
    if (first === 'validatemeter') return METER_ROUTE;
    if (first === 'validateiuc') return IUC_ROUTE;
    if (NOT_AVAILABLE.has(first)) return NOT_AVAILABLE_ROUTE;
    return undefined;
  },
  tokenOf(headers: IncomingHttpHeaders) {
    const authorization = headers.authorization;
    if (typeof authorization === 'string') return TOKEN_AUTHORIZATION.exec(authorization)?.[1];
    const own = headers['token'];
    if (typeof own === 'string' && /^\s*[^\s,]+\s*$/.test(own)) return own.trim();
    return undefined;
  },
  unauthorized: (missing) => ({
    status: 401,
    body: { detail: missing ? 'Authentication credentials were not provided.' : 'Invalid token.' },
  }),
  notFound: () => ({ status: 404, body: { detail: 'Not found.' } }),
  methodNotAllowed: (method) => ({ status: 405, body: { detail: `Method "${method.slice(0, 10)}" not allowed.` } }),
  throttled: (seconds) => ({
    status: 429,
    body: { detail: `Request was throttled. Expected available in ${seconds} seconds.` },
  }),
  refusal,
};

/** Our refusals in Django REST Framework's shapes; never a lower-case `status`. */
function refusal(error: ApiError): CompatAnswer {
  if (error.key === 'NOT_FOUND') return { status: 404, body: { detail: 'Not found.' } };
  if (error.status === 401) return { status: 401, body: { detail: 'Invalid token.' } };
  if (error.status === 403) return { status: 403, body: { detail: error.message } };
  if (error.status === 429) return { status: 429, body: { detail: error.message } };
  if (error.status >= 500) return { status: error.status, body: { detail: error.message } };
  const body: Record<string, unknown> = { error: [error.message] };
  for (const violation of error.violations) {
    const field = FIELD_NAMES[violation.field] ?? violation.field;
    const list = (body[field] as string[] | undefined) ?? [];
    list.push(violation.message);
    body[field] = list;
  }
  if (error.violations.length > 0) body['error'] = error.violations.map((v) => v.message);
  return { status: 400, body };
}
