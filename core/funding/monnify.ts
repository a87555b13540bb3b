/**
 * Monnify Customer Reserved Accounts as a funding provider, built from
 * Monnify's documentation (https://developers.monnify.com/docs/collections/customer-reserved-account/). Every
 * answer is the envelope `{requestSuccessful, responseMessage, responseCode, responseBody}` with `responseCode` "0"
 * on success; amounts are Naira as decimal numbers or strings.
 *
 * - Login: `POST /api/v1/auth/login` with Basic base64(apiKey:secretKey) gives a bearer token
 *   that lives `expiresIn` seconds. It is cached and refreshed before it expires, one login at
 *   a time however many calls wait for it; a 401 drops it and the call is tried once more.
 * - open: `POST /api/v2/bank-transfer/reserved-accounts` with every available bank
 *   (`getAllAvailableBanks: true`), under our accountReference `PREPAID-<account>-<mode>`.
 *   When Monnify says the reference is taken (a first open whose answer we lost), the
 *   reservation is fetched instead: `GET /api/v2/bank-transfer/reserved-accounts/{ref}`.
 * - verify: `GET /api/v2/transactions/{urlencoded transactionReference}`; only `PAID` in NGN
 *   on a RESERVED_ACCOUNT product is paid.
 * - recent inflows: `GET /api/v1/bank-transfer/reserved-accounts/transactions?accountReference=…`.
 * - close: `DELETE /api/v1/bank-transfer/reserved-accounts/reference/{ref}`.
 * - notifications: `monnify-signature` is the HMAC-SHA512 of the raw body under the secret key;
 *   only `SUCCESSFUL_TRANSACTION` on a `RESERVED_ACCOUNT` product is a transfer to a wallet.
 *
 * Unsure facts (marked so in Monnify's documentation), and what this adapter does about them:
 * - The token's lifetime is read from `expiresIn`, never assumed.
 * - The fetch and deallocate paths come from Monnify's SDKs; so do the list's paging names.
 * - The status answer's sample is a WEB_SDK payment cut off after `accountPayments`: it says
 *   which customer (product.reference, our accountReference) was paid but not which of their
 *   NUBANs. The NUBAN comes from the signed notification and must belong to that
 *   accountReference, else the inflow is unmatched.
 * - What the status call answers for a reference Monnify never had is not published: a 404 is
 *   read as "not paid", any other failure as unknown (never credited, tried again later).
 * - The sandbox may send notifications without a signature: they are refused like any other
 *   unsigned body. There is no switch to skip the check.
 * - OVERPAID and PARTIALLY_PAID belong to invoices; only PAID credits a reserved account.
 */
import { invalid } from '../domain/errors.js';
import type { VirtualAccountRecord } from '../domain/funding.js';
import type { Mode } from '../domain/mode.js';
import { type Kobo, kobo, MAX_AMOUNT_KOBO, parseNaira } from '../domain/money.js';
import { type FundingCall, type FundingMethod, type Json, obj, requestJson, str } from './http.js';
import type { ConfirmedInflow, FundingProvider, InflowHint, OpenRequest, OpenResult, VerifyResult } from './port.js';
import { signedJson } from './signature.js';

export const DEFAULT_MONNIFY_BASE_URL = 'https://api.monnify.com';

/** A token is renewed this long before Monnify says it expires, so no call goes out with one about to lapse. */
const TOKEN_REFRESH_MARGIN_MS = 60_000;
/** A lifetime below this is not believed (a token renewed on every call would hammer the login). */
const MIN_TOKEN_LIFETIME_MS = 30_000;
/** Transactions one sweep reads per reserved account: far above the transfers one wallet gets in a day. */
const SWEEP_PAGE_SIZE = 100;

export interface MonnifyOptions {
  apiKey: string;
  secretKey: string;
  contractCode: string;
  baseUrl?: string;
  /** For the token's expiry; the wall clock by default. */
  clock?: () => Date;
}

/**
 * Monnify's Naira amounts (numbers or decimal strings) in kobo; null when not a positive whole kobo amount. One
 * above what a wallet takes is still Monnify's answer: kept, so the inflow is recorded and waits as unmatched
 * (service.ts) instead of the notification being refused as a bad body and the transfer recorded nowhere.
 */
function nairaToKobo(value: unknown): Kobo | null {
  const parsed = parseNaira(value);
  if (parsed.ok) return parsed.kobo >= 1 ? parsed.kobo : null;
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  const match = /^(\d{1,15})(?:\.(\d{1,2}))?$/.exec(text);
  if (match === null) return null;
  const amount = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(amount) && amount > MAX_AMOUNT_KOBO ? kobo(amount) : null;
}

/** Our key for one wallet's reservation at Monnify: stable, so an open whose answer was lost finds it again. */
function monnifyAccountReference(accountId: string, mode: Mode): string {
  return `PREPAID-${accountId}-${mode}`;
}

class MonnifyAnswer {
  constructor(
    readonly httpStatus: number,
    readonly body: Json,
  ) {}
  get ok(): boolean {
    return (
      this.httpStatus >= 200 &&
      this.httpStatus < 300 &&
      this.body['requestSuccessful'] === true &&
      str(this.body['responseCode']) === '0'
    );
  }
  get payload(): Json {
    return obj(this.body['responseBody']);
  }
  describe(): string {
    return `${this.httpStatus} ${str(this.body['responseMessage']) || str(this.body['error'])}`.trim();
  }
}

/** A transaction as the status call gives it, when it is a paid NGN transfer into a reserved account. */
function confirmedFromStatus(tx: Json): ConfirmedInflow | string {
  if (tx['paymentStatus'] !== 'PAID') return `paymentStatus is ${str(tx['paymentStatus']) || 'missing'}`;
  if (tx['currency'] !== undefined && tx['currency'] !== 'NGN') return `currency is ${str(tx['currency'])}`;
  const product = obj(tx['product']);
  if (product['type'] !== 'RESERVED_ACCOUNT') return `product is ${str(product['type']) || 'missing'}`;
  const amount = nairaToKobo(tx['amountPaid']);
  if (amount === null) return 'amountPaid is not a Naira amount';
  const destination = obj(tx['destinationAccountInformation']);
  const payer = obj(tx['accountDetails']);
  return {
    providerReference: str(tx['transactionReference']),
    accountNumber: str(destination['accountNumber']),
    customerRef: str(product['reference']),
    amountPaidKobo: amount,
    payerName: str(payer['accountName']) || str(obj(tx['customer'])['name']),
    raw: JSON.stringify(tx),
  };
}

/** One item of the reserved-account transactions list, when paid; the list names no NUBAN. */
function confirmedFromList(item: Json, accountReference: string): ConfirmedInflow | null {
  if (item['paymentStatus'] !== 'PAID') return null;
  if (item['currencyCode'] !== undefined && item['currencyCode'] !== 'NGN') return null;
  const amount = nairaToKobo(item['amount']);
  const reference = str(item['transactionReference']);
  if (amount === null || reference === '') return null;
  return {
    providerReference: reference,
    accountNumber: '',
    customerRef: accountReference,
    amountPaidKobo: amount,
    payerName: str(obj(item['customerDTO'])['name']),
    raw: JSON.stringify(item),
  };
}

/** The accounts of an ACTIVE reservation, as Monnify answered its creation or read. */
function openedFromReservation(reservation: Json): OpenResult {
  if (reservation['status'] !== undefined && reservation['status'] !== 'ACTIVE')
    throw new Error(`monnify: the reservation is ${str(reservation['status'])}`);
  const reference = str(reservation['accountReference']);
  const accounts = (Array.isArray(reservation['accounts']) ? reservation['accounts'] : [])
    .map(obj)
    .filter((a) => /^\d{10}$/.test(str(a['accountNumber'])))
    .map((a) => ({
      accountNumber: str(a['accountNumber']),
      bankName: str(a['bankName']),
      bankCode: str(a['bankCode']),
      accountName: str(a['accountName']) || str(reservation['accountName']),
      providerCustomerRef: reference,
    }));
  if (reference === '' || accounts.length === 0)
    throw new Error('monnify: reservation answer without an accountReference and 10-digit account numbers');
  return { kind: 'opened', accounts };
}

type MonnifyCall = FundingCall<MonnifyAnswer>;

/**
 * Monnify's authenticated calls: a bearer token from the login, cached until shortly before it
 * expires, and a call refused as unauthorised retried once after a fresh login.
 */
function createMonnifyCall(options: MonnifyOptions): MonnifyCall {
  const base = (options.baseUrl ?? DEFAULT_MONNIFY_BASE_URL).replace(/\/+$/, '');
  const clock = options.clock ?? (() => new Date());
  const basic = Buffer.from(`${options.apiKey}:${options.secretKey}`).toString('base64');
  let token: { value: string; renewAtMs: number } | null = null;
  let login: Promise<string> | null = null;

  async function send(
    method: FundingMethod,
    path: string,
    authorization: string,
    body: Json | undefined,
    signal: AbortSignal,
  ): Promise<MonnifyAnswer> {
    const reply = await requestJson(
      `${base}${path}`,
      { method, authorization, ...(body === undefined ? {} : { body }), signal },
      'monnify',
    );
    return new MonnifyAnswer(reply.status, reply.body);
  }

  /** The cached token, or one login shared by every caller waiting while it runs. */
  function accessToken(signal: AbortSignal): Promise<string> {
    if (token !== null && clock().getTime() < token.renewAtMs) return Promise.resolve(token.value);
    if (login === null) {
      login = (async () => {
        const answer = await send('POST', '/api/v1/auth/login', `Basic ${basic}`, undefined, signal);
        const value = str(answer.payload['accessToken']);
        const expiresIn = answer.payload['expiresIn'];
        if (!answer.ok || value === '' || typeof expiresIn !== 'number' || !Number.isFinite(expiresIn))
          throw new Error(`monnify: login failed (${answer.describe()})`);
        const lifetimeMs = Math.max(expiresIn * 1000, MIN_TOKEN_LIFETIME_MS);
        token = {
          value,
          renewAtMs: clock().getTime() + lifetimeMs - Math.min(TOKEN_REFRESH_MARGIN_MS, lifetimeMs / 2),
        };
        return value;
      })().finally(() => {
        login = null;
      });
    }
    return login;
  }

  async function call(method: FundingMethod, path: string, body: Json | undefined, signal: AbortSignal) {
    const first = await send(method, path, `Bearer ${await accessToken(signal)}`, body, signal);
    if (first.httpStatus !== 401) return first;
    // Expired or revoked before we thought: log in again, once.
    token = null;
    return send(method, path, `Bearer ${await accessToken(signal)}`, body, signal);
  }

  return call;
}

/** Reserves the wallet's accounts, or reads the reservation back when one exists under its reference. */
async function openReserved(
  call: MonnifyCall,
  contractCode: string,
  request: OpenRequest,
  signal: AbortSignal,
): Promise<OpenResult> {
  const { kyc } = request;
  const accountReference = monnifyAccountReference(request.accountId, request.mode);
  const name = `${kyc.firstName} ${kyc.lastName}`;
  const created = await call(
    'POST',
    '/api/v2/bank-transfer/reserved-accounts',
    {
      accountReference,
      accountName: name,
      currencyCode: 'NGN',
      contractCode,
      customerEmail: kyc.email,
      customerName: name,
      [kyc.kind]: kyc.number,
      getAllAvailableBanks: true,
    },
    signal,
  );
  if (created.ok) return openedFromReservation(created.payload);
  const message = str(created.body['responseMessage']);
  if (/same reference/i.test(message)) {
    const existing = await call(
      'GET',
      `/api/v2/bank-transfer/reserved-accounts/${encodeURIComponent(accountReference)}`,
      undefined,
      signal,
    );
    if (existing.ok) return openedFromReservation(existing.payload);
    throw new Error(`monnify: reservation exists but could not be read (${existing.describe()})`);
  }
  if (created.httpStatus === 400 && /bvn|nin/i.test(message))
    throw invalid(kyc.kind, `Monnify refused the ${kyc.kind.toUpperCase()}: ${message}`);
  throw new Error(`monnify: reserved account not created (${created.describe()})`);
}

/** The paid transfers into a reserved account since `since`, from the list's first page. */
async function recentMonnifyInflows(
  call: MonnifyCall,
  account: VirtualAccountRecord,
  since: Date,
  signal: AbortSignal,
): Promise<ConfirmedInflow[]> {
  const query = new URLSearchParams({
    accountReference: account.providerCustomerRef,
    page: '0',
    size: String(SWEEP_PAGE_SIZE),
  });
  const answer = await call(
    'GET',
    `/api/v1/bank-transfer/reserved-accounts/transactions?${query.toString()}`,
    undefined,
    signal,
  );
  const content = answer.payload['content'];
  if (!answer.ok || !Array.isArray(content))
    throw new Error(`monnify: reserved-account transactions failed (${answer.describe()})`);
  const inflows: ConfirmedInflow[] = [];
  for (const item of content) {
    const record = obj(item);
    // The list is newest first; older than the window is the sweeper's business no more.
    const completed = Date.parse(str(record['completedOn']) || str(record['createdOn']));
    if (Number.isFinite(completed) && completed < since.getTime()) continue;
    const confirmed = confirmedFromList(record, account.providerCustomerRef);
    if (confirmed !== null) inflows.push(confirmed);
  }
  return inflows;
}

export function createMonnifyFunding(options: MonnifyOptions): FundingProvider {
  const call = createMonnifyCall(options);
  return {
    name: 'monnify',
    open: (request, signal) => openReserved(call, options.contractCode, request, signal),
    async verify(reference, signal): Promise<VerifyResult> {
      let answer: MonnifyAnswer;
      try {
        answer = await call('GET', `/api/v2/transactions/${encodeURIComponent(reference)}`, undefined, signal);
      } catch (error) {
        return { kind: 'unknown', reason: error instanceof Error ? error.message : String(error) };
      }
      if (answer.httpStatus === 404) return { kind: 'not_paid', reason: 'Monnify has no such transaction' };
      if (!answer.ok) return { kind: 'unknown', reason: `Monnify answered ${answer.describe()}` };
      const confirmed = confirmedFromStatus(answer.payload);
      if (typeof confirmed === 'string') return { kind: 'not_paid', reason: confirmed };
      return { kind: 'paid', inflow: confirmed };
    },
    recentInflows: (account, since, signal) => recentMonnifyInflows(call, account, since, signal),
    readNotification(rawBody, signature) {
      const signed = signedJson(options.secretKey, rawBody, signature);
      if (typeof signed === 'string') return signed;
      return monnifyHint(signed.json) ?? 'bad_body';
    },
    async close(account, signal) {
      const answer = await call(
        'DELETE',
        `/api/v1/bank-transfer/reserved-accounts/reference/${encodeURIComponent(account.providerCustomerRef)}`,
        undefined,
        signal,
      );
      if (!answer.ok) throw new Error(`monnify: deallocation failed (${answer.describe()})`);
    },
  };
}

/**
 * What a Monnify notification claims, for the re-query to confirm: only `SUCCESSFUL_TRANSACTION`
 * on a `RESERVED_ACCOUNT` product is a transfer into a wallet's account; every other event
 * (settlements, disbursements, refunds, rejected payments) is `ignored`, answered 200 so
 * Monnify stops retrying. Null: not a body Monnify sends.
 */
export function monnifyHint(body: unknown): InflowHint | 'ignored' | null {
  const event = obj(body);
  if (typeof event['eventType'] !== 'string') return null;
  if (event['eventType'] !== 'SUCCESSFUL_TRANSACTION') return 'ignored';
  const data = obj(event['eventData']);
  if (obj(data['product'])['type'] !== 'RESERVED_ACCOUNT') return 'ignored';
  const reference = str(data['transactionReference']);
  const amount = nairaToKobo(data['amountPaid']);
  if (reference === '' || reference.length > 100 || amount === null) return null;
  return {
    providerReference: reference,
    accountNumber: str(obj(data['destinationAccountInformation'])['accountNumber']),
    amountPaidKobo: amount,
  };
}
