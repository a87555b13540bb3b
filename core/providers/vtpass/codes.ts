/**
 * What VTpass's answers mean for our money. This is the one place that reads a `pay` or
 * `requery` answer's `code` and transaction status, and it follows one rule: an answer is
 * a failure (refunded) only when it can only mean "not processed and not charged", or
 * "charged and given back"; everything else, including any code or body we do not
 * recognise, is unknown: the purchase stays pending, debited, and is re-queried. VTpass
 * itself says a pending transaction has already been charged and must not be refunded.
 *
 * Codes are read differently for the two calls. A `pay` answer describes the purchase we
 * just asked for, so a refusal at the door (bad variation, below minimum, our account
 * locked, IP not whitelisted...) means it was never processed. A `requery` answer's
 * request-level codes describe the requery itself, not the purchase: "IP not whitelisted"
 * on a requery says nothing about whether the purchase was delivered, so on a requery only
 * the codes that describe a transaction are believed.
 */
import { type Kobo, kobo } from '../../domain/money.js';
import type { DeliveryResult } from '../../domain/products.js';
import { nairaCostToKobo } from '../naira-text.js';
import type { ProviderOutcome } from '../port.js';
import type { HttpAnswer } from '../upstream-http.js';

/** Which call an answer belongs to. */
export type VtpassCall = 'pay' | 'requery';

/** How a code is read on each call. */
type Verdict =
  /** Code 000: the transaction status decides. */
  | 'processed'
  | 'failed'
  | 'reversed'
  | 'unknown'
  /** Requery of an id VTpass does not know: failed once the grace period is over (see below). */
  | 'not_found';

interface CodeRule {
  /** VTpass's wording, for logs. */
  meaning: string;
  pay: Verdict;
  requery: Verdict;
  /** Our sentence for a partner, when the code fails a purchase. */
  reason?: string;
  /** The code says our own VTpass account or catalog needs a person (logged as an error). */
  alert?: true;
}

const REFUSED = 'The provider refused the purchase';

/**
 * Every code VTpass documents, with why it is read the way it is. A code not in this table
 * is unknown on both calls. Request-level refusals are `unknown` on a requery (see the top).
 */
const CODES: Readonly<Record<string, CodeRule>> = {
  // Processed: the transaction status says what happened (see STATUSES).
  '000': { meaning: 'processed', pay: 'processed', requery: 'processed' },
  // Still processing: by definition the outcome is not known yet.
  '099': { meaning: 'transaction is processing', pay: 'unknown', requery: 'unknown' },
  // VTpass's own final failure of the transaction: nothing delivered, nothing kept.
  '016': {
    meaning: 'transaction failed',
    pay: 'failed',
    requery: 'failed',
    reason: 'The provider reports that the transaction failed (code 016).',
  },
  // Explicitly "not processed and not charged".
  '091': {
    meaning: 'transaction not processed',
    pay: 'failed',
    requery: 'failed',
    reason: 'The provider did not process the transaction and did not charge for it (code 091).',
  },
  // A reversal gives the money back: for a pending purchase that is a refund, for a settled
  // one a reversal (see core/purchases/callbacks.ts).
  '040': {
    meaning: 'transaction reversal',
    pay: 'reversed',
    requery: 'reversed',
    reason: 'The provider reversed the transaction (code 040).',
  },
  // "Resolved" closes a dispute without saying which way; a person has to look.
  '044': { meaning: 'transaction resolved', pay: 'unknown', requery: 'unknown' },
  // Refusals at the door of `pay`: the request was rejected before any processing.
  '010': {
    meaning: 'variation code does not exist',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: the plan or package is no longer offered (code 010).`,
    alert: true,
  },
  '011': {
    meaning: 'invalid arguments',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: it did not accept the request's details (code 011).`,
    alert: true,
  },
  '012': {
    meaning: 'product does not exist',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: the product is not available (code 012).`,
    alert: true,
  },
  '013': {
    meaning: 'below minimum amount',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: the amount is below its minimum for this product (code 013).`,
  },
  // A second `pay` with a request_id VTpass has seen: only ever our own retry, so the first
  // attempt may well have been processed. Re-query it.
  '014': { meaning: 'request id already exists', pay: 'unknown', requery: 'unknown' },
  // Requery only: VTpass has no transaction with this request_id.
  '015': { meaning: 'invalid request id', pay: 'unknown', requery: 'not_found' },
  '017': {
    meaning: 'above maximum amount',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: the amount is above its maximum for this product (code 017).`,
  },
  // Our float at VTpass is too low: refused before processing; an operator must top it up.
  '018': {
    meaning: 'low wallet balance',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: it cannot take purchases right now (code 018).`,
    alert: true,
  },
  // Same biller and amount within 30 seconds: this one was refused, the earlier one (another
  // reference of ours) stands on its own.
  '019': {
    meaning: 'likely duplicate transaction',
    pay: 'failed',
    requery: 'unknown',
    reason:
      `${REFUSED} as a likely duplicate of a purchase for the same number and amount ` +
      'less than 30 seconds ago (code 019); try again in a minute.',
  },
  // A verification answer; on `pay` it is unexpected, so it proves nothing.
  '020': { meaning: 'biller confirmed', pay: 'unknown', requery: 'unknown' },
  '021': {
    meaning: 'account locked',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: it cannot take purchases right now (code 021).`,
    alert: true,
  },
  '022': {
    meaning: 'account suspended',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: it cannot take purchases right now (code 022).`,
    alert: true,
  },
  '023': {
    meaning: 'API access not enabled',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: it cannot take purchases right now (code 023).`,
    alert: true,
  },
  '024': {
    meaning: 'account inactive',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: it cannot take purchases right now (code 024).`,
    alert: true,
  },
  '027': {
    meaning: 'IP not whitelisted',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: it cannot take purchases right now (code 027).`,
    alert: true,
  },
  '028': {
    meaning: 'product not whitelisted',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: the product is not available (code 028).`,
    alert: true,
  },
  // The biller did not answer VTpass: VTpass may have sent it on, so the outcome is open.
  '030': { meaning: 'biller unreachable', pay: 'unknown', requery: 'unknown' },
  '034': {
    meaning: 'service suspended',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: the service is suspended (code 034).`,
    alert: true,
  },
  '035': {
    meaning: 'service inactive',
    pay: 'failed',
    requery: 'unknown',
    reason: `${REFUSED}: the service is inactive (code 035).`,
    alert: true,
  },
  // A system error can strike after the charge.
  '083': { meaning: 'system error', pay: 'unknown', requery: 'unknown' },
  // The facts mark these three "unsure". A code whose meaning we are not sure of cannot be
  // definitive; unknown only costs time (a requery settles it), a wrong refund costs money.
  '085': { meaning: 'improper request id (unsure)', pay: 'unknown', requery: 'unknown' },
  '087': { meaning: 'invalid credentials (unsure)', pay: 'unknown', requery: 'unknown', alert: true },
  '089': { meaning: 'request processing (unsure)', pay: 'unknown', requery: 'unknown' },
};

/** What `content.transactions.status` means under code 000. */
const STATUSES: Readonly<Record<string, 'delivered' | 'unknown' | 'reversed'>> = {
  delivered: 'delivered',
  // Both are "charged, not delivered yet".
  initiated: 'unknown',
  pending: 'unknown',
  reversed: 'reversed',
  // Like code 044: closed after a dispute, without saying which way.
  resolved: 'unknown',
};

/**
 * How long after a purchase a requery's "no such request_id" (015) is still not believed.
 * A `pay` that reached VTpass is on record within seconds, so 015 long after the purchase
 * means our request never arrived (a network failure before it was read) and nothing was
 * charged. Thirty minutes is far beyond any delay in taking a request on record, and
 * the transaction simply stays pending until then.
 */
export const NOT_FOUND_GRACE_MS = 30 * 60_000;

/** Lagos is UTC+1 all year; references start with Lagos time (core/domain/reference.ts). */
const LAGOS_OFFSET_MS = 60 * 60_000;

/** A classified answer, plus what the adapter logs about it. */
export interface Classification {
  outcome: ProviderOutcome;
  /** VTpass's code, when the answer had one. */
  code: string | null;
  /** The answer says our VTpass account or catalog needs a person. */
  alert: boolean;
}

/** What classify() needs besides the answer. */
export interface ClassifyContext {
  /** Our reference, sent as request_id; an answer about another id is not ours. */
  reference: string;
  now: Date;
  /** Builds the product's result from a delivered answer (electricity token and units...). */
  result(body: Record<string, unknown>): DeliveryResult;
}

/** Reads a `pay` or `requery` exchange as a provider outcome. Never throws. */
export function classify(call: VtpassCall, answer: HttpAnswer, ctx: ClassifyContext): Classification {
  const unknown = (reason: string, code: string | null = null, alert = false): Classification => ({
    outcome: { kind: 'unknown', reason },
    code,
    alert,
  });
  if (answer.kind === 'no_answer') return unknown(answer.reason);
  // 5xx comes from VTpass's servers or a proxy in front of them, after the request may have
  // been taken; 4xx and 2xx are the application's answers and carry its code.
  if (answer.status >= 500 || answer.status < 200 || (answer.status >= 300 && answer.status < 400)) {
    return unknown(`the provider answered HTTP ${answer.status}`);
  }
  // A 4xx without one of VTpass's codes is most likely our configuration (a wrong base URL,
  // keys VTpass does not know): still unknown for the money, but a person must look.
  const refused = answer.status >= 400;
  const body = asObject(answer.json);
  if (body === undefined)
    return unknown(
      `malformed answer from the provider (HTTP ${answer.status}): ${answer.problem ?? 'not a JSON object'}`,
      null,
      refused,
    );
  const code = body['code'];
  if (typeof code !== 'string' || !/^\d{3}$/.test(code))
    return unknown(`malformed answer from the provider (HTTP ${answer.status}): no code`, null, refused);
  // An answer about another request_id is not an answer about ours.
  const echoed = body['requestId'];
  if (echoed !== undefined && echoed !== null && String(echoed) !== ctx.reference) {
    return unknown(`the provider answered about another request id (code ${code})`, code);
  }
  const rule = Object.hasOwn(CODES, code) ? CODES[code]! : undefined;
  if (rule === undefined)
    return unknown(`the provider answered code ${code}, which is not a final answer we know`, code);
  const alert = rule.alert === true;
  const status = transactionStatus(body);
  switch (rule[call]) {
    case 'unknown':
      return unknown(`the provider answered code ${code} (${rule.meaning})`, code, alert);
    case 'failed':
    case 'reversed': {
      // A failure code next to a status that says otherwise is a contradiction, not a failure.
      if (status !== undefined && !['failed', 'reversed'].includes(status)) {
        return unknown(`the provider answered code ${code} with transaction status "${status}"`, code, alert);
      }
      const reason = rule.reason ?? `The provider did not complete the transaction (code ${code}).`;
      return { outcome: { kind: rule[call] as 'failed' | 'reversed', reason }, code, alert };
    }
    case 'not_found': {
      const madeAt = referenceTime(ctx.reference);
      if (madeAt === undefined || ctx.now.getTime() - madeAt.getTime() < NOT_FOUND_GRACE_MS) {
        return {
          outcome: {
            kind: 'unknown',
            reason: 'the provider has no record of the request yet (code 015)',
            noRecord: true,
          },
          code,
          alert,
        };
      }
      return {
        outcome: {
          kind: 'failed',
          reason: 'The provider never received the purchase, so nothing was delivered or charged (code 015).',
        },
        code,
        alert,
      };
    }
    case 'processed':
      return processed(status, body, code, ctx);
  }
}

function processed(
  status: string | undefined,
  body: Record<string, unknown>,
  code: string,
  ctx: ClassifyContext,
): Classification {
  const meaning = status === undefined ? undefined : Object.hasOwn(STATUSES, status) ? STATUSES[status] : undefined;
  switch (meaning) {
    case 'delivered': {
      const costKobo = vtpassCost(body);
      return {
        // VTpass's answers carry no balance: its float is read with `GET balance` alone.
        outcome: {
          kind: 'delivered',
          result: ctx.result(body),
          ...(costKobo === undefined ? {} : { costKobo, upstreamCharge: { chargedKobo: costKobo } }),
        },
        code,
        alert: false,
      };
    }
    case 'reversed':
      return {
        outcome: { kind: 'reversed', reason: 'The provider reversed the transaction after taking it.' },
        code,
        alert: false,
      };
    case 'unknown':
      return {
        outcome: { kind: 'unknown', reason: `the provider reports the transaction as ${status}` },
        code,
        alert: false,
      };
    case undefined:
      return {
        outcome: {
          kind: 'unknown',
          reason:
            status === undefined
              ? 'malformed answer from the provider: no transaction status'
              : `the provider reports an unknown transaction status "${status.slice(0, 24)}"`,
        },
        code,
        alert: false,
      };
  }
}

/** `content.transactions.status`, lower-cased, if the body has one. */
export function transactionStatus(body: Record<string, unknown>): string | undefined {
  const status = asObject(asObject(body['content'])?.['transactions'])?.['status'];
  return typeof status === 'string' ? status.trim().toLowerCase() : undefined;
}

/** The Lagos time a reference was made at, from its first 12 digits (YYYYMMDDHHmm). */
export function referenceTime(reference: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})/.exec(reference);
  if (!m) return undefined;
  const [, y, mo, d, h, mi] = m.map(Number) as [number, number, number, number, number, number];
  const utc = Date.UTC(y, mo - 1, d, h, mi) - LAGOS_OFFSET_MS;
  return Number.isFinite(utc) ? new Date(utc) : undefined;
}

/** The value as a plain object, or undefined for anything else (arrays included). */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The meaning of a code for logs, or undefined for a code outside the table. */
export function codeMeaning(code: string): string | undefined {
  return Object.hasOwn(CODES, code) ? CODES[code]!.meaning : undefined;
}

/**
 * What VTpass charged our wallet for a delivered purchase, from `content.transactions` of a
 * `pay` or `requery` answer. VTpass's documentation (https://www.vtpass.com/documentation/, summed up in
 * docs/vtpass.md) does not describe these fields, so the reading is (unsure), taken from VTpass's published
 * sample answers: `amount` is the face value, `commission` (also `commission_details.amount`) our commission, and
 * `total_amount` what the wallet was debited, that is `amount` less the commission plus any
 * convenience fee. `total_amount` is read first; without it, `amount` less the commission;
 * with neither, no cost is claimed (the operator sees none rather than a guess).
 */
export function vtpassCost(body: Record<string, unknown>): Kobo | undefined {
  const transaction = asObject(asObject(body['content'])?.['transactions']);
  if (transaction === undefined) return undefined;
  const total = nairaCostToKobo(transaction['total_amount']);
  if (total !== undefined) return total;
  const amount = nairaCostToKobo(transaction['amount']);
  const commission =
    nairaCostToKobo(transaction['commission']) ??
    nairaCostToKobo(asObject(transaction['commission_details'])?.['amount']);
  if (amount === undefined || commission === undefined || commission > amount) return undefined;
  return kobo(amount - commission);
}
