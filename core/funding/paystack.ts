/**
 * Paystack Dedicated Virtual Accounts as a funding provider, built from
 * ../shared/upstreams/paystack.md. Every call carries `Authorization: Bearer <secret key>`
 * and answers the envelope `{status, message, data}`. Amounts are kobo.
 *
 * - open: `POST /customer`, then (when a bank account linked to the BVN is given) the
 *   identification step `POST /customer/{code}/identification`, whose answer is 202 and whose
 *   outcome comes later by webhook, so the account is reported pending; otherwise
 *   `POST /dedicated_account` with the preferred bank.
 * - verify: `GET /transaction/verify/{reference}`; only `status: "success"` in NGN is paid.
 * - recent inflows: `GET /transaction?status=success&channel=dedicated_nuban&virtual_account_number=…&from=…`.
 * - close: `DELETE /dedicated_account/{id}`.
 *
 * Unsure facts (marked so in the facts file), and what this adapter does about them:
 * - The receiving account number of a DVA payment is read from
 *   `authorization.receiver_bank_account_number` (official DVA sample), else from
 *   `metadata.receiver_account_number` (seen only in integrators' captured events: unsure).
 *   Without either the inflow cannot be matched and waits for a person.
 * - The format of `reference` for DVA payments is unsure; it is treated as an opaque string.
 * - The exact 404 message of verify for an unknown reference is unsure; any 404 is "not paid".
 * - Which business category must validate customers first is decided on the merchant's
 *   dashboard (unsure); the identification step runs whenever a bank account is given.
 */
import { invalid } from '../domain/errors.js';
import type { VirtualAccountRecord } from '../domain/funding.js';
import { isKobo, kobo, MAX_AMOUNT_KOBO } from '../domain/money.js';
import type { ConfirmedInflow, FundingProvider, InflowHint, OpenRequest, OpenResult, VerifyResult } from './port.js';
import { verifyHmacSha512Hex } from './signature.js';

export const DEFAULT_PAYSTACK_BASE_URL = 'https://api.paystack.co';
export const DEFAULT_PAYSTACK_PREFERRED_BANK = 'wema-bank';

/** Transactions one sweep reads per account: far above the transfers one account gets in a day. */
const SWEEP_PAGE_SIZE = 100;
/** A Paystack answer larger than this is not one we can trust to parse. */
const MAX_ANSWER_BYTES = 1_000_000;

export interface PaystackOptions {
  secretKey: string;
  baseUrl?: string;
  preferredBank?: string;
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

class PaystackAnswer {
  constructor(
    readonly httpStatus: number,
    readonly body: Json,
  ) {}
  get ok(): boolean {
    return this.httpStatus >= 200 && this.httpStatus < 300 && this.body['status'] === true;
  }
}

/** A transaction as Paystack's verify and list calls give it, when it is a paid NGN transfer. */
function confirmedFrom(tx: Json, expectedDomain: string): ConfirmedInflow | string {
  if (tx['status'] !== 'success') return `status is ${str(tx['status']) || 'missing'}`;
  if (tx['currency'] !== 'NGN') return `currency is ${str(tx['currency']) || 'missing'}`;
  // Test and live share the host; a test transaction must never credit a live wallet.
  if (tx['domain'] !== expectedDomain) return `domain is ${str(tx['domain']) || 'missing'}`;
  const amount = tx['amount'];
  if (!isKobo(amount) || amount < 1 || amount > MAX_AMOUNT_KOBO) return 'amount is not a whole number of kobo in range';
  const authorization = obj(tx['authorization']);
  const metadata = obj(tx['metadata']);
  const accountNumber = str(authorization['receiver_bank_account_number']) || str(metadata['receiver_account_number']);
  return {
    providerReference: str(tx['reference']),
    accountNumber,
    customerRef: str(obj(tx['customer'])['customer_code']),
    amountPaidKobo: kobo(amount),
    payerName: str(authorization['sender_name']),
    raw: JSON.stringify(tx),
  };
}

export function createPaystackFunding(options: PaystackOptions): FundingProvider {
  const base = (options.baseUrl ?? DEFAULT_PAYSTACK_BASE_URL).replace(/\/+$/, '');
  const preferredBank = options.preferredBank ?? DEFAULT_PAYSTACK_PREFERRED_BANK;
  const domain = options.secretKey.startsWith('sk_live_') ? 'live' : 'test';

  async function call(
    method: string,
    path: string,
    body: Json | undefined,
    signal: AbortSignal,
  ): Promise<PaystackAnswer> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${options.secretKey}`,
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
      redirect: 'error',
    });
    const text = await response.text();
    if (text.length > MAX_ANSWER_BYTES) throw new Error('paystack: answer too large');
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    return new PaystackAnswer(response.status, obj(parsed));
  }

  return {
    name: 'paystack',
    async open(request: OpenRequest, signal): Promise<OpenResult> {
      const { kyc } = request;
      if (kyc.kind !== 'bvn') throw invalid('bvn', 'Paystack dedicated accounts need a BVN.');
      const customer = await call(
        'POST',
        '/customer',
        {
          email: kyc.email,
          first_name: kyc.firstName,
          last_name: kyc.lastName,
          phone: kyc.phone,
          metadata: JSON.stringify({ account_id: request.accountId }),
        },
        signal,
      );
      if (!customer.ok)
        throw new Error(`paystack: customer not created (${customer.httpStatus} ${str(customer.body['message'])})`);
      const code = str(obj(customer.body['data'])['customer_code']);
      if (code === '') throw new Error('paystack: customer answer without customer_code');
      if (kyc.bankAccount !== '' && kyc.bankCode !== '') {
        const identification = await call(
          'POST',
          `/customer/${encodeURIComponent(code)}/identification`,
          {
            country: 'NG',
            type: 'bank_account',
            account_number: kyc.bankAccount,
            bvn: kyc.number,
            bank_code: kyc.bankCode,
            first_name: kyc.firstName,
            last_name: kyc.lastName,
          },
          signal,
        );
        if (identification.httpStatus === 202 || identification.ok) {
          return {
            kind: 'pending',
            reason:
              'Paystack is validating the BVN; the account is created when it answers (customeridentification.success).',
          };
        }
        throw invalid(
          'bvn',
          `Paystack refused the identification: ${str(identification.body['message']) || identification.httpStatus}.`,
        );
      }
      const created = await call(
        'POST',
        '/dedicated_account',
        { customer: code, preferred_bank: preferredBank },
        signal,
      );
      if (!created.ok)
        throw new Error(
          `paystack: dedicated account not created (${created.httpStatus} ${str(created.body['message'])})`,
        );
      const data = obj(created.body['data']);
      const bank = obj(data['bank']);
      const accountNumber = str(data['account_number']);
      if (!/^\d{10}$/.test(accountNumber))
        throw new Error('paystack: dedicated account answer without a 10-digit account_number');
      return {
        kind: 'opened',
        accounts: [
          {
            accountNumber,
            bankName: str(bank['name']),
            bankCode: str(bank['slug']),
            accountName: str(data['account_name']),
            // The customer code and the DVA id (for deactivation), together.
            providerCustomerRef: `${code}#${str(data['id'])}`,
          },
        ],
      };
    },
    async verify(reference, signal): Promise<VerifyResult> {
      let answer: PaystackAnswer;
      try {
        answer = await call('GET', `/transaction/verify/${encodeURIComponent(reference)}`, undefined, signal);
      } catch (error) {
        return { kind: 'unknown', reason: error instanceof Error ? error.message : String(error) };
      }
      if (answer.httpStatus === 404) return { kind: 'not_paid', reason: 'Paystack has no such transaction' };
      if (!answer.ok) return { kind: 'unknown', reason: `Paystack answered ${answer.httpStatus}` };
      const confirmed = confirmedFrom(obj(answer.body['data']), domain);
      return typeof confirmed === 'string'
        ? { kind: 'not_paid', reason: confirmed }
        : { kind: 'paid', inflow: confirmed };
    },
    async recentInflows(account: VirtualAccountRecord, since, signal) {
      const query = new URLSearchParams({
        status: 'success',
        channel: 'dedicated_nuban',
        virtual_account_number: account.accountNumber,
        from: since.toISOString(),
        perPage: String(SWEEP_PAGE_SIZE),
        page: '1',
      });
      const answer = await call('GET', `/transaction?${query.toString()}`, undefined, signal);
      if (!answer.ok || !Array.isArray(answer.body['data']))
        throw new Error(`paystack: transaction list failed (${answer.httpStatus})`);
      const inflows: ConfirmedInflow[] = [];
      for (const item of answer.body['data'] as unknown[]) {
        const confirmed = confirmedFrom(obj(item), domain);
        if (typeof confirmed !== 'string') inflows.push(confirmed);
      }
      return inflows;
    },
    readNotification(rawBody, signature) {
      if (!verifyHmacSha512Hex(options.secretKey, rawBody, signature)) return 'bad_signature';
      let parsed: unknown;
      try {
        parsed = JSON.parse(rawBody.toString('utf8'));
      } catch {
        return 'bad_body';
      }
      return paystackHint(parsed) ?? 'bad_body';
    },
    async close(account, signal) {
      const id = account.providerCustomerRef.split('#')[1] ?? '';
      if (!/^\d+$/.test(id)) throw new Error('paystack: the virtual account has no dedicated account id');
      const answer = await call('DELETE', `/dedicated_account/${id}`, undefined, signal);
      if (!answer.ok) throw new Error(`paystack: deactivation failed (${answer.httpStatus})`);
    },
  };
}

/**
 * What a Paystack notification claims, for the re-query to confirm: only `charge.success` on
 * the `dedicated_nuban` channel is a transfer into a virtual account; every other event is
 * `ignored` (answered 200 so Paystack stops retrying). Null: not a body Paystack sends.
 */
export function paystackHint(body: unknown): InflowHint | 'ignored' | null {
  const event = obj(body);
  if (typeof event['event'] !== 'string') return null;
  if (event['event'] !== 'charge.success') return 'ignored';
  const data = obj(event['data']);
  if (data['channel'] !== 'dedicated_nuban') return 'ignored';
  const reference = str(data['reference']);
  const amount = data['amount'];
  if (reference === '' || reference.length > 100 || !isKobo(amount) || amount < 1) return null;
  const authorization = obj(data['authorization']);
  return {
    providerReference: reference,
    accountNumber:
      str(authorization['receiver_bank_account_number']) || str(obj(data['metadata'])['receiver_account_number']),
    amountPaidKobo: kobo(amount),
  };
}
