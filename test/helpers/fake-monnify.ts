/**
 * A fake Monnify for tests, built from Monnify's documentation
 * (https://developers.monnify.com/docs/collections/customer-reserved-account/): a real HTTP server on
 * 127.0.0.1 port 0. `POST /api/v1/auth/login` takes Basic base64(apiKey:secretKey) and gives a token living
 * `tokenLifetimeSeconds`; every other call needs `Bearer <token>` (else 401 `{"error":"invalid_token",…}`).
 * Answers are the `{requestSuccessful, responseMessage, responseCode, responseBody}` envelope with amounts in
 * Naira (numbers in notifications and lists, decimal strings in the status call, as the samples of Monnify's
 * documentation have them).
 *
 * It keeps reservations (one NUBAN per available bank; a second reservation under the same
 * accountReference is refused) and transactions: `transfer()` records a paid transfer into a
 * NUBAN and returns the `SUCCESSFUL_TRANSACTION` body (exact bytes) with its
 * `monnify-signature`; `setStatus()` makes the status call contradict it.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signHmacSha512Hex } from '../../core/funding/signature.js';

/** The banks the fake reserves in, as `getAllAvailableBanks: true` gives them (codes from Monnify's documentation). */
const BANKS = [
  { bankCode: '035', bankName: 'Wema bank' },
  { bankCode: '50515', bankName: 'Moniepoint Microfinance Bank' },
];

interface Reservation {
  accountReference: string;
  accountName: string;
  customerEmail: string;
  customerName: string;
  accounts: { bankCode: string; bankName: string; accountNumber: string; accountName: string }[];
  status: 'ACTIVE' | 'INACTIVE';
  kyc: string[];
}

interface FakeTx {
  transactionReference: string;
  accountReference: string;
  accountNumber: string;
  bankCode: string;
  bankName: string;
  amountNaira: string;
  paymentStatus: string;
  payerName: string;
  paidOn: Date;
}

export interface FakeMonnify {
  url: string;
  apiKey: string;
  secretKey: string;
  contractCode: string;
  /** Every call as "METHOD /path" (query left off). */
  calls: string[];
  /** Successful logins so far. */
  logins(): number;
  /** Lifetime of tokens issued from now on. */
  tokenLifetimeSeconds: number;
  /** Makes every token issued so far invalid (as if it expired at Monnify's end early). */
  expireTokens(): void;
  /** What the fake holds for a reservation: the identity numbers it was given, for the test to check. */
  reservation(accountReference: string): Reservation | undefined;
  /** Records a paid transfer into `accountNumber`; returns the notification body (exact bytes) and its signature. */
  transfer(
    accountNumber: string,
    amountKobo: number,
    reference?: string,
    payerName?: string,
  ): { body: string; signature: string; reference: string };
  /** What the status call says about `reference` from now on. */
  setStatus(reference: string, change: { amountKobo?: number; paymentStatus?: string }): void;
  /**
   * Reservations carrying this BVN or NIN are refused from now on with a 400 and `message`, as
   * Monnify's validation refuses an identity it cannot match; null accepts it again.
   */
  refuseIdentity(number: string, message: string | null): void;
  stop(): Promise<void>;
}

function envelope(res: ServerResponse, status: number, body: unknown, message = 'success'): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ requestSuccessful: true, responseMessage: message, responseCode: '0', responseBody: body }));
}

function failure(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ requestSuccessful: false, responseMessage: message, responseCode: '99' }));
}

function naira(kobo: number): string {
  return `${Math.floor(kobo / 100)}.${String(kobo % 100).padStart(2, '0')}`;
}

/** Monnify's `paidOn` form in notifications: `2021-11-17 11:28:42.615`. */
function paidOnText(at: Date): string {
  return at.toISOString().replace('T', ' ').replace('Z', '');
}

export async function startFakeMonnify(
  credentials: { apiKey?: string; secretKey?: string; contractCode?: string } = {},
): Promise<FakeMonnify> {
  const apiKey = credentials.apiKey ?? 'MK_TEST_FAKEAPIKEY';
  const secretKey = credentials.secretKey ?? '91MUDL9N6U3BQRXBQ2PJ9M0PW4J22M1Y';
  const contractCode = credentials.contractCode ?? '8389328412';
  const reservations = new Map<string, Reservation>();
  const byNuban = new Map<string, Reservation>();
  const txs = new Map<string, FakeTx>();
  const refusedIdentities = new Map<string, string>();
  const tokens = new Map<string, number>();
  const calls: string[] = [];
  let loginCount = 0;
  let seq = 170;
  let nuban = 6_000_140_000;

  const fake = {
    tokenLifetimeSeconds: 3599,
  };

  function statusBody(tx: FakeTx): Record<string, unknown> {
    const reservation = reservations.get(tx.accountReference);
    return {
      transactionReference: tx.transactionReference,
      paymentReference: tx.transactionReference,
      amountPaid: tx.amountNaira,
      totalPayable: tx.amountNaira,
      settlementAmount: tx.amountNaira,
      paidOn: paidOnText(tx.paidOn),
      paymentStatus: tx.paymentStatus,
      paymentDescription: tx.payerName,
      currency: 'NGN',
      paymentMethod: 'ACCOUNT_TRANSFER',
      product: { type: 'RESERVED_ACCOUNT', reference: tx.accountReference },
      cardDetails: null,
      accountDetails: {
        accountName: tx.payerName,
        accountNumber: '******7503',
        bankCode: '000001',
        amountPaid: tx.amountNaira,
      },
      accountPayments: [
        { accountName: tx.payerName, accountNumber: '******7503', bankCode: '000001', amountPaid: tx.amountNaira },
      ],
      customer: { email: reservation?.customerEmail ?? '', name: reservation?.customerName ?? '' },
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    calls.push(`${req.method} ${path}`);
    if (req.method === 'POST' && path === '/api/v1/auth/login') {
      const expected = `Basic ${Buffer.from(`${apiKey}:${secretKey}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return failure(res, 401, 'Invalid client credentials');
      loginCount++;
      const accessToken = `fake.${loginCount}.${Math.random().toString(36).slice(2)}`;
      tokens.set(accessToken, Date.now() + fake.tokenLifetimeSeconds * 1000);
      return envelope(res, 200, { accessToken, expiresIn: fake.tokenLifetimeSeconds });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const validUntil = tokens.get(bearer);
    if (validUntil === undefined || validUntil <= Date.now()) {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_token', error_description: 'Access token expired: fake' }));
      return;
    }
    const body =
      chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
    if (req.method === 'POST' && path === '/api/v2/bank-transfer/reserved-accounts') {
      for (const field of ['accountReference', 'accountName', 'currencyCode', 'contractCode', 'customerName']) {
        if (typeof body[field] !== 'string' || body[field] === '')
          return failure(res, 400, `Field ${field} cannot be null`);
      }
      if (body['contractCode'] !== contractCode) return failure(res, 400, 'Invalid contract code');
      const kyc = (['bvn', 'nin'] as const).filter((k) => body[k] !== undefined);
      if (kyc.length === 0) return failure(res, 400, 'BVN or NIN is required');
      if (kyc.some((k) => !/^\d{11}$/.test(String(body[k])))) return failure(res, 400, 'Invalid BVN or NIN');
      const refusal = kyc.map((k) => refusedIdentities.get(String(body[k]))).find((m) => m !== undefined);
      if (refusal !== undefined) return failure(res, 400, refusal);
      if (typeof body['getAllAvailableBanks'] !== 'boolean')
        return failure(res, 400, 'Field getAllAvailableBanks cannot be null');
      const reference = body['accountReference'] as string;
      if (reservations.has(reference))
        return failure(res, 422, 'You can not reserve two accounts with the same reference');
      const banks = body['getAllAvailableBanks']
        ? BANKS
        : BANKS.filter((b) => ((body['preferredBanks'] as string[] | undefined) ?? []).includes(b.bankCode));
      const reservation: Reservation = {
        accountReference: reference,
        accountName: body['accountName'] as string,
        customerEmail: String(body['customerEmail'] ?? ''),
        customerName: body['customerName'] as string,
        accounts: banks.map((b) => ({
          ...b,
          accountNumber: String(nuban++),
          accountName: body['accountName'] as string,
        })),
        status: 'ACTIVE',
        kyc: kyc.map((k) => `${k}:${String(body[k])}`),
      };
      reservations.set(reference, reservation);
      for (const account of reservation.accounts) byNuban.set(account.accountNumber, reservation);
      return envelope(res, 200, reservationBody(reservation));
    }
    const reserved = /^\/api\/v2\/bank-transfer\/reserved-accounts\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && reserved) {
      const found = reservations.get(decodeURIComponent(reserved[1]!));
      if (found === undefined) return failure(res, 404, 'Cannot find reserved account');
      return envelope(res, 200, reservationBody(found));
    }
    const kycInfo = /^\/api\/v1\/bank-transfer\/reserved-accounts\/([^/]+)\/kyc-info$/.exec(path);
    if (req.method === 'PUT' && kycInfo) {
      const found = reservations.get(decodeURIComponent(kycInfo[1]!));
      if (found === undefined) return failure(res, 404, 'Cannot find reserved account');
      for (const k of ['bvn', 'nin'] as const) if (typeof body[k] === 'string') found.kyc.push(`${k}:${body[k]}`);
      return envelope(res, 200, reservationBody(found));
    }
    if (req.method === 'GET' && path === '/api/v1/bank-transfer/reserved-accounts/transactions') {
      const reference = url.searchParams.get('accountReference') ?? '';
      if (!reservations.has(reference)) return failure(res, 404, 'Cannot find reserved account');
      const page = Number(url.searchParams.get('page') ?? '0');
      const size = Number(url.searchParams.get('size') ?? '10');
      const all = [...txs.values()].filter((tx) => tx.accountReference === reference).reverse();
      const content = all.slice(page * size, page * size + size).map((tx) => ({
        customerDTO: {
          email: reservations.get(reference)!.customerEmail,
          name: tx.payerName,
          merchantCode: 'FAKEMERCH',
        },
        providerAmount: 0.21,
        paymentMethod: 'ACCOUNT_TRANSFER',
        createdOn: tx.paidOn.toISOString().replace('Z', '+0000'),
        amount: Number(tx.amountNaira),
        flagged: false,
        providerCode: '98271',
        fee: 0.79,
        currencyCode: 'NGN',
        completedOn: tx.paidOn.toISOString().replace('Z', '+0000'),
        paymentDescription: tx.payerName,
        paymentStatus: tx.paymentStatus,
        transactionReference: tx.transactionReference,
        paymentReference: tx.transactionReference,
      }));
      return envelope(res, 200, {
        content,
        totalElements: all.length,
        totalPages: Math.ceil(all.length / size),
        number: page,
        size,
        first: page === 0,
        last: (page + 1) * size >= all.length,
      });
    }
    const dealloc = /^\/api\/v1\/bank-transfer\/reserved-accounts\/reference\/([^/]+)$/.exec(path);
    if (req.method === 'DELETE' && dealloc) {
      const found = reservations.get(decodeURIComponent(dealloc[1]!));
      if (found === undefined) return failure(res, 404, 'Cannot find reserved account');
      found.status = 'INACTIVE';
      return envelope(res, 200, reservationBody(found));
    }
    const status = /^\/api\/v2\/transactions\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && status) {
      const tx = txs.get(decodeURIComponent(status[1]!));
      if (tx === undefined)
        return failure(res, 404, 'Could not find transaction with the specified transaction reference');
      return envelope(res, 200, statusBody(tx));
    }
    if (req.method === 'POST' && path === '/api/v1/transaction-notification/resend-failed-notifications')
      return envelope(res, 200, { recordsFound: 0 });
    return failure(res, 404, 'Not found');
  }

  function reservationBody(r: Reservation): Record<string, unknown> {
    return {
      contractCode,
      accountReference: r.accountReference,
      accountName: r.accountName,
      currencyCode: 'NGN',
      customerEmail: r.customerEmail,
      customerName: r.customerName,
      accounts: r.accounts,
      collectionChannel: 'RESERVED_ACCOUNT',
      reservationReference: `RES${r.accountReference.length}FAKE`,
      reservedAccountType: 'GENERAL',
      status: r.status,
      createdOn: '2025-05-30 10:39:27.997',
      incomeSplitConfig: [],
      restrictPaymentSource: false,
      metaData: {},
    };
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => failure(res, 500, 'fake failed'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    secretKey,
    contractCode,
    calls,
    logins: () => loginCount,
    expireTokens() {
      tokens.clear();
    },
    reservation: (accountReference: string) => reservations.get(accountReference),
    transfer(accountNumber: string, amountKobo: number, reference?: string, payerName = 'JOHN DOE') {
      const reservation = byNuban.get(accountNumber);
      const bank = reservation?.accounts.find((a) => a.accountNumber === accountNumber);
      const now = new Date();
      const transactionReference =
        reference ?? `MNFY|04|${now.toISOString().replace(/\D/g, '').slice(0, 14)}|${String(seq++).padStart(6, '0')}`;
      const tx: FakeTx = {
        transactionReference,
        accountReference: reservation?.accountReference ?? 'UNKNOWN-REFERENCE',
        accountNumber,
        bankCode: bank?.bankCode ?? '232',
        bankName: bank?.bankName ?? 'Sterling bank',
        amountNaira: naira(amountKobo),
        paymentStatus: 'PAID',
        payerName,
        paidOn: now,
      };
      txs.set(transactionReference, tx);
      const amount = amountKobo / 100;
      const body = JSON.stringify({
        eventType: 'SUCCESSFUL_TRANSACTION',
        eventData: {
          product: { reference: tx.accountReference, type: 'RESERVED_ACCOUNT' },
          transactionReference,
          paymentReference: transactionReference,
          paidOn: paidOnText(now),
          paymentDescription: payerName,
          metaData: {},
          paymentSourceInformation: [
            {
              bankCode: '',
              amountPaid: amount,
              accountName: payerName,
              sessionId: `session${seq}`,
              accountNumber: '0065432190',
            },
          ],
          destinationAccountInformation: { bankCode: tx.bankCode, bankName: tx.bankName, accountNumber },
          amountPaid: amount,
          totalPayable: amount,
          cardDetails: {},
          paymentMethod: 'ACCOUNT_TRANSFER',
          currency: 'NGN',
          settlementAmount: naira(Math.max(0, amountKobo - 1000)),
          paymentStatus: 'PAID',
          customer: { name: reservation?.customerName ?? 'Unknown', email: reservation?.customerEmail ?? '' },
        },
      });
      return { body, signature: signHmacSha512Hex(secretKey, body), reference: transactionReference };
    },
    setStatus(reference: string, change: { amountKobo?: number; paymentStatus?: string }) {
      const tx = txs.get(reference);
      if (tx === undefined) throw new Error(`fake monnify: no transaction ${reference}`);
      if (change.amountKobo !== undefined) tx.amountNaira = naira(change.amountKobo);
      if (change.paymentStatus !== undefined) tx.paymentStatus = change.paymentStatus;
    },
    refuseIdentity(number: string, message: string | null) {
      if (message === null) refusedIdentities.delete(number);
      else refusedIdentities.set(number, message);
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
