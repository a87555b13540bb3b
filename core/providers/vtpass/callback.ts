/**
 * VTpass's callbacks: `{"type":"transaction-update","data":{...requery shape...}}`, posted
 * to the URL set in its dashboard when a stuck transaction resolves or is reversed. Only
 * the reference is taken from a callback. What it means for the money comes from a requery
 * of that reference (core/purchases/callbacks.ts): a callback then cannot refund or reverse
 * anything VTpass would not confirm, even if its URL leaked.
 */
import { asObject } from './codes.js';

/** Request ids VTpass accepts are alphanumeric; ours are 22 characters. */
const REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The update type VTpass sends for transactions. */
const TRANSACTION_UPDATE = 'transaction-update';

/** The reference a callback is about, or why it names none. */
export type ParsedCallback = { ok: true; reference: string } | { ok: false; reason: string };

/** The reference a callback body is about, or why the body is not a transaction update. */
export function parseVtpassCallback(body: Uint8Array): ParsedCallback {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return { ok: false, reason: 'the callback body is not JSON' };
  }
  const root = asObject(json);
  if (root === undefined) return { ok: false, reason: 'the callback body is not a JSON object' };
  if (root['type'] !== TRANSACTION_UPDATE) {
    return {
      ok: false,
      reason: `the callback type is ${typeof root['type'] === 'string' ? JSON.stringify(root['type'].slice(0, 40)) : 'missing'}, not ${TRANSACTION_UPDATE}`,
    };
  }
  const data = asObject(root['data']);
  const id = data?.['requestId'] ?? data?.['request_id'];
  if (typeof id !== 'string' || id === '') return { ok: false, reason: 'the callback names no requestId' };
  // Bounded before it reaches the store or a log line; the lookup decides whether it is ours.
  if (!REQUEST_ID.test(id)) return { ok: false, reason: 'the callback requestId is not a request id' };
  return { ok: true, reference: id };
}
