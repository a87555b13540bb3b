/**
 * The Adex dialect (docs/compat.md): the API of the PHP VTU script Legitdataway, Bilalsadasub
 * and their look-alikes run, as the reseller software written for it calls it. A login at
 * `/api/user` with Basic credentials (the account's id and the compatible token) answers the
 * AccessToken, then `Authorization: Token <AccessToken>` (one space or two); lower-case
 * `status` `success` / `fail`; the client's `request-id` echoed; paths with and without their
 * trailing slash.
 */
import type { ApiError } from '../../errors.js';
import type { CompatRoute, Dialect } from '../dialect.js';
import { failAnswer, refusalAnswer } from './answers.js';
import { adexTokenOf } from './auth.js';
import { CABLE_FIELD } from './ids.js';
import { openApiPaths } from './openapi.js';
import {
  buyData,
  buyTopup,
  PURCHASE_PRODUCTS,
  type PurchasePath,
  payBill,
  purchasePathScope,
  subscribeCable,
} from './purchases.js';
import { login, validateIuc, validateMeter } from './reads.js';

const BUY = { topup: buyTopup, data: buyData, bill: payBill, cable: subscribeCable } as const;

/** The family's products not sold here yet (PIN and card products): its refusal, not a 404. */
const NOT_AVAILABLE = new Set(['recharge_card', 'data_card', 'exam']);

const NOT_AVAILABLE_ROUTE: CompatRoute = {
  methods: ['GET', 'POST'],
  scope: 'read',
  handle: async () => failAnswer(400, 'This service is not available here yet; nothing was charged.'),
};

const LOGIN_ROUTE: CompatRoute = { methods: ['GET', 'POST'], scope: '', handle: login };
const METER_ROUTE: CompatRoute = { methods: ['GET', 'POST'], scope: 'verify', handle: validateMeter };
const IUC_ROUTE: CompatRoute = { methods: ['GET', 'POST'], scope: 'verify', handle: validateIuc };

function purchaseRoute(path: PurchasePath): CompatRoute {
  return { methods: ['POST'], scope: purchasePathScope(path), handle: (request) => BUY[path](request) };
}

export const adex: Dialect = {
  name: 'adex',
  openApiPaths,
  route(segments) {
    const [first, second, ...rest] = segments;
    if (first === undefined || rest.length > 0) return undefined;
    if (first === 'bill' && second === 'bill-validation') return METER_ROUTE;
    if (first === CABLE_FIELD && second === 'cable-validation') return IUC_ROUTE;
    if (second !== undefined) return undefined;
    if (Object.hasOwn(PURCHASE_PRODUCTS, first)) return purchaseRoute(first as PurchasePath);
    if (first === 'user') return LOGIN_ROUTE;
    if (NOT_AVAILABLE.has(first)) return NOT_AVAILABLE_ROUTE;
    return undefined;
  },
  tokenOf: adexTokenOf,
  unauthorized: (missing) =>
    failAnswer(401, missing ? 'Authentication credentials were not provided.' : 'Invalid username, password or token.'),
  notFound: () => failAnswer(404, 'Not found.'),
  methodNotAllowed: (method) => failAnswer(405, `Method "${method.slice(0, 10)}" not allowed.`),
  throttled: (seconds) => failAnswer(429, `Too many requests; try again in ${seconds} seconds.`),
  refusal: (error: ApiError) => refusalAnswer(error),
};
