/**
 * A fake site of the "ported-number" VTU family (Django script) for tests: a real HTTP
 * server on 127.0.0.1 port 0 that answers as the family's documentation
 * (https://documenter.getpostman.com/view/10645604/TVKHVFW7; docs/upstreams.md) says, and no looser:
 * `Authorization: Token <key>` (401 `{"detail":"Invalid token."}` otherwise), JSON bodies, network ids 1-4, an
 * 11-digit mobile_number, a known plan id, DRF field errors as HTTP 400, `{"error":["insufficient
 * balance..."]}` when our wallet there is short, 201 with a record whose `Status` is
 * successful/processing/failed, the record by id (`/api/data/{id}`, 404 for another kind's or none), the
 * history paged by 50 as DRF's page-number pagination writes it (newest first, `?page=N`, an absolute `next`
 * link, echoing `ident`, each record's naive Lagos `create_date`), and `/api/user/` with the
 * balance and `Dataplans`; bill payments (`/api/billpayment/`, Husmodata's disco ids, the token
 * as "Token : ...") and `/api/validatemeter`.
 *
 * A test scripts a recipient's next purchase with `script()`: processing (settled later
 * with `settle()`), failed, an HTML 500 page, or no answer at all.
 *
 * Our wallet there moves by what each purchase charged, and each record carries the balance
 * before and after it. For reconciliation tests a successful purchase may be `overchargeNaira`
 * more than its price, charged twice (`twice`: two records under one `ident`, the wallet moved
 * twice, the answer the first record), or answered `Status: failed` although the site delivered
 * and charged it (`lie`: its record says successful); `skewBalance` moves the wallet outside any
 * purchase.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type PnScript =
  /** `tokenLate`: a prepaid bill payment is successful with an empty `token`, until `giveToken()`. */
  | { answer: 'successful'; tokenLate?: boolean; overchargeNaira?: number; twice?: boolean; lie?: boolean }
  | { answer: 'processing' }
  | { answer: 'failed' }
  | { answer: 'html500' }
  | { answer: 'hang' };

interface PnRecord {
  id: number;
  kind: 'data' | 'topup' | 'billpayment';
  body: Record<string, unknown>;
  Status: 'successful' | 'processing' | 'failed';
  amount: number;
  /** What our wallet there paid (airtime: after the site's 3% discount), and the balance around it. */
  charged: number;
  balanceBefore: number;
  balanceAfter: number;
  /** When the site made it, as its naive local (Lagos) date-time. */
  created: string;
  /** A successful prepaid bill payment whose token is still empty (unsure whether sites do this; the attack saw it). */
  tokenLate: boolean;
}

export interface FakePortedNumber {
  baseUrl: string;
  token: string;
  calls: {
    method: string;
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: Record<string, unknown> | null;
  }[];
  records: PnRecord[];
  /** Our wallet there, naira; it moves by what each purchase charged. */
  balance: number;
  /** Moves our wallet there by `naira` outside any purchase (a fee, someone else's charge). */
  skewBalance(naira: number): void;
  script(recipient: string, ...answers: PnScript[]): void;
  settle(id: number, status: 'successful' | 'failed'): void;
  /** `count` successful purchases of other buyers at the site, newer than every record so far. */
  otherSales(kind: 'data' | 'topup' | 'billpayment', count: number): void;
  /** The token of a bill payment scripted `tokenLate` appears in its record. */
  giveToken(id: number): void;
  close(): Promise<void>;
}

/** Husmodata's disco ids (the sites' documentation). */
const DISCO_IDS = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
/** Meters the fake knows, with their holders. */
const METERS: Readonly<Record<string, string>> = { '43067784709': 'David Dele', '1111111111111': 'Ayo' };
/** The token of a successful prepaid bill payment, as the documented sample writes it. */
const SITE_METER_TOKEN_TEXT = 'Token : 26362054405982757802';

/** The history's page size (DRF PageNumberPagination's PAGE_SIZE as the family's sites set it: unsure). */
const HISTORY_PAGE_SIZE = 50;

/** A moment as the site's naive Lagos date-time with microseconds, as `create_date` is written. */
function siteNow(): string {
  return `${new Date(Date.now() + 60 * 60_000).toISOString().slice(0, 23)}000`;
}

/** Plans by id: network, size, price in naira text. */
const PLANS: ReadonlyMap<number, { network: number; plan: string; amount: string; type: string }> = new Map([
  [292, { network: 1, plan: '50.0MB', amount: '18.0', type: 'CORPORATE GIFTING' }],
  [353, { network: 1, plan: '1.0GB', amount: '239.0', type: 'SME' }],
  [401, { network: 2, plan: '1.0GB', amount: '250.0', type: 'GIFTING' }],
]);

export async function startFakePortedNumber(): Promise<FakePortedNumber> {
  const token = 'eacf1ab727d134b254361d8bfc28a2bf6ab0a111';
  const scripts = new Map<string, PnScript[]>();
  const hanging = new Set<ServerResponse>();
  let nextId = 108602;

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    const html = typeof body === 'string';
    res
      .writeHead(status, { 'content-type': html ? 'text/html' : 'application/json' })
      .end(html ? body : JSON.stringify(body));
  };
  const billView = (r: PnRecord) => ({
    id: r.id,
    meter_no: r.body['meter_number'],
    company: 'ikeja-electric',
    meter_type: r.body['MeterType'] === 1 ? 'prepaid' : 'postpaid',
    token: r.Status === 'successful' && r.body['MeterType'] === 1 && !r.tokenLate ? SITE_METER_TOKEN_TEXT : '',
    amount: r.amount,
    pay_amount: String(r.charged),
    Status: r.Status,
    refund: r.Status === 'failed',
    date_created: r.created,
    Customer_name: METERS[r.body['meter_number'] as string] ?? '',
    ...(typeof r.body['ident'] === 'string' ? { ident: r.body['ident'] } : {}),
  });
  const view = (r: PnRecord) => (r.kind === 'billpayment' ? billView(r) : dataView(r));
  const dataView = (r: PnRecord) => ({
    id: r.id,
    ...r.body,
    balance_before: String(r.balanceBefore),
    balance_after: String(r.balanceAfter),
    Status: r.Status,
    create_date: r.created,
    ...(r.kind === 'data'
      ? { plan_amount: `₦${r.amount}` }
      : { paid_amount: r.charged.toFixed(1), amount: String(r.amount) }),
  });

  function purchase(kind: PnRecord['kind'], body: Record<string, unknown>, res: ServerResponse): void {
    const errors: Record<string, string[]> = {};
    let amount = 0;
    if (kind === 'billpayment') {
      if (!DISCO_IDS.has(body['disco_name'] as number)) errors['disco_name'] = ['Invalid pk - object does not exist.'];
      if (body['MeterType'] !== 1 && body['MeterType'] !== 2) errors['MeterType'] = ['"x" is not a valid choice.'];
      if (typeof body['meter_number'] !== 'string' || !/^\d{6,13}$/.test(body['meter_number']))
        errors['meter_number'] = ['Enter a valid meter number.'];
      if (typeof body['amount'] !== 'number' || !Number.isInteger(body['amount']) || body['amount'] < 500)
        errors['amount'] = ['Ensure this value is greater than or equal to 500.'];
      else amount = body['amount'];
    } else {
      if (![1, 2, 3, 4].includes(body['network'] as number))
        errors['network'] = ['Invalid pk - object does not exist.'];
      if (typeof body['mobile_number'] !== 'string' || !/^0\d{10}$/.test(body['mobile_number']))
        errors['mobile_number'] = ['Enter a valid 11-digit phone number.'];
      if (typeof body['Ported_number'] !== 'boolean') errors['Ported_number'] = ['Must be a valid boolean.'];
    }
    if (kind === 'data') {
      const plan = PLANS.get(body['plan'] as number);
      if (plan === undefined || plan.network !== body['network'])
        errors['plan'] = ['Invalid pk - object does not exist.'];
      else amount = Number(plan.amount);
    } else if (kind === 'topup') {
      if (typeof body['amount'] !== 'number' || !Number.isInteger(body['amount']) || body['amount'] < 50)
        errors['amount'] = ['Ensure this value is greater than or equal to 50.'];
      else amount = body['amount'];
      if (body['airtime_type'] !== 'VTU') errors['airtime_type'] = ['"x" is not a valid choice.'];
    }
    if (Object.keys(errors).length > 0) return send(res, 400, errors);
    // Airtime is sold at a 3% discount (the documented sample: 100 paid 97.0); data at the plan's price;
    // electricity with a charge on top (the documented sample: amount 1000, pay_amount "1050.0").
    const price = kind === 'data' ? amount : kind === 'billpayment' ? amount + 50 : Math.round(amount * 97) / 100;
    if (price > fake.balance)
      return send(res, 400, { error: [`insufficient balance,  your current balance ₦${fake.balance}  `] });
    const next = scripts.get((body['mobile_number'] ?? body['meter_number']) as string)?.shift() ?? {
      answer: 'successful',
    };
    const successful = next.answer === 'successful' ? next : undefined;
    const charged = price + (successful?.overchargeNaira ?? 0);
    const record = (): PnRecord => {
      const balanceBefore = fake.balance;
      fake.balance = Math.round((fake.balance - charged) * 100) / 100;
      const made: PnRecord = {
        id: nextId++,
        kind,
        body,
        Status: next.answer === 'failed' ? 'failed' : next.answer === 'successful' ? 'successful' : 'processing',
        amount,
        charged,
        balanceBefore,
        balanceAfter: fake.balance,
        created: siteNow(),
        tokenLate: successful?.tokenLate === true,
      };
      // A failed purchase is refunded at the site (unsure in the sites' documentation; the fake assumes it).
      if (made.Status === 'failed') fake.balance = Math.round((fake.balance + charged) * 100) / 100;
      fake.records.push(made);
      return made;
    };
    const first = record();
    if (successful?.twice === true) record();
    if (next.answer === 'html500') return send(res, 500, '<html><body>Server Error (500)</body></html>');
    if (next.answer === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    send(res, 201, successful?.lie === true ? { ...view(first), Status: 'failed' } : view(first));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    let body: Record<string, unknown> | null = null;
    fake.calls.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body: null });
    if (req.headers.authorization === undefined)
      return send(res, 401, { detail: 'Authentication credentials were not provided.' });
    if (req.headers.authorization !== `Token ${token}`) return send(res, 401, { detail: 'Invalid token.' });
    if (req.method === 'POST') {
      if (!String(req.headers['content-type']).startsWith('application/json'))
        return send(res, 415, { detail: 'Unsupported media type.' });
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return send(res, 400, { detail: 'JSON parse error' });
      }
      fake.calls.at(-1)!.body = body;
      if (url.pathname === '/api/data/') return purchase('data', body, res);
      if (url.pathname === '/api/topup/') return purchase('topup', body, res);
      if (url.pathname === '/api/billpayment/') return purchase('billpayment', body, res);
    }
    if (req.method === 'GET') {
      const list = /^\/api\/(data|topup|billpayment)\/$/.exec(url.pathname);
      if (list) {
        const all = fake.records.filter((r) => r.kind === list[1]).reverse();
        const page = Number(url.searchParams.get('page') ?? '1');
        const pages = Math.max(1, Math.ceil(all.length / HISTORY_PAGE_SIZE));
        if (!Number.isInteger(page) || page < 1 || page > pages) return send(res, 404, { detail: 'Invalid page.' });
        const link = (n: number) =>
          n < 1 || n > pages ? null : `http://${req.headers.host}${url.pathname}${n === 1 ? '' : `?page=${n}`}`;
        const results = all.slice((page - 1) * HISTORY_PAGE_SIZE, page * HISTORY_PAGE_SIZE).map(view);
        return send(res, 200, { count: all.length, next: link(page + 1), previous: link(page - 1), results });
      }
      const one = /^\/api\/(data|topup|billpayment)\/(\d+)$/.exec(url.pathname);
      if (one) {
        const record = fake.records.find((r) => r.kind === one[1] && r.id === Number(one[2]));
        return record === undefined ? send(res, 404, { detail: 'Not found.' }) : send(res, 200, view(record));
      }
      if (url.pathname === '/api/validatemeter') {
        const number = url.searchParams.get('meternumber') ?? '';
        const disco = Number(url.searchParams.get('disconame'));
        if (!DISCO_IDS.has(disco) || !['1', '2'].includes(url.searchParams.get('mtype') ?? ''))
          return send(res, 400, { error: ['Invalid disco or meter type.'] });
        const name = METERS[number];
        if (name === undefined) return send(res, 200, { invalid: true });
        return send(res, 200, {
          invalid: false,
          name,
          address: '87 AJIMATU OFF MURITALA STREET',
          content: { Customer_Name: name },
        });
      }
      if (url.pathname === '/api/user/') {
        const plan = (id: number) => {
          const p = PLANS.get(id)!;
          return {
            id,
            dataplan_id: String(id),
            network: p.network,
            plan_type: p.type,
            plan_network: 'MTN',
            month_validate: '30',
            plan: p.plan,
            plan_amount: p.amount,
          };
        };
        return send(res, 200, {
          user: {
            id: 1234,
            username: 'me',
            Account_Balance: fake.balance,
            wallet_balance: String(fake.balance),
            bonus_balance: '0.0',
          },
          notification: { message: '' },
          Dataplans: {
            MTN_PLAN: { CORPORATE: [plan(292)], SME: [plan(353)], ALL: [plan(292), plan(353)] },
            GLO_PLAN: { ALL: [plan(401)] },
            AIRTEL_PLAN: { ALL: [] },
            '9MOBILE_PLAN': { ALL: [] },
          },
        });
      }
    }
    send(res, 404, '<html><body>Not Found</body></html>');
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakePortedNumber = {
    baseUrl: `http://127.0.0.1:${port}/api/`,
    token,
    calls: [],
    records: [],
    balance: 20176.49999999992,
    script(recipient, ...answers) {
      scripts.set(recipient, [...(scripts.get(recipient) ?? []), ...answers]);
    },
    skewBalance(naira) {
      fake.balance = Math.round((fake.balance + naira) * 100) / 100;
    },
    settle(id, status) {
      const record = fake.records.find((r) => r.id === id);
      if (record === undefined) throw new Error(`the fake site has no record ${id}`);
      record.Status = status;
    },
    otherSales(kind, count) {
      for (let i = 0; i < count; i += 1) {
        const body =
          kind === 'billpayment'
            ? { disco_name: 1, amount: 1000, meter_number: '1111111111111', MeterType: 1 }
            : kind === 'data'
              ? { network: 1, mobile_number: '08030000000', plan: 292, Ported_number: true }
              : { network: 1, amount: 100, mobile_number: '08030000000', Ported_number: true, airtime_type: 'VTU' };
        const amount = kind === 'data' ? 18 : Number(body['amount']);
        fake.records.push({
          id: nextId++,
          kind,
          body,
          Status: 'successful',
          amount,
          charged: amount,
          balanceBefore: fake.balance,
          balanceAfter: fake.balance,
          created: siteNow(),
          tokenLate: false,
        });
      }
    },
    giveToken(id) {
      const record = fake.records.find((r) => r.id === id);
      if (record === undefined) throw new Error(`the fake site has no record ${id}`);
      record.tokenLate = false;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
