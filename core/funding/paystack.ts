/**
 * Paystack Dedicated Virtual Accounts as a funding provider, built from
 * Paystack's documentation (https://paystack.com/docs/payments/dedicated-virtual-accounts/). Every call
 * carries `Authorization: Bearer <secret key>` and answers the envelope `{status, message, data}`. Amounts are kobo.
 *
 * - open: `POST /customer`, then (when a bank account linked to the BVN is given) the
 *   identification step `POST /customer/{code}/identification`, whose answer is 202 and whose
 *   outcome comes later by webhook, so the account is reported pending; otherwise
 *   `POST /dedicated_account` with the preferred bank.
 * - verify: `GET /transaction/verify/{reference}`; only `status: "success"` in NGN is paid.
 * - recent inflows: `GET /transaction?status=success&channel=dedicated_nuban&virtual_account_number=…&from=…`.
 * - close: `DELETE /dedicated_account/{id}`.
 * - identification and assignment events (`customeridentification.success|failed`,
 *   `dedicatedaccount.assign.success|failed`): the customer they name is fetched again
 *   (`GET /customer/{code}`) and must carry our account id in the metadata we gave it at
 *   creation; after a validated BVN the dedicated account is created; a failure is returned
 *   with Paystack's reason for the owner to read.
 *
 * Unsure facts (marked so in Paystack's documentation), and what this adapter does about them:
 * - The receiving account number of a DVA payment is read from
 *   `authorization.receiver_bank_account_number` (official DVA sample), else from
 *   `metadata.receiver_account_number` (seen only in integrators' captured events: unsure).
 *   Without either the inflow cannot be matched and waits for a person.
 * - The format of `reference` for DVA payments is unsure; it is treated as an opaque string.
 * - The exact 404 message of verify for an unknown reference is unsure; any 404 is "not paid".
 * - Which business category must validate customers first is decided on the merchant's
 *   dashboard (unsure); the identification step runs whenever a bank account is given.
 * - The shape of `GET /customer/{code}` is not in Paystack's documentation beyond "the customer with a
 *   dedicated_account object" (unsure): `metadata` is read as an object or a JSON string, and
 *   a customer without our account id in it is not ours (nothing opened).
 * - One paragraph of Paystack's guide names the assignment events `assigndedicatedaccount.*`;
 *   both names are read (unsure which one is sent).
 * - Paystack's documentation names `GET /bank` as where identification's `bank_code` comes from, without
 *   its answer. It is read as Paystack's published snippets show it (unsure): `data` an array of
 *   banks with `name`, `code` and `active`, paged by cursor (`use_cursor`, `meta.next`). When it
 *   cannot be read, the page asks for the code itself.
 */
import { invalid } from '../domain/errors.js';
import type { VirtualAccountRecord } from '../domain/funding.js';
import { isKobo, kobo } from '../domain/money.js';
import { type FundingCall, type FundingMethod, type Json, obj, requestJson, str } from './http.js';
import type {
  AccountEvent,
  ConfirmedInflow,
  FundingBank,
  FundingProvider,
  InflowHint,
  OpenedAccount,
  OpeningAdmission,
  OpeningOutcome,
  OpeningOwner,
  OpenRequest,
  OpenResult,
  VerifyResult,
} from './port.js';
import { signedJson } from './signature.js';

export const DEFAULT_PAYSTACK_BASE_URL = 'https://api.paystack.co';
export const DEFAULT_PAYSTACK_PREFERRED_BANK = 'wema-bank';

/** Transactions one sweep reads per account: far above the transfers one account gets in a day. */
const SWEEP_PAGE_SIZE = 100;
/** Pages of 100 banks read from `GET /bank`: Nigeria's list is a few hundred banks. */
const MAX_BANK_PAGES = 10;

export interface PaystackOptions {
  secretKey: string;
  baseUrl?: string;
  preferredBank?: string;
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
  // Above what a wallet takes is still Paystack's own answer: kept, the inflow waits as unmatched (service.ts).
  if (!isKobo(amount) || amount < 1) return 'amount is not a whole number of kobo';
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

type PaystackCall = FundingCall<PaystackAnswer>;

/** Paystack's calls, each with the secret key as its bearer token. */
function createPaystackCall(options: PaystackOptions): PaystackCall {
  const base = (options.baseUrl ?? DEFAULT_PAYSTACK_BASE_URL).replace(/\/+$/, '');
  async function call(
    method: FundingMethod,
    path: string,
    body: Json | undefined,
    signal: AbortSignal,
  ): Promise<PaystackAnswer> {
    const reply = await requestJson(
      `${base}${path}`,
      { method, authorization: `Bearer ${options.secretKey}`, ...(body === undefined ? {} : { body }), signal },
      'paystack',
    );
    return new PaystackAnswer(reply.status, reply.body);
  }

  return call;
}

/** A dedicated account created for the customer at the preferred bank. */
async function createDedicated(
  call: PaystackCall,
  preferredBank: string,
  code: string,
  signal: AbortSignal,
): Promise<OpenedAccount> {
  const created = await call('POST', '/dedicated_account', { customer: code, preferred_bank: preferredBank }, signal);
  if (!created.ok)
    throw new Error(`paystack: dedicated account not created (${created.httpStatus} ${str(created.body['message'])})`);
  return dedicatedFrom(obj(created.body['data']), code);
}

/** Whose wallet a Paystack customer is, from the metadata we gave it; null when not ours. */
async function customerOwner(
  call: PaystackCall,
  code: string,
  signal: AbortSignal,
): Promise<OpeningOwner | 'unknown' | null> {
  const answer = await call('GET', `/customer/${encodeURIComponent(code)}`, undefined, signal);
  if (answer.httpStatus === 404) return null;
  if (!answer.ok) return 'unknown';
  const raw = obj(answer.body['data'])['metadata'];
  let metadata: Json = obj(raw);
  if (typeof raw === 'string') {
    try {
      metadata = obj(JSON.parse(raw));
    } catch {
      metadata = {};
    }
  }
  const accountId = str(metadata['account_id']);
  if (accountId === '') return null;
  return {
    accountId,
    mode: metadata['mode'] === 'test' ? 'test' : 'live',
    kycKind: metadata['kyc_kind'] === 'nin' ? 'nin' : 'bvn',
    kycLast4: /^\d{4}$/.test(str(metadata['kyc_last4'])) ? str(metadata['kyc_last4']) : '',
  };
}

/** The banks Paystack lists for Nigeria, page by page up to MAX_BANK_PAGES. */
async function listPaystackBanks(call: PaystackCall, signal: AbortSignal): Promise<FundingBank[]> {
  const banks: FundingBank[] = [];
  let cursor = '';
  for (let page = 0; page < MAX_BANK_PAGES; page += 1) {
    const query = new URLSearchParams({ country: 'nigeria', perPage: '100', use_cursor: 'true' });
    if (cursor !== '') query.set('next', cursor);
    const answer = await call('GET', `/bank?${query.toString()}`, undefined, signal);
    if (!answer.ok || !Array.isArray(answer.body['data']))
      throw new Error(`paystack: bank list failed (${answer.httpStatus})`);
    for (const item of answer.body['data'] as unknown[]) {
      const bank = obj(item);
      const code = str(bank['code']);
      // Only codes the identification step can take (validateKyc); an inactive bank is left out.
      if (bank['active'] === false || !/^\d{3,6}$/.test(code)) continue;
      banks.push({ code, name: str(bank['name']).slice(0, 100) || code });
    }
    cursor = str(obj(answer.body['meta'])['next']);
    if (cursor === '') break;
  }
  return banks;
}

/** A later answer to an opening: the customer's owner read back, then the account read back or created. */
async function completePaystackOpening(
  call: PaystackCall,
  preferredBank: string,
  event: AccountEvent,
  admit: OpeningAdmission,
  signal: AbortSignal,
): Promise<OpeningOutcome> {
  let owner: Awaited<ReturnType<typeof customerOwner>>;
  try {
    owner = await customerOwner(call, event.customerRef, signal);
  } catch (error) {
    return { kind: 'unknown', reason: error instanceof Error ? error.message : String(error) };
  }
  if (owner === 'unknown') return { kind: 'unknown', reason: 'Paystack did not answer for the customer' };
  if (owner === null) return { kind: 'not_ours', reason: 'the customer carries no account of ours' };
  if (!event.ok) {
    const reason =
      event.reason ||
      (event.step === 'identification'
        ? 'Paystack could not validate the BVN with the bank account given.'
        : 'Paystack could not assign a dedicated account.');
    return { kind: 'failed', accountId: owner.accountId, mode: owner.mode, reason };
  }
  // An assignment event names its account, which is only read back; anything else creates one.
  const readsBack = event.step === 'assignment' && /^\d+$/.test(event.accountRef);
  if (!(await admit(owner, !readsBack))) return { kind: 'already_open', accountId: owner.accountId };
  let account: OpenedAccount;
  if (readsBack) {
    // The event names the account: read it back from Paystack rather than believe the event.
    const fetched = await call('GET', `/dedicated_account/${event.accountRef}`, undefined, signal);
    if (!fetched.ok) return { kind: 'unknown', reason: `Paystack answered ${fetched.httpStatus} for the account` };
    const data = obj(fetched.body['data']);
    if (str(obj(data['customer'])['customer_code']) !== event.customerRef || data['active'] === false)
      return { kind: 'not_ours', reason: 'the dedicated account belongs to another customer or is inactive' };
    account = dedicatedFrom(data, event.customerRef);
  } else {
    account = await createDedicated(call, preferredBank, event.customerRef, signal);
  }
  return { kind: 'opened', ...owner, accounts: [account] };
}

/** A customer created with its owner in the metadata, then its identification asked or its account created. */
async function openPaystack(
  call: PaystackCall,
  preferredBank: string,
  request: OpenRequest,
  signal: AbortSignal,
): Promise<OpenResult> {
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
      // Read back when Paystack's identification answers later: whose wallet, which identity
      // (kind and last four digits only; Paystack has the number itself).
      metadata: JSON.stringify({
        account_id: request.accountId,
        mode: request.mode,
        kyc_kind: kyc.kind,
        kyc_last4: kyc.number.slice(-4),
      }),
    },
    signal,
  );
  if (!customer.ok)
    throw new Error(`paystack: customer not created (${customer.httpStatus} ${str(customer.body['message'])})`);
  const code = str(obj(customer.body['data'])['customer_code']);
  if (code === '') throw new Error('paystack: customer answer without customer_code');
  if (kyc.bankAccount !== '' && kyc.bankCode !== '') {
    await request.beforeLaterAnswer?.(code);
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
        customerRef: code,
        reason:
          'Paystack is validating the BVN; the account is created when it answers ' +
          '(customeridentification.success).',
      };
    }
    throw invalid(
      'bvn',
      `Paystack refused the identification: ${str(identification.body['message']) || identification.httpStatus}.`,
    );
  }
  return { kind: 'opened', accounts: [await createDedicated(call, preferredBank, code, signal)] };
}

export function createPaystackFunding(options: PaystackOptions): FundingProvider {
  const preferredBank = options.preferredBank ?? DEFAULT_PAYSTACK_PREFERRED_BANK;
  const domain = options.secretKey.startsWith('sk_live_') ? 'live' : 'test';
  const call = createPaystackCall(options);

  return {
    name: 'paystack',
    asksBankAccount: true,
    listBanks: (signal) => listPaystackBanks(call, signal),
    completeOpening: (event, admit, signal) => completePaystackOpening(call, preferredBank, event, admit, signal),
    open: (request, signal) => openPaystack(call, preferredBank, request, signal),
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
      const signed = signedJson(options.secretKey, rawBody, signature);
      if (typeof signed === 'string') return signed;
      return paystackAccountEvent(signed.json) ?? paystackHint(signed.json) ?? 'bad_body';
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

/** A dedicated account as Paystack's create and fetch calls give it. */
function dedicatedFrom(data: Json, code: string): OpenedAccount {
  const bank = obj(data['bank']);
  const accountNumber = str(data['account_number']);
  if (!/^\d{10}$/.test(accountNumber))
    throw new Error('paystack: dedicated account answer without a 10-digit account_number');
  return {
    accountNumber,
    bankName: str(bank['name']),
    bankCode: str(bank['slug']),
    accountName: str(data['account_name']),
    // The customer code and the DVA id (for deactivation), together.
    providerCustomerRef: `${code}#${str(data['id'])}`,
  };
}

const ACCOUNT_EVENTS: Readonly<Record<string, { step: AccountEvent['step']; ok: boolean }>> = {
  'customeridentification.success': { step: 'identification', ok: true },
  'customeridentification.failed': { step: 'identification', ok: false },
  'dedicatedaccount.assign.success': { step: 'assignment', ok: true },
  'dedicatedaccount.assign.failed': { step: 'assignment', ok: false },
  'assigndedicatedaccount.success': { step: 'assignment', ok: true },
  'assigndedicatedaccount.failed': { step: 'assignment', ok: false },
};

/**
 * Paystack's identification and assignment events, as Paystack's documentation gives them: the
 * customer code is `data.customer_code` (identification) or `data.customer.customer_code`
 * (assignment). Undefined: not one of these events.
 */
function paystackAccountEvent(body: unknown): AccountEvent | 'bad_body' | undefined {
  const event = obj(body);
  const known = ACCOUNT_EVENTS[str(event['event'])];
  if (known === undefined) return undefined;
  const data = obj(event['data']);
  const customerRef = str(data['customer_code']) || str(obj(data['customer'])['customer_code']);
  if (!/^CUS_[A-Za-z0-9]{1,64}$/.test(customerRef)) return 'bad_body';
  return {
    kind: 'account_event',
    ...known,
    customerRef,
    accountRef: str(obj(data['dedicated_account'])['id']),
    reason: str(data['reason']).slice(0, 300),
  };
}
