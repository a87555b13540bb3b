/**
 * The one way the VTpass adapter talks HTTP: fetch with the caller's AbortSignal, no
 * redirects (a redirect would carry our key headers to another host), a hard bound on the
 * answer's size, and a JSON parse that cannot throw. It never logs and never puts a header
 * into an error message, so no credential can leave through it.
 */

import type { ProviderOutcome } from '../port.js';

/** What came back from one HTTP exchange. */
export type HttpAnswer =
  /** The upstream answered. `json` is undefined when the body was not JSON or too large. */
  | { kind: 'answer'; status: number; json: unknown; problem?: string; text?: string }
  /**
   * No answer: timeout, reset, refused. `delivered` is false only when the request provably
   * never reached the upstream (the connection was refused or the host name did not
   * resolve), which is the one case where sending a purchase again cannot buy it twice.
   */
  | { kind: 'no_answer'; reason: string; delivered: boolean; cause: NoAnswerCause };

/**
 * Why no answer came, as far as this machine can tell (the failover rules of
 * core/providers/failover.ts read it). `refused`, `dns` and `tls` fail before any byte of the
 * request is written. A `reset`
 * is counted as possibly after writing: fetch does not tell whether the request had left,
 * so a reset never proves non-delivery.
 */
type NoAnswerCause = 'refused' | 'dns' | 'tls' | 'timeout' | 'reset' | 'other';

/** One request to send. */
export interface HttpRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  signal: AbortSignal;
  /** The largest answer read; anything longer is cut off and counts as malformed. */
  maxBytes: number;
}

/** The fetch to use; tests and callers may pass their own, Node's global one by default. */
export type Fetch = typeof fetch;

/** Socket errors that mean the request never left this machine or never reached a server. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The outcome with the answer's body beside it (`raw`), for the operator: as it
 * came; core/domain/raw-answers.ts cleans it before it is stored.
 */
export function withRaw(outcome: ProviderOutcome, answer: HttpAnswer): ProviderOutcome {
  if (answer.kind !== 'answer') return outcome;
  return { ...outcome, raw: { httpStatus: answer.status, body: answer.text ?? `(${answer.problem ?? 'no body'})` } };
}

/** Sends one request and reads a bounded JSON answer. Never rejects. */
export async function exchange(request: HttpRequest, fetchImpl: Fetch = fetch): Promise<HttpAnswer> {
  let response: Response;
  try {
    response = await fetchImpl(request.url, {
      method: request.method,
      headers: {
        accept: 'application/json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      redirect: 'error',
      signal: request.signal,
    });
  } catch (error) {
    return {
      kind: 'no_answer',
      reason: describeFailure(error, request.signal),
      delivered: !notSent(error),
      cause: causeOf(error, request.signal),
    };
  }
  let text: string | undefined;
  try {
    text = await readBounded(response, request.maxBytes);
  } catch (error) {
    // The headers arrived but the body did not: the upstream did receive the request.
    return {
      kind: 'no_answer',
      reason: describeFailure(error, request.signal),
      delivered: true,
      cause: request.signal.aborted ? 'timeout' : 'reset',
    };
  }
  if (text === undefined)
    return {
      kind: 'answer',
      status: response.status,
      json: undefined,
      problem: `answer larger than ${request.maxBytes} bytes`,
    };
  try {
    return { kind: 'answer', status: response.status, json: JSON.parse(text) as unknown, text };
  } catch {
    return { kind: 'answer', status: response.status, json: undefined, problem: 'answer is not JSON', text };
  }
}

/**
 * Reads at most `maxBytes` of the body as UTF-8, or undefined when it is longer (the rest
 * is not downloaded). A declared length over the bound is refused before reading.
 */
async function readBounded(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Certificate and handshake errors: the TLS session never opened, so no request was written. */
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|ERR_OSSL_|EPROTO$)/;

function causeOf(error: unknown, signal: AbortSignal): NoAnswerCause {
  if (signal.aborted) return 'timeout';
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (TLS_CODE.test(code)) return 'tls';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'reset';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout';
  return 'other';
}

function notSent(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' && NOT_SENT_CODES.has(cause.code);
}

/** A short reason for logs and pending transactions; a URL, header or key is never in it. */
function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) {
    const reason = signal.reason instanceof Error ? signal.reason.message : 'the call was cancelled';
    return `no answer from the provider: ${reason}`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : error instanceof Error ? error.name : 'error';
  return `no answer from the provider (${code})`;
}

/**
 * Waits `ms` unless the signal aborts first, for the pause between two attempts. Resolves
 * false when the signal aborted, so the caller stops retrying instead of throwing.
 */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
