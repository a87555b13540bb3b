/**
 * What an action module is: the HTTP method it answers and a handler that type-checks the
 * request, calls the core and shapes the public response. Rules about values (phone shape,
 * minimums, networks) are the core's; an action checks only what it needs to build the RPC.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { TierRecord } from '../../core/domain/records.js';
import { modeOfWord } from '../../core/domain/words.js';
import type { Mode as ProtoMode } from '../../gen/prepaid/v1/types_pb.js';
import type { Caller } from '../auth.js';
import type { JsonObject } from '../body.js';
import type { CoreClients } from '../core-client.js';
import type { EncodedJson } from '../reply.js';

/** Everything a handler may use: who is calling, what they sent, and the core. */
interface ActionContext {
  caller: Caller;
  /** The query string, `action` included. */
  query: URLSearchParams;
  /** The JSON body of a POST; an empty object for GET. */
  body: JsonObject;
  headers: IncomingHttpHeaders;
  core: CoreClients;
}

/** A successful answer: 200, or 202 for a purchase whose outcome is still pending. */
export interface ActionResult {
  httpStatus: 200 | 202;
  /** The JSON body, or its bytes when the action wrote them itself. */
  body: Record<string, unknown> | EncodedJson;
  headers?: Record<string, string>;
}

/** One `?action=` of the public API. */
export interface Action {
  method: 'GET' | 'POST';
  /** The key scope it needs (core/domain/key-controls.ts): checked before the body is read. */
  scope: string;
  handle(ctx: ActionContext): Promise<ActionResult>;
}

/**
 * Who a core call acts for: the caller's account in the caller's mode. Every action passes
 * it whole, so no call can act on the account without saying which of its wallets.
 */
export function accountOf(caller: Caller): { accountId: string; mode: ProtoMode } {
  return { accountId: caller.accountId, mode: modeOfWord(caller.mode) };
}

/**
 * Who a purchase acts for: as accountOf, the caller's key when it has a spend cap, so that
 * the core's reserve checks the cap (a key without one costs the reserve nothing), and the
 * caller's key always, for the core's velocity brake (counted in memory, no read).
 */
export function purchaserOf(caller: Caller): { accountId: string; mode: ProtoMode; cappedKey: string; key: string } {
  return { ...accountOf(caller), cappedKey: caller.spendCapped ? caller.publicKey : '', key: caller.publicKey };
}

/**
 * A tier without discounts, for running the core's pure order checks in the gateway
 * (FieldReader.done): only the field problems they find are used, never a price.
 */
export const NO_PRICING: Pick<TierRecord, 'tierId' | 'discounts'> = { tierId: '', discounts: [] };
