/**
 * The one HTTP client that calls out of the platform: the upstreams that sell us airtime and the
 * rest (core/providers/upstream-http.ts), the funding providers that bring money in
 * (core/funding/http.ts), and partners' webhook receivers (core/webhooks/destination.ts, which
 * adds its public-address check and a pool per account). undici's `request` over a keep-alive
 * Agent: the global `fetch` (its WHATWG Request, Headers and streams) took a fifth of the core's
 * busy time under the bench's funding load (docs/performance.md). The rules every caller shares:
 *
 * - No redirect is followed: a 3xx comes back as `redirect`, its body dropped. A redirect would
 *   carry our key headers, or a partner's signed body, to another host.
 * - Every phase is bounded in time (connecting, the headers, the body: the Agent's timeouts, behind
 *   the caller's own signal) and the answer in size: a declared length past the bound is refused
 *   before reading, and reading stops at the bound.
 * - Nothing secret leaves: it logs nothing, and `code` is an error code or name, never a URL, a
 *   header or a key.
 * - One reading of why no answer came (`NoAnswerCause`), the one the failover rule reads
 *   (core/providers/failover.ts, docs/upstreams.md).
 *
 * It lives in runtime/ because it knows nothing of money, upstreams or partners, and each of its
 * three callers is in a different room of core/ that may import runtime/ and not each other.
 */
import type net from 'node:net';
import { Agent } from 'undici';

/**
 * Why no answer came, as far as this machine can tell. `refused`, `dns` and `tls` fail before any
 * byte of the request is written: the only proof that the far side never saw it. A `reset` is
 * counted as possibly after writing (neither undici nor the socket tells whether the request had
 * left), so it proves nothing, like a `timeout` and anything else.
 */
export type NoAnswerCause = 'refused' | 'dns' | 'tls' | 'timeout' | 'reset' | 'other';

/** True when the cause proves the request was never written (the far side cannot have acted on it). */
export function neverWritten(cause: NoAnswerCause): cause is 'refused' | 'dns' | 'tls' {
  return cause === 'refused' || cause === 'dns' || cause === 'tls';
}

/** One request to send. */
export interface OutboundRequest {
  url: URL;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers: Record<string, string>;
  /** The body, already encoded. */
  body?: string;
  signal: AbortSignal;
  /** The largest answer read; a longer one is `too_large` (or, with `discard`, cut off). */
  maxBytes: number;
  /** `discard`: the body is read up to `maxBytes` and dropped (the caller needs the status only). */
  discard?: boolean;
}

/** What one request got. Never a rejection. */
export type OutboundAnswer =
  | { kind: 'answer'; status: number; text: string }
  | { kind: 'too_large'; status: number }
  | { kind: 'redirect'; status: number }
  | {
      kind: 'no_answer';
      cause: NoAnswerCause;
      /** True when the headers had come: the far side did receive the request. */
      afterHeaders: boolean;
      /** The error's code (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT) or name: safe to log. */
      code: string;
      /** The error itself, for a caller that words its own reasons or throws it on. */
      error: unknown;
    };

export interface OutboundClient {
  send(request: OutboundRequest): Promise<OutboundAnswer>;
  /** Lets the requests in flight end, then closes the connections. */
  close(): Promise<void>;
  /** Closes the connections now. */
  destroy(): Promise<void>;
}

/** A `fetch` to send through instead of undici (a test that counts attempts). */
export type Fetch = typeof fetch;

export interface OutboundOptions {
  /** Connections at most to one origin; idle ones are kept for the next request. */
  connections: number;
  /** The bound on connecting, on the headers and on the body, each (the caller's signal may be shorter). */
  timeoutMs: number;
  /** The name lookup of every connection (the webhook destinations' public-address check). */
  lookup?: net.LookupFunction;
  /** Sends through this `fetch` instead of the Agent: a test seam, with the same rules. */
  fetch?: Fetch;
}

/** A reply as the reading below needs it, from undici or from a `fetch`. */
interface Reply {
  status: number;
  declaredLength: string | undefined;
  body: AsyncIterable<Uint8Array>;
  drop(): void;
  discard(limit: number, signal: AbortSignal): Promise<void>;
}

/** The one client of a kind of callers; a caller that needs several pools makes several. */
export function outboundClient(options: OutboundOptions): OutboundClient {
  if (options.fetch !== undefined) {
    const send = replies(throughFetch(options.fetch));
    return { send, close: async () => {}, destroy: async () => {} };
  }
  const agent = new Agent({
    connections: options.connections,
    connectTimeout: options.timeoutMs,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    // undici hands these to net.connect / tls.connect: the address dialled is checked there.
    connect: options.lookup === undefined ? {} : { lookup: options.lookup },
  });
  return { send: replies(throughAgent(agent)), close: () => agent.close(), destroy: () => agent.destroy() };
}

function throughAgent(agent: Agent): (request: OutboundRequest) => Promise<Reply> {
  return async (request) => {
    // undici's request never follows a redirect.
    const answer = await agent.request({
      origin: request.url.origin,
      path: `${request.url.pathname}${request.url.search}`,
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: request.signal,
    });
    const length = answer.headers['content-length'];
    return {
      status: answer.statusCode,
      declaredLength: Array.isArray(length) ? length[0] : length,
      body: answer.body as AsyncIterable<Uint8Array>,
      drop: () => {
        // Destroyed before its end, the body emits an abort error: heard here, or it would crash the process.
        answer.body.on('error', () => {});
        answer.body.destroy();
      },
      discard: async (limit, signal) => {
        await answer.body.dump({ limit, signal });
      },
    };
  };
}

function throughFetch(fetchImpl: Fetch): (request: OutboundRequest) => Promise<Reply> {
  return async (request) => {
    const response = await fetchImpl(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
      signal: request.signal,
    });
    const drop = (): void => void response.body?.cancel().catch(() => undefined);
    return {
      status: response.status,
      declaredLength: response.headers.get('content-length') ?? undefined,
      body: response.body ?? EMPTY,
      drop,
      discard: async () => drop(),
    };
  };
}

const EMPTY: AsyncIterable<Uint8Array> = { async *[Symbol.asyncIterator]() {} };

function replies(dispatch: (request: OutboundRequest) => Promise<Reply>): OutboundClient['send'] {
  return async (request) => {
    let reply: Reply;
    try {
      reply = await dispatch(request);
    } catch (error) {
      return noAnswer(error, request.signal, false);
    }
    try {
      return await readReply(reply, request);
    } catch (error) {
      return noAnswer(error, request.signal, true);
    }
  };
}

async function readReply(reply: Reply, request: OutboundRequest): Promise<OutboundAnswer> {
  const status = reply.status;
  if (request.discard === true) {
    // Read and dropped, so the connection serves the next request; past the bound, closed.
    await reply.discard(request.maxBytes, request.signal);
    return status >= 300 && status < 400 ? { kind: 'redirect', status } : { kind: 'answer', status, text: '' };
  }
  if (status >= 300 && status < 400) {
    reply.drop();
    return { kind: 'redirect', status };
  }
  const declared = Number(reply.declaredLength ?? Number.NaN);
  if (Number.isFinite(declared) && declared > request.maxBytes) {
    reply.drop();
    return { kind: 'too_large', status };
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of reply.body) {
    received += chunk.byteLength;
    if (received > request.maxBytes) {
      // The rest is not downloaded.
      reply.drop();
      return { kind: 'too_large', status };
    }
    chunks.push(chunk);
  }
  return { kind: 'answer', status, text: Buffer.concat(chunks).toString('utf8') };
}

/** Certificate and handshake errors: the TLS session never opened, so no request was written. */
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|ERR_OSSL_|EPROTO$)/;

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function noAnswer(error: unknown, signal: AbortSignal, afterHeaders: boolean): OutboundAnswer {
  const code = codeOf(error);
  const cause = causeOf(code, signal);
  // Once the headers came, the far side had the request: nothing after them proves it did not.
  const read = afterHeaders && cause !== 'timeout' ? 'reset' : cause;
  return { kind: 'no_answer', cause: read, afterHeaders, code: code || nameOf(error), error };
}

function causeOf(code: string, signal: AbortSignal): NoAnswerCause {
  if (signal.aborted) return 'timeout';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (TLS_CODE.test(code)) return 'tls';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'reset';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  return 'other';
}

/** The first error code on the error or its causes (`fetch` wraps the socket's error in a TypeError). */
function codeOf(error: unknown): string {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth += 1) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return '';
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : 'error';
}
