/**
 * The VTpass dialect (docs/compat.md, VTpass): VTpass's API (https://www.vtpass.com/documentation/)
 * as the reseller software written for it calls it, so such software buys from us by changing
 * its base URL. `POST /api/pay`, `POST /api/requery`, `GET /api/service-variations`,
 * `POST /api/merchant-verify`, `GET /api/balance`, with and without the trailing slash. Keys as
 * VTpass's clients send them: `api-key` with `secret-key` (POST) or `public-key` (GET); the
 * public-key pair only reads (core/accounts/compat-vtpass.ts). Every answer carries one of
 * VTpass's codes (refusals.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { CompatAnswer, CompatRoute, Dialect } from '../dialect.js';
import { pay } from './pay.js';
import { balance, merchantVerify, requery, serviceVariations } from './reads.js';
import { badCredentials, vtpassRefusal } from './refusals.js';

/** The paths, by their one segment after `api/`. */
const ROUTES: Readonly<Record<string, CompatRoute>> = {
  // The product, and so the purchase scope, is in the body: pay.ts checks it.
  pay: { methods: ['POST'], scope: '', handle: pay },
  requery: { methods: ['POST', 'GET'], scope: 'read', handle: requery },
  'service-variations': { methods: ['GET', 'POST'], scope: 'read', handle: serviceVariations },
  'merchant-verify': { methods: ['POST', 'GET'], scope: 'verify', handle: merchantVerify },
  balance: { methods: ['GET'], scope: 'balance', handle: balance },
};

/** One header's value, when it is one plain word. */
function headerWord(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && /^\s*[^\s:,]+\s*$/.test(value) ? value.trim() : undefined;
}

/** VTpass's own code for an unknown path or method is not documented: 404 and 405 with 012-less bodies. */
const plain = (status: number, description: string): CompatAnswer => ({
  status,
  body: { response_description: description },
});

export const vtpass: Dialect = {
  name: 'vtpass',
  route(segments) {
    const [first, ...rest] = segments;
    if (first === undefined || rest.length > 0 || !Object.hasOwn(ROUTES, first)) return undefined;
    return ROUTES[first];
  },
  /**
   * `api-key:secret-key`, or `api-key:public-key` when no secret key is sent (a GET): the core
   * tells the two apart and lets the public pair only read. Some clients send all three keys on
   * every call; the secret key then speaks.
   */
  tokenOf(headers) {
    const apiKey = headerWord(headers, 'api-key');
    const key = headerWord(headers, 'secret-key') ?? headerWord(headers, 'public-key');
    return apiKey === undefined || key === undefined ? undefined : `${apiKey}:${key}`;
  },
  unauthorized: () => badCredentials(),
  notFound: () => plain(404, 'NOT FOUND'),
  methodNotAllowed: (method) => plain(405, `METHOD ${method.slice(0, 10)} NOT ALLOWED`),
  throttled: (seconds) => plain(429, `TOO MANY REQUESTS: TRY AGAIN IN ${seconds} SECONDS`),
  refusal: vtpassRefusal,
};
