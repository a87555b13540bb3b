/**
 * Clients of the VTpass dialect written from what VTpass documents and what public VTpass
 * clients read (docs/compat.md, VTpass): how each sends its keys and decides delivered, pending
 * or failed. They speak https:// through clients.ts's `call`, certificates not verified.
 */
import { type Answer, call, type Verdict } from './clients.js';

/** A VTpass token's three keys, as the CLI shows them. */
export interface VtpassKeys {
  apiKey: string;
  publicKey: string;
  secretKey: string;
}

export function keysOf(token: string): VtpassKeys {
  const [apiKey, publicKey, secretKey] = token.split(':') as [string, string, string];
  return { apiKey, publicKey, secretKey };
}

/** POST with the secret key, GET with the public key, as VTpass documents. */
export function vtpassCall(port: number, keys: VtpassKeys, method: 'GET' | 'POST', path: string, body?: unknown) {
  const headers: Record<string, string> =
    method === 'POST'
      ? { 'api-key': keys.apiKey, 'secret-key': keys.secretKey }
      : { 'api-key': keys.apiKey, 'public-key': keys.publicKey };
  return call(port, method, path, headers, body);
}

/**
 * VTpass's own rule: `000` is read by `content.transactions.status` (`delivered`; `initiated`
 * and `pending` still open); `099` is in flight and is requeried; a timeout or an answer that is
 * not JSON is pending too (VTpass: never refund it); any other code was not charged.
 */
export const documented = {
  verdict(answer: Answer): Verdict {
    const json = answer.json;
    if (json === undefined || typeof json.code !== 'string') return 'pending';
    if (json.code === '099') return 'pending';
    if (json.code !== '000') return 'failed';
    const status = json.content?.transactions?.status;
    if (status === 'delivered') return 'delivered';
    if (status === 'initiated' || status === 'pending') return 'pending';
    return 'failed';
  },
};

/** The international airtime connector of philmorehost's script: 000 or 044 delivered, 001 or 099 pending, anything else failed. */
export const philmorehostVtpass = {
  verdict(answer: Answer): Verdict {
    const code = answer.json?.code;
    if (code === '000' || code === '044') return 'delivered';
    if (code === '001' || code === '099') return 'pending';
    return 'failed';
  },
};

/** The Python SDK: raises on a non-2xx answer, and on any code other than "000". */
export const pythonSdk = {
  succeeds(answer: Answer): boolean {
    return answer.status >= 200 && answer.status < 300 && answer.json?.code === '000';
  },
};

/** A request_id as VTpass wants it: 12 digits of Lagos time, then a suffix. */
export function requestIdOf(suffix: string): string {
  const lagos = new Date(Date.now() + 3_600_000).toISOString();
  const digits = lagos.slice(0, 16).replace(/[-T:]/g, '');
  return `${digits}${suffix}`;
}
