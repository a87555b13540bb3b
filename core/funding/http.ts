/**
 * The funding providers' HTTP calls (Paystack, Monnify), through the platform's one outbound
 * client (runtime/outbound-http.ts: undici's request on a keep-alive Agent, no redirect followed,
 * bounded time and size). What the funding providers add: JSON both ways with the caller's
 * `Authorization`, and a call that throws when it did not get a readable answer (no answer, a
 * redirect, a body past the bound), since every use of a funding provider's answer is a
 * re-query or an opening that the caller retries or reports, never money decided on silence.
 */
import { type OutboundRequest, outboundClient } from '../../runtime/outbound-http.js';

/** Connections at most to one funding provider's host; idle ones are kept for the next call. */
const MAX_CONNECTIONS_PER_FUNDING_PROVIDER = 64;

/** The bound on each phase of a call, behind the caller's signal (the funding service's 15 s). */
const PHASE_BOUND_MS = 60_000;

const FUNDING_PROVIDERS = outboundClient({
  connections: MAX_CONNECTIONS_PER_FUNDING_PROVIDER,
  timeoutMs: PHASE_BOUND_MS,
});

/** A funding provider's answer larger than this is not one we can trust to parse: an error. */
const MAX_ANSWER_BYTES = 1_000_000;

/** A JSON object as the funding providers send it. */
export type Json = Record<string, unknown>;

/** The object at `value`, or an empty one: a provider's answer is read without trusting its shape. */
export function obj(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

/** The text at `value` (a number as its digits), or ''. */
export function str(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** The methods the funding providers' APIs use. */
export type FundingMethod = OutboundRequest['method'];

/** A funding provider's calls as its adapter makes them: a path on its base, its own answer type. */
export type FundingCall<Answer> = (
  method: FundingMethod,
  path: string,
  body: Json | undefined,
  signal: AbortSignal,
) => Promise<Answer>;

interface FundingRequest {
  method: FundingMethod;
  /** The whole `Authorization` header (a bearer token, Basic credentials). */
  authorization: string;
  /** Sent as JSON, when the call has a body. */
  body?: Json;
  signal: AbortSignal;
}

/** What came back: the HTTP status and the body's JSON object (empty when it was not one). */
interface FundingReply {
  status: number;
  body: Json;
}

/** One JSON request to a funding provider; `who` names it in errors ("paystack"). */
export async function requestJson(url: string, call: FundingRequest, who: string): Promise<FundingReply> {
  const answer = await FUNDING_PROVIDERS.send({
    url: new URL(url),
    method: call.method,
    headers: {
      Authorization: call.authorization,
      Accept: 'application/json',
      ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    signal: call.signal,
    maxBytes: MAX_ANSWER_BYTES,
  });
  switch (answer.kind) {
    case 'no_answer':
      throw answer.error;
    case 'redirect':
      throw new Error(`${who}: redirect refused (${answer.status})`);
    case 'too_large':
      throw new Error(`${who}: answer too large`);
    case 'answer':
      return { status: answer.status, body: obj(parsed(answer.text)) };
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
