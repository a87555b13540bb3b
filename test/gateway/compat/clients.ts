/**
 * Clients of the MSORG dialect written from what real connectors read (docs/compat.md, Which
 * software needs which word): how each sends its request and decides delivered, pending or
 * failed. They speak https:// and accept any certificate, as the real ones do.
 */
import https from 'node:https';

export interface Answer {
  status: number;
  json: any;
  text: string;
}

/** One HTTPS request, certificate not verified. */
export function call(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        rejectUnauthorized: false,
        // JSON unless the caller names another Content-Type.
        headers: {
          ...(payload === undefined
            ? {}
            : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export type Verdict = 'delivered' | 'pending' | 'failed';

/**
 * The multi-provider script's connectors: data with `Token  <key>` (two spaces), airtime with
 * one; `successful` is delivered, `pending` pending, anything else failed and refunded. The
 * HTTP status is never read.
 */
export const philmorehost = {
  headers: (token: string, product: string) => ({
    Authorization: product === 'topup' ? `Token ${token}` : `Token  ${token}`,
  }),
  verdict(answer: Answer): Verdict {
    const word = answer.json?.Status;
    return word === 'successful' ? 'delivered' : word === 'pending' ? 'pending' : 'failed';
  },
};

/** The Laravel library: only HTTP 200 is success, and any lower-case `status` key not a ClubKonnect word is an error. */
export const laravelHusmodata = {
  headers: (token: string) => ({ Authorization: `Token ${token}` }),
  successful(answer: Answer): boolean {
    return answer.status === 200 && answer.json !== undefined && !Object.hasOwn(answer.json, 'status');
  },
};

/** The PHP script's Django branch: `successful` or `processing` is delivered, anything else failed. */
export const topupmate = {
  verdict(answer: Answer): Verdict {
    const word = answer.json?.Status;
    return word === 'successful' || word === 'processing' ? 'delivered' : 'failed';
  },
};

/** The Android app: any case; `successful`/`delivered`, `processing`, `failed`; anything else unknown. */
export const bukkydatasup = {
  verdict(answer: Answer): string {
    const word = String(answer.json?.Status ?? '').toLowerCase();
    if (word === 'successful' || word === 'delivered') return 'successful';
    if (word === 'processing' || word === 'failed') return word;
    return 'unknown';
  },
};

/** Whether a lower-case `status` key appears anywhere in a JSON value. */
export function hasLowerStatus(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasLowerStatus);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, inner]) => key === 'status' || hasLowerStatus(inner));
}
