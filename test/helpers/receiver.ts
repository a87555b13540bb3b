/**
 * A partner's webhook receiver for tests: a real HTTP server on 127.0.0.1 port 0 that keeps
 * every request (headers and raw body) and answers with the statuses it is told, in turn.
 * It can be stopped and started again on the same port, to play a receiver that was down.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  raw: string;
  json: any;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The statuses to answer with next, one per request; 200 once they run out. */
  answers: number[];
  /** When true, requests get no answer at all (a hung receiver). */
  hang: boolean;
  /** Requests left unanswered because `hang` was true. */
  hung: number;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, what?: string): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let server: http.Server | undefined;
  const receiver: Receiver = {
    url: '',
    port,
    received: [],
    answers: [],
    hang: false,
    hung: 0,
    async waitFor(count, what = 'requests') {
      if (receiver.received.length >= count) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the receiver got ${receiver.received.length} of ${count} ${what}`)),
          20_000,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async start() {
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          if (receiver.hang) {
            receiver.hung += 1;
            return;
          }
          const status = receiver.answers.shift() ?? 200;
          receiver.received.push({ headers: req.headers, raw, json: JSON.parse(raw), at: Date.now() });
          for (const waiter of [...waiters]) {
            if (receiver.received.length >= waiter.count) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve();
            }
          }
          res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
        });
      });
      await new Promise<void>((resolve) => server!.listen(receiver.port, '127.0.0.1', resolve));
      receiver.port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
    },
    async stop() {
      const s = server;
      server = undefined;
      if (s === undefined) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  await receiver.start();
  return receiver;
}

/**
 * Checks a Prepaid-Signature header the way a partner would, from the contract alone: every
 * `v1=` is HMAC-SHA256 of "<t>.<raw body>"; true when one of them was made with `secret`.
 */
export function signedWith(header: string | string[] | undefined, raw: string, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const parts = header.split(',').map((part) => part.split('='));
  const t = parts.find(([key]) => key === 't')?.[1];
  if (t === undefined || !/^\d+$/.test(t)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest();
  return parts
    .filter(([key]) => key === 'v1')
    .some(([, hex]) => {
      const given = Buffer.from(hex ?? '', 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
