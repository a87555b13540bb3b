/**
 * A fake ClubKonnect for tests: a real HTTP server on 127.0.0.1 port 0 answering GET scripts
 * the way ClubKonnect's documentation (https://www.clubkonnect.com/APIDocs.asp) says (every fact there is
 * unsure, so the fake is as strict as the file and no looser): credentials in the query string (a wrong APIKey
 * is `{"status":"INVALID_CREDENTIALS"}`), MobileNetwork 01-04, Amount at least 100, a
 * purchase answered `100 ORDER_RECEIVED` with an orderid and settled later, a query by
 * RequestID or OrderID from the record, the wallet balance and the data plan list; electricity
 * (ElectricCompany 01-12, MeterType 01/02, a `metertoken` once a prepaid order completed) and
 * cable (CableTV and the documented package codes) orders, and the two verify scripts.
 *
 * A test scripts a recipient's next purchase with `script()`: the order completes (default),
 * stays pending, is cancelled (506), or the purchase is refused with an ORDER_ERROR, answered
 * with an HTML page (IP not whitelisted) or not answered at all.
 *
 * Our wallet there moves by what each order charged (`amountcharged`: airtime at a 3.5% discount,
 * data at the plan's price), back again when an order is cancelled, and every query answers the
 * `walletbalance` as it stood right after that order (the documentation's field; whether it is
 * that or the balance at the time of the query is unsure). For reconciliation tests: `overchargeNaira`
 * charges an order more than its price, `lie` answers the purchase with an ORDER_ERROR although
 * the order was taken and completes, and `skewBalance` moves the wallet outside any order.
 */
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type CkScript =
  /**
   * `tokenLate`: a prepaid order completes with its metertoken still empty, until `giveToken()`.
   * `overchargeNaira`: charged that much more than its price. `lie`: the purchase is answered
   * with this ORDER_ERROR, yet the order is taken, charged and completes.
   */
  | { answer: 'complete'; tokenLate?: boolean; overchargeNaira?: number; lie?: { code: string; status: string } }
  | { answer: 'pending'; code?: '100' | '300' | '201' | '600' }
  | { answer: 'cancel' }
  | { answer: 'error'; code: string; status: string }
  | { answer: 'html' }
  | { answer: 'hang' };

interface CkOrder {
  orderId: string;
  requestId: string;
  script: string;
  params: Record<string, string>;
  /** The statuscode a query answers now. */
  code: string;
  /** A completed prepaid order whose metertoken is still empty (documented as possibly empty until completed). */
  tokenLate: boolean;
  /** What our wallet paid for it, naira (0 once cancelled), and the wallet right after it, naira text. */
  charged: number;
  walletAfter: string;
}

export interface FakeClubkonnect {
  baseUrl: string;
  userId: string;
  apiKey: string;
  /** Every request, path and query (credentials included: tests only). */
  calls: { script: string; params: Record<string, string> }[];
  orders: Map<string, CkOrder>;
  /** Our wallet there, in naira text; it moves by what each order charged. */
  balance: string;
  /** Moves our wallet there by `naira` outside any order (a fee, someone else's charge). */
  skewBalance(naira: number): void;
  script(recipient: string, ...answers: CkScript[]): void;
  /** Settles a recorded order, as ClubKonnect does later. */
  settle(requestId: string, code: string): void;
  /** The token of a completed order scripted `tokenLate` appears in its query answers. */
  giveToken(requestId: string): void;
  close(): Promise<void>;
}

const STATUS_OF: Readonly<Record<string, string>> = {
  '1': 'ORDER_RECEIVED',
  '2': 'ORDER_COMPLETED',
  '3': 'ORDER_PROCESSED',
  '4': 'ORDER_ERROR',
  '5': 'ORDER_CANCELLED',
  '6': 'ORDER_ONHOLD',
};
const PURCHASES = new Set(['APIAirtimeV1.asp', 'APIDatabundleV1.asp', 'APIElectricityV1.asp', 'APICableTVV1.asp']);
/** ElectricCompany codes of ClubKonnect's documentation (01-09 two sources, 10 and 12 one). */
const DISCOS = new Set(['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '12']);
/** Package codes of the documented examples. */
const PACKAGES: Readonly<Record<string, readonly string[]>> = {
  dstv: ['dstv-padi', 'dstv-yanga', 'dstv-confam', 'dstv79', 'dstv7', 'dstv3'],
  gotv: ['gotv-smallie', 'gotv-jinja', 'gotv-jolli', 'gotv-max', 'gotv-supa'],
  startimes: ['nova', 'basic', 'smart', 'classic', 'super'],
};
/** The meter and card numbers the fake knows, with their holders. */
const HOLDERS: Readonly<Record<string, string>> = {
  '04185663657': 'JOHN DOE',
  '7034567890': 'ADA NWAIKPO',
};
/** The token a completed prepaid order carries (20 digits, as the documented metertoken). */
export const CK_METER_TOKEN = '26362054405982757802';

export async function startFakeClubkonnect(): Promise<FakeClubkonnect> {
  const userId = 'CK100000001';
  const apiKey = 'CKKEY0123456789ABCDEF';
  const calls: FakeClubkonnect['calls'] = [];
  const orders = new Map<string, CkOrder>();
  const scripts = new Map<string, CkScript[]>();
  const hanging = new Set<ServerResponse>();
  let nextOrder = 6501321715;
  /** Our wallet moved by `naira`, kept to the thousandth as ClubKonnect writes it ("3651.449"). */
  const moveWallet = (naira: number): void => {
    fake.balance = String(Math.round((Number(fake.balance) + naira) * 1000) / 1000);
  };

  const send = (res: ServerResponse, body: unknown, status = 200): void => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json' }).end(text);
  };
  const error = (res: ServerResponse, code: string, status: string) => send(res, { statuscode: code, status });
  const queryAnswer = (order: CkOrder) => ({
    date: '22th-Jul-2023',
    orderid: order.orderId,
    requestid: order.requestId,
    statuscode: order.code,
    status: STATUS_OF[order.code[0]!] ?? 'ORDER_RECEIVED',
    remark:
      order.code === '200'
        ? `You have successfully topped up to ${order.params['MobileNumber']}.`
        : 'Awaiting Processing',
    ordertype: order.script,
    mobilenumber: order.params['MobileNumber'],
    amountcharged: String(order.charged),
    walletbalance: order.walletAfter,
    ...(order.script === 'APIElectricityV1.asp'
      ? {
          meterno: order.params['MeterNo'],
          metertoken:
            order.code === '200' && order.params['MeterType'] === '01' && !order.tokenLate ? CK_METER_TOKEN : '',
        }
      : {}),
  });

  /** The recipient of an electricity or cable order, or the error it is refused with. */
  function billRecipient(script: string, params: Record<string, string>): string | [string, string] {
    if (script === 'APIElectricityV1.asp') {
      if (!DISCOS.has(params['ElectricCompany'] ?? '')) return ['499', 'INVALID_ELECTRICCOMPANY'];
      if (!['01', '02'].includes(params['MeterType'] ?? '')) return ['499', 'INVALID_METERTYPE'];
      if (params['Amount'] === undefined) return ['405', 'MISSING_AMOUNT'];
      if (!/^\d+$/.test(params['Amount'])) return ['406', 'INVALID_AMOUNT'];
      if (!/^\d{6,13}$/.test(params['MeterNo'] ?? '')) return ['409', 'INVALID_RECIPIENT'];
      return params['MeterNo']!;
    }
    if (!(PACKAGES[params['CableTV'] ?? ''] ?? []).includes(params['Package'] ?? '')) return ['499', 'INVALID_PACKAGE'];
    if (!/^\d{6,12}$/.test(params['SmartCardNo'] ?? '')) return ['409', 'INVALID_RECIPIENT'];
    return params['SmartCardNo']!;
  }

  function purchase(script: string, params: Record<string, string>, res: ServerResponse): void {
    if (script === 'APIElectricityV1.asp' || script === 'APICableTVV1.asp') {
      const recipient = billRecipient(script, params);
      if (Array.isArray(recipient)) return error(res, recipient[0], recipient[1]);
      return order(script, params, recipient, res);
    }
    if (!['01', '02', '03', '04'].includes(params['MobileNetwork'] ?? ''))
      return error(
        res,
        params['MobileNetwork'] ? '418' : '404',
        params['MobileNetwork'] ? 'INVALID_MOBILENETWORK' : 'MISSING_MOBILENETWORK',
      );
    if (script === 'APIAirtimeV1.asp') {
      if (params['Amount'] === undefined) return error(res, '405', 'MISSING_AMOUNT');
      if (!/^\d+$/.test(params['Amount'])) return error(res, '406', 'INVALID_AMOUNT');
      if (Number(params['Amount']) < 100) return error(res, '407', 'MINIMUM_100');
    } else if (!/^\d+(\.\d+)?$/.test(params['DataPlan'] ?? '')) return error(res, '499', 'INVALID_PRODUCT_CODE');
    if (!/^0\d{10}$/.test(params['MobileNumber'] ?? '')) return error(res, '409', 'INVALID_RECIPIENT');
    order(script, params, params['MobileNumber']!, res);
  }

  function order(script: string, params: Record<string, string>, recipient: string, res: ServerResponse): void {
    const next = scripts.get(recipient)?.shift() ?? { answer: 'complete' };
    if (next.answer === 'error') return error(res, next.code, next.status);
    const orderId = String(nextOrder++);
    const price = params['Amount'] === undefined ? 390 : Math.round(Number(params['Amount']) * 96.5) / 100;
    const charged =
      next.answer === 'cancel' ? 0 : price + (next.answer === 'complete' ? (next.overchargeNaira ?? 0) : 0);
    moveWallet(-charged);
    const order: CkOrder = {
      orderId,
      requestId: params['RequestID'] ?? '',
      script,
      params,
      code: '100',
      tokenLate: next.answer === 'complete' && next.tokenLate === true,
      charged,
      walletAfter: fake.balance,
    };
    orders.set(orderId, order);
    if (next.answer === 'complete') order.code = '200';
    if (next.answer === 'cancel') order.code = '506';
    if (next.answer === 'pending') order.code = next.code ?? '300';
    if (next.answer === 'complete' && next.lie !== undefined) return error(res, next.lie.code, next.lie.status);
    if (next.answer === 'html') return send(res, '<html><body>Access denied</body></html>');
    if (next.answer === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    // Purchases always start as ORDER_RECEIVED; the order settles later. Electricity answers
    // carry transactionid, meterno and a metertoken empty until the order completes.
    if (script === 'APIElectricityV1.asp')
      return send(res, {
        transactionid: orderId,
        statuscode: '100',
        status: 'ORDER_RECEIVED',
        meterno: params['MeterNo'],
        metertoken: '',
      });
    send(res, { orderid: orderId, statuscode: '100', status: 'ORDER_RECEIVED' });
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const script = url.pathname.replace(/^\//, '');
    const params = Object.fromEntries(url.searchParams);
    calls.push({ script, params });
    if (req.method !== 'GET') return send(res, '<html>405</html>', 405);
    if (params['UserID'] === undefined) return error(res, '402', 'MISSING_USERID');
    if (params['APIKey'] === undefined) return error(res, '403', 'MISSING_APIKEY');
    // Errors may come without a statuscode (facts: whether it is always there is unknown).
    if (params['UserID'] !== userId || params['APIKey'] !== apiKey) return send(res, { status: 'INVALID_CREDENTIALS' });
    if (PURCHASES.has(script)) return purchase(script, params, res);
    if (script === 'APIQueryV1.asp') {
      const order =
        params['OrderID'] !== undefined
          ? orders.get(params['OrderID'])
          : [...orders.values()].find((o) => o.requestId === params['RequestID']);
      // What ClubKonnect answers for an unknown order is not documented.
      if (order === undefined) return send(res, { status: 'INVALID_ORDERID' });
      return send(res, queryAnswer(order));
    }
    // Verification answers carry customer_name; what an unknown number gets is not documented
    // (the fake answers an empty name, which the adapter reads as not found).
    if (script === 'APIVerifyElectricityV1.asp') {
      if (!DISCOS.has(params['ElectricCompany'] ?? '')) return error(res, '499', 'INVALID_ELECTRICCOMPANY');
      return send(res, { customer_name: HOLDERS[params['MeterNo'] ?? ''] ?? '' });
    }
    if (script === 'APIVerifyCableTVV1.0.asp') {
      if (PACKAGES[params['CableTV'] ?? ''] === undefined) return error(res, '499', 'INVALID_CABLETV');
      return send(res, { customer_name: HOLDERS[params['SmartCardNo'] ?? ''] ?? '' });
    }
    if (script === 'APIWalletBalanceV1.asp')
      return send(res, { date: '22th-Jul-2023', id: userId, phoneno: '08030000000', balance: fake.balance });
    if (script === 'APIDatabundlePlansV2.asp') {
      const product = (id: string, name: string, amount: string) => ({
        PRODUCT_SNO: '1',
        PRODUCT_CODE: '1',
        PRODUCT_ID: id,
        PRODUCT_NAME: name,
        PRODUCT_AMOUNT: amount,
      });
      return send(res, {
        MOBILE_NETWORK: {
          MTN: [
            {
              ID: '01',
              PRODUCT: [
                product('500.01', '500 MB - 30 days (SME)', '390'),
                product('1000.01', '1 GB - 30 days (SME)', '780.5'),
              ],
            },
          ],
          Glo: [{ ID: '02', PRODUCT: [product('1500.02', '1.5 GB - 30 days', '950')] }],
        },
      });
    }
    send(res, '<html><body>Not Found</body></html>', 404);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeClubkonnect = {
    baseUrl: `http://127.0.0.1:${port}/`,
    userId,
    apiKey,
    calls,
    orders,
    balance: '3651.449',
    script(recipient, ...answers) {
      scripts.set(recipient, [...(scripts.get(recipient) ?? []), ...answers]);
    },
    skewBalance(naira) {
      moveWallet(naira);
    },
    settle(requestId, code) {
      const order = [...orders.values()].find((o) => o.requestId === requestId);
      if (order === undefined) throw new Error(`the fake ClubKonnect has no order ${requestId}`);
      order.code = code;
      // A cancelled order is credited back (code 509's remark; the fake does so for every cancellation).
      if (code.startsWith('5') && order.charged > 0) {
        moveWallet(order.charged);
        order.charged = 0;
      }
    },
    giveToken(requestId) {
      const order = [...orders.values()].find((o) => o.requestId === requestId);
      if (order === undefined) throw new Error(`the fake ClubKonnect has no order ${requestId}`);
      order.tokenLate = false;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
