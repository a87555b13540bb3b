/**
 * A fake VTpass for tests: a real HTTP server on 127.0.0.1 port 0 that answers the way
 * VTpass's documentation (https://www.vtpass.com/documentation/, summed up in docs/vtpass.md) says VTpass
 * does. It is the only fake in the suite (the outer edge), and it keeps state like the real one: a `pay` is
 * recorded under its request_id, a second `pay` with the same id is 014, and `requery` answers from the record
 * (015 for an id it never took). It also serves merchant-verify, service-variations and the
 * messaging API's sendsms.
 *
 * Without a script it behaves like VTpass's sandbox: phone 08011111111, prepaid meter
 * 1111111111111, postpaid meter 1010101010101 and smart card 1212121212 are delivered, any
 * other number fails (016). A test scripts a recipient's next answers with `script()` and
 * changes a recorded transaction with `setState()` (a late delivery, a reversal).
 */
import { createHash, randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProductName } from '../../core/domain/products.js';
import { createProviders, type ProvidersConfig } from '../../core/providers/index.js';
import {
  AIRTIME_SERVICE_IDS,
  CABLE_SERVICE_IDS,
  ELECTRICITY_SERVICE_IDS,
} from '../../core/providers/vtpass/services.js';
import { startCore, type TestCore } from './core.js';
import { startTestGateway, type TestGateway } from './gateway.js';

/** What a recorded transaction is now; requery answers from it. */
type FakeState = 'delivered' | 'pending' | 'processing' | 'failed' | 'not_processed' | 'reversed';

/**
 * Electricity answer shapes: most discos, Eko's, only `purchased_code` (VTpass's documentation), and a
 * vend with key-change tokens (`kct1`/`kct2`, VTpass's documentation) and a bonus token. How VTpass writes
 * a KCT's digits is not in VTpass's documentation (unsure): the fake writes them grouped with spaces, as
 * `purchased_code` writes the main token, and the parser accepts any grouping. `no_token` is a
 * prepaid vend reported delivered with no token anywhere (`purchased_code` empty): whether a
 * later requery then carries it is not in VTpass's documentation (unsure); a test changes the recorded
 * transaction's shape to stand for a requery that does.
 */
type ElectricityShape = 'standard' | 'eko' | 'purchased_code_only' | 'kct' | 'no_token';

/** The next answer to a `pay` for one recipient. */
type PayScript =
  /**
   * 000 delivered (electricity in the given shape). `overchargeNaira`: our wallet is charged that
   * much more than the face value less the commission, and `total_amount` says so. `lie`: the
   * pay is answered 016 (failed), yet the transaction is delivered and charged (requery says so).
   */
  | { answer: 'delivered'; shape?: ElectricityShape; overchargeNaira?: number; lie?: boolean }
  /** 000 with status pending; requery later answers `later` (default delivered). */
  | { answer: 'pending'; later?: FakeState }
  /** 099 still processing; requery later answers `later` (default delivered). */
  | { answer: 'processing'; later?: FakeState }
  /** Any code: 016 and 091 are recorded (requery repeats them), door refusals are not (requery 015). */
  | { answer: 'code'; code: string; description?: string }
  /** HTTP 200 with a body that is not a VTpass answer; the transaction is recorded as `later` (default delivered). */
  | { answer: 'malformed'; body?: string; later?: FakeState }
  /** No answer at all until the client gives up; recorded as `later` (default delivered). */
  | { answer: 'hang'; later?: FakeState };

/** The next answer to a sendsms. */
type SmsScript = { answer: 'TG17' } | { answer: 'malformed' } | { answer: 'hang' };

/** One request the fake received. */
interface FakeCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
}

/** A transaction the fake took with `pay`. */
interface FakeTransaction {
  requestId: string;
  serviceID: string;
  /** What `pay` was sent. */
  body: Record<string, unknown>;
  state: FakeState;
  shape: ElectricityShape;
  transactionId: string;
  /** Naira charged beyond the face value less the commission (a reconciliation test's overcharge). */
  extra: number;
  /** What our wallet paid for it now, naira (0 while not charged or after a refund). */
  charged: number;
}

/**
 * Our commission rate at the fake VTpass, percent of the face value: VTpass pays a few
 * percent on airtime and data and about one on bills (the real rates vary by product).
 */
function commissionRate(tx: FakeTransaction, rates: ReadonlyMap<string, number>): number {
  return rates.get(tx.serviceID) ?? (/-data$|^(mtn|glo|airtel|etisalat)$/.test(tx.serviceID) ? 3 : 1);
}

/** Our commission on one transaction, in naira to the kobo. */
function commissionOf(tx: FakeTransaction, rates: ReadonlyMap<string, number>): number {
  return Math.round(Number(tx.body['amount']) * commissionRate(tx, rates)) / 100;
}

/** One plan as service-variations lists it. */
export interface FakeVariation {
  variation_code: string;
  name: string;
  variation_amount: string;
  fixedPrice: 'Yes' | 'No';
}

/** A running fake VTpass and the handles tests drive it with. */
export interface FakeVtpass {
  /** The API base, http://127.0.0.1:<port>/api/ */
  baseUrl: string;
  /** The messaging API's send address. */
  smsUrl: string;
  apiKey: string;
  publicKey: string;
  secretKey: string;
  smsToken: string;
  smsSecret: string;
  calls: FakeCall[];
  transactions: Map<string, FakeTransaction>;
  /** Plans per serviceID (mtn-data, ...); tests replace them between syncs. */
  variations: Map<string, FakeVariation[]>;
  /** serviceIDs answered with the old misspelling `varations`. */
  misspelled: Set<string>;
  /** Commission percent per serviceID ("mtn", "ikeja-electric"), over the defaults (3 airtime, 1 bills). */
  commissions: Map<string, number>;
  /** Customers merchant-verify knows, by billersCode: the `content` it answers. */
  customers: Map<string, Record<string, unknown>>;
  /** Every batch sendsms took: sender, recipients, message, clientbatchid. */
  sms: { sender: string; recipients: string[]; message: string; batchId: string }[];
  /** Queues answers for the next pays to this phone, meter or smart card. */
  script(recipient: string, ...answers: PayScript[]): void;
  scriptSms(...answers: SmsScript[]): void;
  setState(requestId: string, state: FakeState): void;
  /** The body VTpass would POST to our callback URL for a recorded transaction. */
  callbackBody(requestId: string): Record<string, unknown>;
  /**
   * The `variations-update` push VTpass would POST to our callback URL after a service's
   * variations changed (VTpass's "Variation codes update" webhook page): the service's
   * current list, twice (`variations` and `varations`), and the codes added, updated and
   * removed.
   */
  variationsUpdateBody(
    serviceID: string,
    codes: { added?: string[]; updated?: string[]; removed?: string[] },
  ): Record<string, unknown>;
  /** The 20 digits the fake issues as the token of a request id (or its `kct1`, `kct2`, `bonus` with `kind`). */
  tokenDigits(requestId: string, kind?: 'kct1' | 'kct2' | 'bonus'): string;
  /** The pays received for a recipient, in order. */
  paysFor(recipient: string): FakeCall[];
  /**
   * Our wallet at the fake, naira, as `GET balance` answers it: it moves by each transaction's
   * `total_amount` while the transaction is delivered, pending or processing (VTpass: a pending
   * one is already charged), and back when it fails or is reversed.
   */
  balance: number;
  /** Moves our wallet by `naira` outside any transaction (a fee, someone else's charge). */
  skewBalance(naira: number): void;
  close(): Promise<void>;
}

/** Codes VTpass answers at the door, before any transaction exists (requery then says 015). */
const DOOR_REFUSALS = new Set([
  '010',
  '011',
  '012',
  '013',
  '017',
  '018',
  '019',
  '021',
  '022',
  '023',
  '024',
  '027',
  '028',
  '034',
  '035',
]);

const DESCRIPTIONS: Record<string, string> = {
  '000': 'TRANSACTION SUCCESSFUL',
  '099': 'TRANSACTION IS PROCESSING',
  '016': 'TRANSACTION FAILED',
  '091': 'TRANSACTION NOT PROCESSED',
  '014': 'REQUEST ID ALREADY EXIST',
  '015': 'INVALID REQUEST ID',
  '040': 'TRANSACTION REVERSAL',
  '011': 'INVALID ARGUMENTS',
  '087': 'INVALID CREDENTIALS',
};

/** The sandbox numbers that succeed, as VTpass documents them. */
const SANDBOX_SUCCESS = new Set(['08011111111', '1111111111111', '1010101010101', '1212121212']);

/** The request_id rule: 12 digits of Lagos time, then letters and digits. */
const REQUEST_ID = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})[A-Za-z0-9]*$/;
/** A request_id stamped more than this far from now (Lagos time) is refused. */
const STAMP_TOLERANCE_MS = 26 * 60 * 60_000;

/** The sandbox's default plans, two or three per network. */
function defaultVariations(): Map<string, FakeVariation[]> {
  const v = (variation_code: string, name: string, naira: string): FakeVariation => ({
    variation_code,
    name,
    variation_amount: naira,
    fixedPrice: 'Yes',
  });
  return new Map([
    [
      'mtn-data',
      [
        v('mtn-10mb-100', 'N100 100MB - 24 hrs', '100.00'),
        v('mtn-50mb-200', 'N200 200MB - 2 days', '200.00'),
        v('mtn-100mb-1000', 'N1000 1.5GB - 30 days', '1000.00'),
      ],
    ],
    [
      'glo-data',
      [
        v('glo100', 'Glo Data N100 -  105MB - 2 day', '100.00'),
        v('glo1000', 'Glo Data N1000 -  2.5GB - 30 days', '1000.00'),
      ],
    ],
    [
      'airtel-data',
      [
        v('airt-100', 'Airtel Data - 100 Naira - 100MB - 1Day', '99.00'),
        v('airt-1000', 'Airtel Data - 1,000 Naira - 1.5GB - 30 Days', '1000.00'),
      ],
    ],
    [
      'etisalat-data',
      [
        v('eti-100', '9mobile 100 Naira - 100MB - 1 day', '100.00'),
        v('eti-1000', '9mobile 1000 Naira - 1.5GB - 30 days', '1000.00'),
      ],
    ],
  ]);
}

/** Starts a fake VTpass on 127.0.0.1, port 0. */
export async function startFakeVtpass(): Promise<FakeVtpass> {
  const secret = () => randomBytes(12).toString('hex');
  const creds = {
    apiKey: secret(),
    publicKey: `PK_${secret()}`,
    secretKey: `SK_${secret()}`,
    smsToken: secret(),
    smsSecret: secret(),
  };
  const calls: FakeCall[] = [];
  const transactions = new Map<string, FakeTransaction>();
  const scripts = new Map<string, PayScript[]>();
  const smsScripts: SmsScript[] = [];
  const hanging = new Set<ServerResponse>();
  const sms: FakeVtpass['sms'] = [];
  const customers = new Map<string, Record<string, unknown>>([
    [
      '1111111111111',
      {
        Customer_Name: 'TESTMETER1',
        Address: 'ABULE - EGBA BU ABULE',
        Meter_Number: '1111111111111',
        Customer_Arrears: '',
        Minimum_Amount: '',
        Min_Purchase_Amount: '500',
        Can_Vend: 'yes',
        Business_Unit: '',
        Customer_Account_Type: 'NMD',
        Meter_Type: 'PREPAID',
        WrongBillersCode: false,
      },
    ],
    [
      '1010101010101',
      {
        Customer_Name: 'TESTMETER2',
        Address: '12 Marina, Lagos Island',
        Meter_Number: '1010101010101',
        Customer_Arrears: '1,250.50',
        Minimum_Amount: '1000',
        Meter_Type: 'POSTPAID',
        WrongBillersCode: false,
      },
    ],
    [
      '1212121212',
      {
        Customer_Name: 'TEST CUSTOMER',
        Status: 'ACTIVE',
        Due_Date: '2026-02-06T00:00:00',
        Customer_Number: '1212121212',
        Customer_Type: 'DSTV',
        Current_Bouquet: 'DStv Compact N15700',
        Current_Bouquet_Code: 'COMPE36',
        Renewal_Amount: 15700,
      },
    ],
  ]);
  let sequence = 0;

  function tokenDigits(requestId: string, kind = 'token'): string {
    const hex = createHash('sha256').update(`fake-vtpass-${kind}:${requestId}`).digest('hex');
    return (BigInt(`0x${hex}`) % 10n ** 20n).toString().padStart(20, '0');
  }

  /** What our wallet pays for a transaction: the face value less the commission, plus any overcharge. */
  function totalOf(tx: FakeTransaction): number {
    return Math.round((Number(tx.body['amount']) - commissionOf(tx, commissions) + tx.extra) * 100) / 100;
  }

  /** Charges or refunds our wallet so that it holds what the transaction's state has cost. */
  function account(tx: FakeTransaction): void {
    const owed = ['delivered', 'pending', 'processing'].includes(tx.state) ? totalOf(tx) : 0;
    fake.balance = Math.round((fake.balance - owed + tx.charged) * 100) / 100;
    tx.charged = owed;
  }

  function send(res: ServerResponse, status: number, body: unknown): void {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  }

  /** A pay or requery answer for a recorded transaction in its current state. */
  function answerFor(tx: FakeTransaction): Record<string, unknown> {
    const base = { requestId: tx.requestId, amount: tx.body['amount'], transaction_date: new Date().toISOString() };
    const transactions = (status: string) => ({
      status,
      product_name: tx.serviceID,
      unique_element: tx.body['billersCode'] ?? tx.body['phone'],
      unit_price: tx.body['amount'],
      quantity: 1,
      channel: 'api',
      // Our commission, and what our VTpass wallet paid: the face value less the commission.
      commission: commissionOf(tx, commissions),
      commission_details: {
        amount: commissionOf(tx, commissions),
        rate: commissionRate(tx, commissions).toFixed(2),
        rate_type: 'percent',
        computation_type: 'default',
      },
      total_amount: totalOf(tx),
      type: tx.serviceID,
      transactionId: tx.transactionId,
    });
    switch (tx.state) {
      case 'delivered':
        return {
          code: '000',
          content: { transactions: transactions('delivered') },
          response_description: DESCRIPTIONS['000'],
          ...base,
          ...electricityFields(tx),
        };
      case 'pending':
        return {
          code: '000',
          content: { transactions: transactions('pending') },
          response_description: DESCRIPTIONS['000'],
          ...base,
          purchased_code: '',
        };
      case 'processing':
        return {
          code: '099',
          content: { transactions: transactions('initiated') },
          response_description: DESCRIPTIONS['099'],
          ...base,
        };
      case 'failed':
        return {
          code: '016',
          content: { transactions: transactions('failed') },
          response_description: DESCRIPTIONS['016'],
          ...base,
        };
      case 'not_processed':
        return { code: '091', response_description: DESCRIPTIONS['091'], ...base };
      case 'reversed':
        return {
          code: '000',
          content: { transactions: transactions('reversed') },
          response_description: 'TRANSACTION REVERSED',
          ...base,
        };
    }
  }

  function electricityFields(tx: FakeTransaction): Record<string, unknown> {
    if (!tx.serviceID.endsWith('-electric')) return { purchased_code: '' };
    if (tx.body['variation_code'] === 'postpaid')
      return { purchased_code: '', exchangeReference: `EX${tx.transactionId}` };
    const digits = tokenDigits(tx.requestId);
    const spaced = digits.match(/\d{4}/g)!.join(' ');
    const bonus = '1111 2222 3333 4444 5555';
    switch (tx.shape) {
      case 'standard':
        return {
          purchased_code: `Token : ${spaced}`,
          token: `Token : ${spaced}`,
          units: '32.6 kWh',
          tokenAmount: 6779.7,
          tariff: '209.5',
          taxAmount: 508.48,
          debtAmount: 0,
          exchangeReference: `EX${tx.transactionId}`,
          resetToken: null,
          configureToken: null,
        };
      case 'eko':
        return {
          purchased_code: `Token : ${spaced} Bonus Token : ${bonus}`,
          mainToken: digits,
          mainTokenDescription: 'Normal Sale',
          mainTokenUnits: 16.9,
          mainTokenTax: 91.16,
          mainsTokenAmount: 1215.46,
          bonusToken: bonus.replace(/ /g, ''),
          tariffIndex: '52',
        };
      case 'purchased_code_only':
        return { purchased_code: `Token : ${spaced} Bonus Token : ${bonus}` };
      case 'no_token':
        return { purchased_code: '', exchangeReference: `EX${tx.transactionId}` };
      case 'kct': {
        const spacedOf = (kind: 'kct1' | 'kct2' | 'bonus') =>
          tokenDigits(tx.requestId, kind).match(/\d{4}/g)!.join(' ');
        return {
          purchased_code: `Token : ${spaced} Bonus Token : ${spacedOf('bonus')}`,
          token: `Token : ${spaced}`,
          units: '32.6 kWh',
          kct1: spacedOf('kct1'),
          kct2: spacedOf('kct2'),
          bonusToken: tokenDigits(tx.requestId, 'bonus'),
          exchangeReference: `EX${tx.transactionId}`,
        };
      }
    }
  }

  function requestIdProblem(id: unknown): boolean {
    if (typeof id !== 'string') return true;
    const m = REQUEST_ID.exec(id);
    if (!m) return true;
    const [, y, mo, d, h, mi] = m.map(Number) as [number, number, number, number, number, number];
    const stampUtc = Date.UTC(y, mo - 1, d, h, mi) - 60 * 60_000;
    return !Number.isFinite(stampUtc) || Math.abs(Date.now() - stampUtc) > STAMP_TOLERANCE_MS;
  }

  function pay(body: Record<string, unknown>, res: ServerResponse): void {
    const requestId = body['request_id'];
    if (requestIdProblem(requestId)) return send(res, 200, { code: '011', response_description: DESCRIPTIONS['011'] });
    const id = requestId as string;
    if (transactions.has(id)) return send(res, 200, { code: '014', response_description: DESCRIPTIONS['014'] });
    const serviceID = String(body['serviceID'] ?? '');
    // Cable (VTpass's documentation): DStv and GOtv take subscription_type change|renew, and quantity is months.
    if (serviceID === 'dstv' || serviceID === 'gotv') {
      const quantity = body['quantity'];
      const type = body['subscription_type'];
      if ((type !== 'change' && type !== 'renew') || !(Number.isInteger(quantity) && (quantity as number) >= 1)) {
        return send(res, 200, { code: '011', response_description: DESCRIPTIONS['011'] });
      }
    }
    const recipient = String(body['billersCode'] ?? body['phone'] ?? '');
    const queued = scripts.get(recipient);
    const script: PayScript =
      queued?.shift() ?? (SANDBOX_SUCCESS.has(recipient) ? { answer: 'delivered' } : { answer: 'code', code: '016' });
    const record = (state: FakeState, shape: ElectricityShape = 'standard'): FakeTransaction => {
      sequence += 1;
      const tx: FakeTransaction = {
        requestId: id,
        serviceID,
        body,
        state,
        shape,
        transactionId: `17${String(Date.now()).slice(-9)}${String(sequence).padStart(6, '0')}`,
        extra: script.answer === 'delivered' ? (script.overchargeNaira ?? 0) : 0,
        charged: 0,
      };
      transactions.set(id, tx);
      account(tx);
      return tx;
    };
    switch (script.answer) {
      case 'delivered': {
        const tx = record('delivered', script.shape);
        return send(res, 200, answerFor(script.lie === true ? { ...tx, state: 'failed' } : tx));
      }
      case 'pending':
        send(res, 200, answerFor(record('pending')));
        transactions.get(id)!.state = script.later ?? 'delivered';
        account(transactions.get(id)!);
        return;
      case 'processing':
        send(res, 200, answerFor(record('processing')));
        transactions.get(id)!.state = script.later ?? 'delivered';
        account(transactions.get(id)!);
        return;
      case 'code': {
        const code = script.code;
        if (code === '016') return send(res, 200, answerFor(record('failed')));
        if (code === '091') return send(res, 200, answerFor(record('not_processed')));
        // A door refusal leaves no transaction behind; any other code is answered as is.
        if (!DOOR_REFUSALS.has(code)) record('pending');
        return send(res, 200, {
          code,
          response_description: script.description ?? DESCRIPTIONS[code] ?? 'ERROR',
          requestId: id,
        });
      }
      case 'malformed':
        record(script.later ?? 'delivered');
        return send(res, 200, script.body ?? '<html><body>Bad Gateway</body></html>');
      case 'hang':
        record(script.later ?? 'delivered');
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
    }
  }

  function merchantVerify(body: Record<string, unknown>, res: ServerResponse): void {
    const number = String(body['billersCode'] ?? '');
    const content = customers.get(number);
    if (content === undefined) {
      return send(res, 200, {
        code: '000',
        content: { error: 'This meter/card number is invalid. Please check and try again', WrongBillersCode: true },
      });
    }
    send(res, 200, {
      code: '000',
      content: {
        ...content,
        commission_details: { amount: null, rate: '1.00', rate_type: 'percent', computation_type: 'default' },
      },
    });
  }

  function sendSms(body: Record<string, unknown>, res: ServerResponse): void {
    const script = smsScripts.shift();
    if (script?.answer === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (script?.answer === 'malformed') return send(res, 200, 'not json');
    if (script?.answer === 'TG17') return send(res, 200, { responseCode: 'TG17', response: 'INSUFFICIENT UNITS' });
    const recipients = String(body['recipient'] ?? '')
      .split(',')
      .filter((r) => r !== '');
    const batchId = `B${String(sms.length + 1).padStart(8, '0')}`;
    sms.push({
      sender: String(body['sender'] ?? ''),
      recipients,
      message: String(body['message'] ?? ''),
      batchId: String(body['clientbatchid'] ?? ''),
    });
    send(res, 200, {
      responseCode: 'TG00',
      response: 'MESSAGE PROCESSED',
      batchId,
      clientBatchId: body['clientbatchid'],
      messages: recipients.map((recipient, i) => ({
        statusCode: recipient.endsWith('2222') ? '2222' : '0000',
        recipient,
        messageId: `${batchId}-${i}`,
        status: recipient.endsWith('2222') ? 'REJECTED' : 'SENT',
        pages: 1,
      })),
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> | null = null;
    if (text !== '') {
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return send(res, 400, { code: '011', response_description: DESCRIPTIONS['011'] });
      }
    }
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
    );
    calls.push({ method: req.method ?? '', path: url.pathname + url.search, headers, body });

    if (url.pathname === '/v2/api/sms/sendsms' && req.method === 'POST') {
      if (headers['x-token'] !== creds.smsToken || headers['x-secret'] !== creds.smsSecret)
        return send(res, 401, { responseCode: 'TG05', response: 'INVALID CREDENTIALS' });
      return sendSms(body ?? {}, res);
    }
    // Keys as VTpass's documentation says: api-key always, public-key on GET, secret-key on POST.
    const keyed =
      headers['api-key'] === creds.apiKey &&
      (req.method === 'GET' ? headers['public-key'] === creds.publicKey : headers['secret-key'] === creds.secretKey);
    if (!keyed) return send(res, 401, { code: '087', response_description: DESCRIPTIONS['087'] });

    if (req.method === 'GET' && url.pathname === '/api/service-variations') {
      const serviceID = url.searchParams.get('serviceID') ?? '';
      const list = variations.get(serviceID);
      if (list === undefined) return send(res, 200, { response_description: 'PRODUCT DOES NOT EXIST', code: '012' });
      const key = misspelled.has(serviceID) ? 'varations' : 'variations';
      return send(res, 200, {
        response_description: '000',
        content: { ServiceName: serviceID, serviceID, convinience_fee: '0 %', [key]: list },
      });
    }
    // VTpass's documentation: a numeric code 1 (not "000") and the balance a number of naira.
    if (req.method === 'GET' && url.pathname === '/api/balance')
      return send(res, 200, { code: 1, contents: { balance: fake.balance } });
    if (req.method === 'POST' && url.pathname === '/api/pay') return pay(body ?? {}, res);
    if (req.method === 'POST' && url.pathname === '/api/requery') {
      const tx = typeof body?.['request_id'] === 'string' ? transactions.get(body['request_id']) : undefined;
      if (tx === undefined) return send(res, 200, { code: '015', response_description: DESCRIPTIONS['015'] });
      return send(res, 200, answerFor(tx));
    }
    if (req.method === 'POST' && url.pathname === '/api/merchant-verify') return merchantVerify(body ?? {}, res);
    send(res, 404, { code: '012', response_description: 'NOT FOUND' });
  }

  const variations = defaultVariations();
  const misspelled = new Set<string>();
  const commissions = new Map<string, number>();
  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeVtpass = {
    baseUrl: `http://127.0.0.1:${port}/api/`,
    smsUrl: `http://127.0.0.1:${port}/v2/api/sms/sendsms`,
    ...creds,
    calls,
    transactions,
    variations,
    misspelled,
    commissions,
    customers,
    sms,
    script(recipient, ...answers) {
      scripts.set(recipient, [...(scripts.get(recipient) ?? []), ...answers]);
    },
    scriptSms(...answers) {
      smsScripts.push(...answers);
    },
    setState(requestId, state) {
      const tx = transactions.get(requestId);
      if (tx === undefined) throw new Error(`the fake VTpass has no transaction ${requestId}`);
      tx.state = state;
      account(tx);
    },
    callbackBody(requestId) {
      const tx = transactions.get(requestId);
      if (tx === undefined) throw new Error(`the fake VTpass has no transaction ${requestId}`);
      return { type: 'transaction-update', data: answerFor(tx) };
    },
    variationsUpdateBody(serviceID, codes) {
      const list = variations.get(serviceID) ?? [];
      const group = (codesOf: string[] = []) => ({ total: codesOf.length, variation_codes: codesOf });
      return {
        type: 'variations-update',
        response_description: 'VARIATION CODE UPDATE',
        serviceID,
        service: serviceID,
        summary: {
          added_variation_codes: codes.added?.length ?? 0,
          updated_variation_codes: codes.updated?.length ?? 0,
          removed_variation_codes: codes.removed?.length ?? 0,
        },
        data: {
          response_description: '000',
          content: { ServiceName: serviceID, serviceID, convinience_fee: 'N0.00', variations: list, varations: list },
        },
        actionRequired: { added: group(codes.added), updated: group(codes.updated), removed: group(codes.removed) },
      };
    },
    tokenDigits,
    paysFor(recipient) {
      return calls.filter((c) => c.path === '/api/pay' && (c.body?.['billersCode'] ?? c.body?.['phone']) === recipient);
    },
    balance: 50_000,
    skewBalance(naira) {
      fake.balance = Math.round((fake.balance + naira) * 100) / 100;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

/** Each family's route as PROVIDER_<FAMILY> writes it: upstream names separated by commas. */
export type RouteText = Partial<Record<ProductName, string>>;

/** A providers configuration with every family on VTpass (unless `routing` says otherwise), pointed at a fake. */
export function vtpassRouting(fake: FakeVtpass, routing: RouteText = {}): ProvidersConfig {
  const route = (family: ProductName) => (routing[family] ?? 'vtpass').split(',');
  return {
    routing: {
      airtime: route('airtime'),
      data: route('data'),
      electricity: route('electricity'),
      cable: route('cable'),
      bulksms: route('bulksms'),
    },
    upstreams: [],
    sandboxDelayMs: 0,
    vtpass: {
      baseUrl: fake.baseUrl,
      apiKey: fake.apiKey,
      publicKey: fake.publicKey,
      secretKey: fake.secretKey,
      fallbackPhone: '08099999999',
    },
    vtpassSms: { url: fake.smsUrl, token: fake.smsToken, secret: fake.smsSecret, receiptSender: 'PrepaidRx' },
  };
}

/** A core whose providers are VTpass pointed at a fake, and a gateway in front of it. */
export interface VtpassStack {
  fake: FakeVtpass;
  core: TestCore;
  gateway: TestGateway;
  /** The callback secret the gateway was configured with. */
  callbackSecret: string;
  /** Everything the core logged, one JSON line per event. */
  coreLog: string[];
  close(): Promise<void>;
}

/** Starts the fake, a core routed to it (every family unless `routing` says otherwise) and a gateway. */
export async function startVtpassStack(
  /** `supply`: the core gets the upstreams as `npm start` does (routes, attempts, observed costs). */
  options: { routing?: RouteText; providerTimeoutMs?: number; supply?: boolean } = {},
): Promise<VtpassStack> {
  const fake = await startFakeVtpass();
  const coreLog: string[] = [];
  const log = (event: string, fields: Record<string, unknown>) => coreLog.push(JSON.stringify({ event, ...fields }));
  const config = vtpassRouting(fake, options.routing);
  const core = await startCore({
    providerTimeoutMs: options.providerTimeoutMs ?? 1_000,
    ...(options.supply === true
      ? { upstreams: (store, planCodes) => createProviders(config, { catalog: store.catalog, planCodes, log }) }
      : { providers: (store) => createProviders(config, { catalog: store.catalog, log }).providers }),
    log,
  });
  const callbackSecret = randomBytes(24).toString('hex');
  const gateway = await startTestGateway(core, { vtpassCallbackSecret: callbackSecret });
  return {
    fake,
    core,
    gateway,
    callbackSecret,
    coreLog,
    async close() {
      await gateway.close();
      await core.close();
      await fake.close();
    },
  };
}

/**
 * Makes the fake's answers state the commission a test has just set with `prepaid pricing
 * costs set ARGS` (ARGS after `set`: the product, then its flags), as a real VTpass would, so
 * that the core, which follows the commissions the upstream states (observed-costs.ts), keeps
 * the rule the test set. A removal or another upstream's rule changes nothing here.
 */
export function stateCommissionSet(fake: FakeVtpass, args: readonly string[]): void {
  const after = (flag: string) => {
    const i = args.indexOf(flag);
    return i < 0 ? undefined : args[i + 1];
  };
  const percent = after('--commission-percent');
  if (args.includes('--remove') || percent === undefined || after('--upstream') !== 'vtpass') return;
  const service = after('--network') ?? after('--disco') ?? after('--provider') ?? '';
  stateCommission(fake, args[0]!, service, Number(percent));
}

/** The fake states `percent` for the product's service ('' means every service of the product). */
function stateCommission(fake: FakeVtpass, product: string, service: string, percent: number): void {
  const tables: Record<string, Readonly<Record<string, string>>> = {
    airtime: { ...AIRTIME_SERVICE_IDS, t2: AIRTIME_SERVICE_IDS['9mobile'] },
    electricity: ELECTRICITY_SERVICE_IDS,
    cable: CABLE_SERVICE_IDS,
  };
  const table = tables[product] ?? {};
  const ids = service === '' ? Object.values(table) : [table[service]];
  for (const id of ids) if (id !== undefined) fake.commissions.set(id, percent);
}
