/**
 * Clients of the Adex dialect written from what real connectors read (docs/compat.md, Adex:
 * which software needs which setting): how each logs in, sends its purchase and decides
 * delivered or failed. Neither has a pending state. They speak https:// and accept any
 * certificate, as the real ones do on their purchase calls.
 */
import { type Answer, call } from './clients.js';

type AdexVerdict = 'delivered' | 'failed';

/** What a connector keeps of a purchase: its verdict and the reference it stores. */
export interface Kept {
  verdict: AdexVerdict;
  reference: string;
  answer: Answer;
}

/**
 * philmorehost's Legitdataway / Bilalsadasub connectors: a login on every purchase at
 * `POST /api/user` (no trailing slash) with `Basic base64(username:password)`, which must answer
 * `status` `success` and an `AccessToken`; then `Token  <AccessToken>` (two spaces). Only
 * `status` `success` is delivered, anything else failed and refunded at once; the reference kept
 * is the answer's `request-id`. The HTTP status is never read.
 */
export const philmorehostAdex = {
  async login(port: number, base: string, username: string, password: string): Promise<string | undefined> {
    const basic = Buffer.from(`${username}:${password}`).toString('base64');
    const answer = await call(port, 'POST', `${base}/api/user`, { Authorization: `Basic ${basic}` });
    return answer.json?.status === 'success' && typeof answer.json?.AccessToken === 'string'
      ? answer.json.AccessToken
      : undefined;
  },
  async buy(port: number, base: string, path: string, credentials: [string, string], body: unknown): Promise<Kept> {
    const accessToken = await philmorehostAdex.login(port, base, ...credentials);
    if (accessToken === undefined) throw new Error('Err: Could not connect');
    const answer = await call(port, 'POST', `${base}${path}`, { Authorization: `Token  ${accessToken}` }, body);
    return {
      verdict: answer.json?.status === 'success' ? 'delivered' : 'failed',
      reference: String(answer.json?.['request-id'] ?? ''),
      answer,
    };
  },
};

/**
 * The [WS] PHP server's Adex branch: `GET <host>/api/user/` with `Basic  <stored key>` (two
 * spaces, the stored key as is), reading `AccessToken` without looking at `status`; then
 * `Token <AccessToken>`. `success` or `successful` is delivered; `fail` and anything else failed
 * and refunded. Messages from `msg`; electricity's `token` read on success. Checks use the
 * stored key with no login and pass on `Customer_Name` or `name` (meter), `name` (IUC).
 */
export const wsAdex = {
  async buy(
    port: number,
    base: string,
    path: string,
    storedKey: string,
    body: unknown,
  ): Promise<Kept & { msg: string }> {
    const login = await call(port, 'GET', `${base}/api/user/`, { Authorization: `Basic  ${storedKey}` });
    const accessToken = String(login.json?.AccessToken ?? '');
    const answer = await call(port, 'POST', `${base}${path}`, { Authorization: `Token ${accessToken}` }, body);
    const word = answer.json?.status;
    return {
      verdict: word === 'success' || word === 'successful' ? 'delivered' : 'failed',
      reference: String(
        body !== null && typeof body === 'object' ? (body as Record<string, unknown>)['request-id'] : '',
      ),
      msg: String(answer.json?.msg ?? ''),
      answer,
    };
  },
  async meterName(port: number, base: string, storedKey: string, query: string): Promise<string | undefined> {
    const answer = await call(port, 'GET', `${base}/api/bill/bill-validation?${query}`, {
      Authorization: `Basic ${storedKey}`,
    });
    return answer.json?.Customer_Name ?? answer.json?.name;
  },
  async iucName(port: number, base: string, storedKey: string, query: string): Promise<string | undefined> {
    const answer = await call(port, 'GET', `${base}/api/cable/cable-validation?${query}`, {
      Authorization: `Basic ${storedKey}`,
    });
    return answer.json?.name;
  },
  /** The balance, as its WalletBalance reads it: `user.wallet_balance`, else `wallet_balance`, else `balance`. */
  async balance(port: number, base: string, storedKey: string): Promise<string | undefined> {
    const answer = await call(port, 'GET', `${base}/api/user/`, { Authorization: `Basic ${storedKey}` });
    return answer.json?.user?.wallet_balance ?? answer.json?.wallet_balance ?? answer.json?.balance;
  },
};
