/**
 * What ClubKonnect's answers mean for our money, from ClubKonnect's documentation
 * (https://www.clubkonnect.com/APIDocs.asp). Every fact there is (unsure): ClubKonnect's own pages
 * could not be read, and the table comes from public clients that agree with each other. So this file believes only
 * the clearest readings and leaves everything else unknown (pending, re-queried):
 *
 * - delivered: `200` + `ORDER_COMPLETED` only (201 "network unresponsive" is not final,
 *   although some clients count it as success);
 * - failed on a purchase: an ORDER_ERROR (4xx statuscode, or an error name without a code):
 *   refused before processing;
 * - failed on either call: ORDER_CANCELLED (5xx), except 521 ("already completed, cancelled
 *   or refunded", which says nothing about which);
 * - unknown: 100/199 ORDER_RECEIVED, 300/399 ORDER_PROCESSED, 201/299, 6xx ORDER_ONHOLD,
 *   an HTML page (IP not whitelisted), an answer about another RequestID, anything else.
 *   An ORDER_ERROR on a query describes the query, not the order, so it is unknown there.
 */
import { nairaCostToKobo, nairaTextToKobo } from '../naira-text.js';
import type { ProviderOutcome } from '../port.js';
import type { HttpAnswer } from '../upstream-http.js';
import { asObject } from '../vtpass/codes.js';
import { ORDER_ERROR_NAMES } from './failover.js';

type ClubkonnectCall = 'purchase' | 'query';

/** `statuscode` and `status` of an answer, each null when absent. */
export function codeAndStatus(answer: HttpAnswer): { code: string | null; status: string | null } {
  const body = answer.kind === 'answer' ? asObject(answer.json) : undefined;
  const code = body?.['statuscode'];
  const status = body?.['status'];
  return {
    code: typeof code === 'string' || typeof code === 'number' ? String(code).trim() : null,
    status: typeof status === 'string' ? status.trim().toUpperCase() : null,
  };
}

/** Reads a purchase or query answer; never throws. */
export function classifyClubkonnect(call: ClubkonnectCall, answer: HttpAnswer, reference: string): ProviderOutcome {
  const unknown = (reason: string): ProviderOutcome => ({ kind: 'unknown', reason });
  if (answer.kind === 'no_answer') return unknown(answer.reason);
  if (answer.status < 200 || answer.status >= 300) return unknown(`the provider answered HTTP ${answer.status}`);
  const body = asObject(answer.json);
  if (body === undefined)
    return unknown(`malformed answer from the provider: ${answer.problem ?? 'not a JSON object'}`);
  const echoed = body['requestid'];
  if (typeof echoed === 'string' && echoed !== '' && echoed !== reference)
    return unknown('the provider answered about another RequestID');
  const { code, status } = codeAndStatus(answer);
  const label = `${code ?? '-'} ${status ?? '-'}`;
  if (code === '200' && status === 'ORDER_COMPLETED') {
    const orderId = body['orderid'] ?? body['transactionid'];
    // `amountcharged`: what our ClubKonnect wallet paid, after its discount (facts: the query
    // answer; unsure like every ClubKonnect fact). Read on any completed answer that carries it.
    const costKobo = nairaCostToKobo(body['amountcharged']);
    // `walletbalance`: our remaining balance, a naira string (facts: the query answer; whether it
    // is the balance right after this order or at the time of the query is unsure; read as after
    // the order, which the balance chain checks against the books and a balance reading). Read
    // to the kobo as the balance call's `balance` is (rounded down), so the two agree.
    const balanceAfterKobo = nairaTextToKobo(body['walletbalance']);
    const upstreamCharge = {
      ...(costKobo === undefined ? {} : { chargedKobo: costKobo }),
      ...(balanceAfterKobo === undefined ? {} : { balanceAfterKobo }),
    };
    return {
      kind: 'delivered',
      result: typeof orderId === 'string' || typeof orderId === 'number' ? { providerReference: String(orderId) } : {},
      ...(costKobo === undefined ? {} : { costKobo }),
      ...(Object.keys(upstreamCharge).length === 0 ? {} : { upstreamCharge }),
    };
  }
  const orderError = code === null ? status !== null && ORDER_ERROR_NAMES.has(status) : /^4\d\d$/.test(code);
  if (orderError) {
    if (call === 'query') return unknown(`the provider refused the query (${label})`);
    return { kind: 'failed', reason: `The provider refused the purchase (${label}).` };
  }
  if (code !== null && /^5\d\d$/.test(code) && code !== '521' && (status === null || status === 'ORDER_CANCELLED')) {
    return { kind: 'failed', reason: `The provider cancelled the order, nothing was delivered (${label}).` };
  }
  return unknown(`the provider reports the order as ${label}`);
}
