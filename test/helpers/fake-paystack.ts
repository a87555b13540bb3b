/**
 * A fake Paystack for tests, built from Paystack's documentation
 * (https://paystack.com/docs/payments/dedicated-virtual-accounts/): a real HTTP server on 127.0.0.1 port 0.
 * Every call needs `Authorization: Bearer <secret key>` (else 401 `{"status":false,"message":"Invalid key"}`);
 * answers are the `{status, message, data}` envelope with amounts in kobo. It keeps customers, dedicated
 * accounts and transactions: `transfer()` records a `charge.success` DVA payment and returns the webhook body Paystack
 * would send, with its `x-paystack-signature`; `setVerify()` makes the re-query contradict it.
 * The identification step answers 202 and its outcome comes later: `identify()` returns the
 * signed `customeridentification.success|failed` event, `assign()` the signed
 * `dedicatedaccount.assign.success|failed` event (creating the account when it succeeds), with
 * the bodies of Paystack's documentation. `GET /customer/{code}` and `GET /dedicated_account/{id}` answer
 * what the fake holds.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signHmacSha512Hex } from '../../core/funding/signature.js';

interface FakeTx {
  id: number;
  reference: string;
  amount: number;
  status: string;
  receiver: string;
  customerCode: string;
  senderName: string;
  paidAt: string;
}

export interface FakePaystack {
  url: string;
  secretKey: string;
  calls: string[];
  /** Records a transfer into `accountNumber`; returns the webhook body (exact bytes) and its signature. */
  transfer(
    accountNumber: string,
    amountKobo: number,
    reference: string,
    senderName?: string,
  ): { body: string; signature: string };
  /** The customer codes created so far, oldest first. */
  customerCodes(): string[];
  /** The customers whose identification was asked for. */
  identificationsAsked(): string[];
  /** The bank account an identification of `code` was asked with. */
  identificationBankAccount(code: string): { bankCode: string; accountNumber: string } | undefined;
  /** Paystack's later answer to an identification: the signed event body. */
  identify(code: string, ok: boolean, reason?: string): { body: string; signature: string };
  /** Paystack's later answer to an assignment (the account is created when ok): the signed event body. */
  assign(code: string, ok: boolean): { body: string; signature: string; accountNumber: string };
  /** How many pages of the bank list were read. */
  bankListReads(): number;
  /** The next call of `call` ("POST /dedicated_account") answers 500, as a Paystack outage would. */
  failNext(call: string): void;
  /** What verify says about `reference` from now on (another amount, or a status other than success). */
  setVerify(reference: string, change: { amount?: number; status?: string }): void;
  stop(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startFakePaystack(secretKey = 'sk_test_fake_paystack_key'): Promise<FakePaystack> {
  const customers = new Map<
    string,
    {
      id: number;
      email: string;
      firstName: string;
      lastName: string;
      phone: string;
      metadata: unknown;
      identified: boolean;
    }
  >();
  const identifications: string[] = [];
  const bankAccounts = new Map<string, { bankCode: string; accountNumber: string }>();
  const dvas = new Map<string, { id: number; customerCode: string; accountNumber: string; assigned: boolean }>();
  const txs = new Map<string, FakeTx>();
  const calls: string[] = [];
  const failing = new Set<string>();
  let bankListReads = 0;
  let seq = 1000;

  function txData(tx: FakeTx): Record<string, unknown> {
    const c = customers.get(tx.customerCode);
    return {
      id: tx.id,
      domain: secretKey.startsWith('sk_live_') ? 'live' : 'test',
      status: tx.status,
      reference: tx.reference,
      amount: tx.amount,
      message: null,
      gateway_response: 'Approved',
      paid_at: tx.paidAt,
      created_at: tx.paidAt,
      channel: 'dedicated_nuban',
      currency: 'NGN',
      metadata: { receiver_account_number: tx.receiver, receiver_bank: 'Test Bank' },
      fees: Math.min(Math.floor(tx.amount / 100), 30_000),
      customer: {
        id: 7454289,
        first_name: c?.firstName ?? null,
        last_name: c?.lastName ?? null,
        email: c?.email ?? '',
        customer_code: tx.customerCode,
      },
      authorization: {
        authorization_code: 'AUTH_0ozsafcpdf',
        channel: 'dedicated_nuban',
        card_type: 'transfer',
        bank: 'First City Monument Bank',
        brand: 'Managed Account',
        sender_bank: 'First City Monument Bank',
        sender_bank_account_number: 'XXXXXX0011',
        sender_name: tx.senderName,
        narration: `NIP: ${tx.senderName}`,
        receiver_bank_account_number: tx.receiver,
        receiver_bank: 'Test Bank',
      },
      requested_amount: tx.amount,
    };
  }

  function dvaData(d: { id: number; customerCode: string; accountNumber: string; assigned: boolean }) {
    const c = customers.get(d.customerCode);
    return {
      customer: {
        id: c?.id ?? 0,
        first_name: c?.firstName,
        last_name: c?.lastName,
        email: c?.email,
        customer_code: d.customerCode,
      },
      bank: { name: 'Test Bank', id: 20, slug: 'test-bank' },
      id: d.id,
      account_name: `PREPAID / ${c?.firstName ?? ''} ${c?.lastName ?? ''}`.toUpperCase(),
      account_number: d.accountNumber,
      currency: 'NGN',
      active: true,
      assigned: d.assigned,
    };
  }

  function signed(event: unknown): { body: string; signature: string } {
    const body = JSON.stringify(event);
    return { body, signature: signHmacSha512Hex(secretKey, body) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    calls.push(`${req.method} ${url.pathname}`);
    if (req.headers.authorization !== `Bearer ${secretKey}`)
      return send(res, 401, { status: false, message: 'Invalid key' });
    if (failing.delete(`${req.method} ${url.pathname}`))
      return send(res, 500, { status: false, message: 'An error occurred' });
    const body =
      chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>);
    const path = url.pathname;
    if (req.method === 'POST' && path === '/customer') {
      if (!body['email']) return send(res, 400, { status: false, message: 'Invalid Email Address Passed' });
      const code = `CUS_${(seq++).toString(36)}fake`;
      let metadata: unknown = null;
      try {
        metadata = body['metadata'] === undefined ? null : JSON.parse(body['metadata']);
      } catch {
        metadata = body['metadata'];
      }
      customers.set(code, {
        id: seq,
        email: body['email'],
        firstName: body['first_name'] ?? '',
        lastName: body['last_name'] ?? '',
        phone: body['phone'] ?? '',
        metadata,
        identified: false,
      });
      return send(res, 200, {
        status: true,
        message: 'Customer created',
        data: { email: body['email'], customer_code: code, id: seq, identified: false },
      });
    }
    if (req.method === 'GET' && path === '/bank') {
      // As Paystack's published snippets show the list (Paystack's documentation names it only): two pages
      // by cursor, an inactive bank and one whose code the identification step cannot take.
      const second = url.searchParams.get('next') === 'YmFua3M6Mg==';
      const data = second
        ? [
            { id: 3, name: 'Guaranty Trust Bank', slug: 'guaranty-trust-bank', code: '058', active: true },
            { id: 4, name: 'Closed Bank', slug: 'closed-bank', code: '999', active: false },
          ]
        : [
            { id: 1, name: 'Access Bank', slug: 'access-bank', code: '044', active: true },
            { id: 2, name: 'Access Bank (Diamond)', slug: 'access-bank-diamond', code: '063', active: true },
            { id: 5, name: 'ALAT by WEMA', slug: 'alat-by-wema', code: '035A', active: true },
            { id: 6, name: 'Fidelity Bank', slug: 'fidelity-bank', code: '070', active: true },
            { id: 7, name: 'Test Bank', slug: 'test-bank', code: '007', active: true },
          ];
      bankListReads += 1;
      return send(res, 200, {
        status: true,
        message: 'Banks retrieved',
        data,
        meta: { next: second ? null : 'YmFua3M6Mg==', previous: null, perPage: 100 },
      });
    }
    const identification = /^\/customer\/([^/]+)\/identification$/.exec(path);
    if (req.method === 'POST' && identification) {
      const code = decodeURIComponent(identification[1]!);
      if (!customers.has(code)) return send(res, 404, { status: false, message: 'Customer not found' });
      for (const field of ['country', 'type', 'account_number', 'bvn', 'bank_code', 'first_name', 'last_name'])
        if (!body[field]) return send(res, 400, { status: false, message: `${field} is required` });
      identifications.push(code);
      bankAccounts.set(code, { bankCode: body['bank_code']!, accountNumber: body['account_number']! });
      return send(res, 202, { status: true, message: 'Customer Identification in progress' });
    }
    const customerPath = /^\/customer\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && customerPath) {
      const code = decodeURIComponent(customerPath[1]!);
      const c = customers.get(code);
      if (c === undefined) return send(res, 404, { status: false, message: 'Customer not found' });
      const dva = [...dvas.values()].find((d) => d.customerCode === code && d.assigned);
      return send(res, 200, {
        status: true,
        message: 'Customer retrieved',
        data: {
          id: c.id,
          first_name: c.firstName,
          last_name: c.lastName,
          email: c.email,
          phone: c.phone,
          metadata: c.metadata,
          customer_code: code,
          identified: c.identified,
          dedicated_account: dva === undefined ? null : dvaData(dva),
        },
      });
    }
    if (req.method === 'POST' && path === '/dedicated_account') {
      const customer = customers.get(body['customer'] ?? '');
      if (customer === undefined) return send(res, 404, { status: false, message: 'Entity not found' });
      const id = seq++;
      const accountNumber = String(9_930_000_000 + id);
      dvas.set(String(id), { id, customerCode: body['customer']!, accountNumber, assigned: true });
      return send(res, 200, {
        status: true,
        message: 'NUBAN successfully created',
        data: {
          bank: { name: 'Test Bank', id: 20, slug: body['preferred_bank'] ?? 'test-bank' },
          account_name: `PREPAID / ${customer.firstName} ${customer.lastName}`.toUpperCase(),
          account_number: accountNumber,
          assigned: true,
          currency: 'NGN',
          active: true,
          id,
        },
      });
    }
    const verify = /^\/transaction\/verify\/(.+)$/.exec(path);
    if (req.method === 'GET' && verify) {
      const tx = txs.get(decodeURIComponent(verify[1]!));
      if (tx === undefined) return send(res, 404, { status: false, message: 'Transaction reference not found' });
      return send(res, 200, { status: true, message: 'Verification successful', data: txData(tx) });
    }
    if (req.method === 'GET' && path === '/transaction') {
      const number = url.searchParams.get('virtual_account_number');
      const from = url.searchParams.get('from');
      const list = [...txs.values()]
        .filter((tx) => (number === null || tx.receiver === number) && (from === null || tx.paidAt >= from))
        .filter((tx) => url.searchParams.get('status') === null || tx.status === url.searchParams.get('status'))
        .reverse();
      return send(res, 200, {
        status: true,
        message: 'Transactions retrieved',
        data: list.map(txData),
        meta: { total: list.length, perPage: 100, page: 1 },
      });
    }
    const dva = /^\/dedicated_account\/(\d+)$/.exec(path);
    if (req.method === 'GET' && dva) {
      const found = dvas.get(dva[1]!);
      if (found === undefined) return send(res, 404, { status: false, message: 'Entity not found' });
      return send(res, 200, { status: true, message: 'Managed account successfully retrieved', data: dvaData(found) });
    }
    if (req.method === 'DELETE' && dva) {
      const found = dvas.get(dva[1]!);
      if (found === undefined) return send(res, 404, { status: false, message: 'Entity not found' });
      found.assigned = false;
      return send(res, 200, {
        status: true,
        message: 'Managed Account Successfully Unassigned',
        data: { id: found.id, assigned: false, active: true },
      });
    }
    return send(res, 404, { status: false, message: 'Entity not found' });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { status: false, message: 'fake failed' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    calls,
    transfer(accountNumber, amountKobo, reference, senderName = 'RANDALL AKANBI HORTON') {
      const dva = [...dvas.values()].find((d) => d.accountNumber === accountNumber);
      const tx: FakeTx = {
        id: seq++,
        reference,
        amount: amountKobo,
        status: 'success',
        receiver: accountNumber,
        customerCode: dva?.customerCode ?? 'CUS_unknown',
        senderName,
        paidAt: new Date().toISOString(),
      };
      txs.set(reference, tx);
      const body = JSON.stringify({ event: 'charge.success', data: txData(tx) });
      return { body, signature: signHmacSha512Hex(secretKey, body) };
    },
    customerCodes: () => [...customers.keys()],
    bankListReads: () => bankListReads,
    failNext: (call) => {
      failing.add(call);
    },
    identificationsAsked: () => [...identifications],
    identificationBankAccount: (code) => bankAccounts.get(code),
    identify(code, ok, reason = 'Account number or BVN is incorrect') {
      const c = customers.get(code);
      if (c === undefined) throw new Error(`fake paystack: no customer ${code}`);
      if (ok) c.identified = true;
      const identificationData = {
        country: 'NG',
        type: 'bank_account',
        bvn: '200*****677',
        account_number: '012****789',
        bank_code: '007',
      };
      return signed({
        event: ok ? 'customeridentification.success' : 'customeridentification.failed',
        data: {
          customer_id: ok ? String(c.id) : c.id,
          customer_code: code,
          email: c.email,
          identification: identificationData,
          ...(ok ? {} : { reason }),
        },
      });
    },
    assign(code, ok) {
      const c = customers.get(code);
      if (c === undefined) throw new Error(`fake paystack: no customer ${code}`);
      const customer = {
        id: c.id,
        first_name: c.firstName,
        last_name: c.lastName,
        email: c.email,
        customer_code: code,
      };
      if (!ok) {
        return {
          ...signed({
            event: 'dedicatedaccount.assign.failed',
            data: { customer, dedicated_account: null, identification: { status: 'failed' } },
          }),
          accountNumber: '',
        };
      }
      const id = seq++;
      const accountNumber = String(9_930_000_000 + id);
      const d = { id, customerCode: code, accountNumber, assigned: true };
      dvas.set(String(id), d);
      return {
        ...signed({
          event: 'dedicatedaccount.assign.success',
          data: { customer, dedicated_account: dvaData(d), identification: { status: 'success' } },
        }),
        accountNumber,
      };
    },
    setVerify(reference, change) {
      const tx = txs.get(reference);
      if (tx === undefined) throw new Error(`fake paystack: no transaction ${reference}`);
      if (change.amount !== undefined) tx.amount = change.amount;
      if (change.status !== undefined) tx.status = change.status;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
