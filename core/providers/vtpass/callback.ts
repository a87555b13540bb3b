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
/** The update type VTpass sends when a service's variation codes (plans, their prices) change. */
const VARIATIONS_UPDATE = 'variations-update';
/** serviceIDs are short lower-case words joined by dashes ("mtn-data", "smile-direct"). */
const SERVICE_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

/**
 * A VTpass `variations-update` push: the serviceID whose variations changed, or why the
 * body is not one (`other`: another type, for the transaction parser). Only the serviceID
 * is taken: the push carries no signature, so the plans themselves are read again from
 * VTpass's own service-variations, and a forged push can do no more than start that read.
 */
export type ParsedVariationsUpdate =
  | { kind: 'variations'; serviceId: string }
  | { kind: 'other' }
  | { kind: 'bad'; reason: string };

export function parseVtpassVariationsUpdate(body: Uint8Array): ParsedVariationsUpdate {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return { kind: 'other' };
  }
  const root = asObject(json);
  if (root === undefined || root['type'] !== VARIATIONS_UPDATE) return { kind: 'other' };
  // The docs show serviceID at the top and again in data.content.
  const id = root['serviceID'] ?? asObject(asObject(root['data'])?.['content'])?.['serviceID'];
  if (typeof id !== 'string' || !SERVICE_ID.test(id))
    return { kind: 'bad', reason: 'the variations-update names no serviceID' };
  return { kind: 'variations', serviceId: id };
}

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
      reason: `the callback type is ${
        typeof root['type'] === 'string' ? JSON.stringify(root['type'].slice(0, 40)) : 'missing'
      }, not ${TRANSACTION_UPDATE}`,
    };
  }
  const data = asObject(root['data']);
  const id = data?.['requestId'] ?? data?.['request_id'];
  if (typeof id !== 'string' || id === '') return { ok: false, reason: 'the callback names no requestId' };
  // Bounded before it reaches the store or a log line; the lookup decides whether it is ours.
  if (!REQUEST_ID.test(id)) return { ok: false, reason: 'the callback requestId is not a request id' };
  return { ok: true, reference: id };
}
