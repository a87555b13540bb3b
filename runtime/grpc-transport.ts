/**
 * A lean gRPC transport for Connect clients, for unary calls over one HTTP/2 connection.
 *
 * Why: Connect's own gRPC transport runs every unary call through its streaming machinery
 * (async-iterable pipelines for the body, header conversions both ways, a deadline signal
 * and a linked AbortController that is aborted with a fresh ConnectError when each call
 * completes). Measured with `npm run bench`, that halves what one HTTP->gRPC hop can do
 * next to a plain grpc-js client on the same machine, while the process sits partly idle.
 * This transport implements Connect's public `Transport` interface directly: one
 * `session.request`, one envelope written with END_STREAM, the reply collected and parsed
 * once (with the compiled codec of runtime/proto-codec/), the status read with Connect's own `findTrailerError` (so
 * error details such as
 * google.rpc.ErrorInfo reach `ConnectError.findDetails` exactly as before). Clients,
 * interceptors and errors stay Connect's; streaming calls go to the stock transport.
 */
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import {
  create,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import {
  Code,
  ConnectError,
  type ContextValues,
  createContextKey,
  createContextValues,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from '@connectrpc/connect';
import { findTrailerError } from '@connectrpc/connect/protocol-grpc';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { protoDecoder, protoEncoder } from './proto-codec/codec.js';

export interface UnaryGrpcTransportOptions {
  /**
   * The server: http://127.0.0.1:50051 is plaintext HTTP/2 (prior knowledge); an https://
   * URL always means TLS, with the server's certificate verified.
   */
  baseUrl: string;
  /** The CA certificates (PEM) an https:// server's certificate must chain to; the system's roots when absent. */
  ca?: Buffer | string;
  interceptors?: Interceptor[];
  /** Deadline of a call that names none; sent as grpc-timeout and enforced here. */
  defaultTimeoutMs?: number;
  /** Largest reply accepted, so a broken server cannot fill our memory. */
  readMaxBytes?: number;
}

export interface UnaryGrpcTransport extends Transport {
  /** Ends the HTTP/2 connection for good; calls after this fail with Unavailable. */
  close(): void;
}

/** A reply above 4 MiB is refused, as grpc-js does by default. */
const DEFAULT_READ_MAX_BYTES = 4 * 1024 * 1024;
/** The 5-byte gRPC message prefix: a compression flag and a big-endian length. */
const ENVELOPE_PREFIX_BYTES = 5;
const NEVER_ABORTED = new AbortController().signal;
/** grpc-status of a call that succeeded. */
const GRPC_STATUS_OK = '0';

type UnaryFn = (req: UnaryRequest) => Promise<UnaryResponse>;

/** Where a call asks for its reply undecoded; see replyBytes. */
interface ReplyBytesHolder {
  bytes: Uint8Array | undefined;
}

const REPLY_BYTES = createContextKey<ReplyBytesHolder | undefined>(undefined, { description: 'the reply, undecoded' });

/**
 * The reply of a unary call as the server sent it (the message's protobuf bytes, without
 * its envelope), for a caller that turns it straight into something else instead of into a
 * message first: the gateway writes history pages from it (gateway/actions/page-json.ts).
 * `call` makes the call with the options it is given; it goes through the interceptors,
 * deadlines and errors of every call. Only this transport keeps the bytes: on another, the
 * call fails loudly rather than answer with an empty message.
 */
export async function replyBytes(
  call: (options: { contextValues: ContextValues }) => Promise<unknown>,
): Promise<Uint8Array> {
  const holder: ReplyBytesHolder = { bytes: undefined };
  await call({ contextValues: createContextValues().set(REPLY_BYTES, holder) });
  if (holder.bytes === undefined)
    throw new Error('the transport did not keep the reply undecoded (only the unary gRPC transport does)');
  return holder.bytes;
}

export function createUnaryGrpcTransport(options: UnaryGrpcTransportOptions): UnaryGrpcTransport {
  const base = new URL(options.baseUrl);
  const authority = `${base.protocol}//${base.host}`;
  const readMaxBytes = options.readMaxBytes ?? DEFAULT_READ_MAX_BYTES;
  const streaming = createGrpcTransport({
    baseUrl: options.baseUrl,
    interceptors: options.interceptors ?? [],
    ...(options.ca === undefined ? {} : { nodeOptions: { ca: options.ca } }),
  });
  const sessions = createSessionHolder(authority, base, options.ca);
  const send: UnaryFn = (req) => sendUnary(req, { hold: sessions.hold, authority, readMaxBytes });

  // Interceptors wrap `send` the way Connect applies them: the first one outermost.
  const call = (options.interceptors ?? []).reduceRight<UnaryFn>(
    (next, interceptor) => interceptor(next as never) as never,
    send,
  );

  return {
    unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      const headers = new Headers(header);
      const deadlineMs = timeoutMs ?? options.defaultTimeoutMs;
      if (deadlineMs !== undefined) headers.set('grpc-timeout', `${Math.max(1, Math.ceil(deadlineMs))}m`);
      const req: UnaryRequest<I, O> = {
        stream: false,
        service: method.parent,
        method,
        requestMethod: 'POST',
        url: `${authority}/${method.parent.typeName}/${method.name}`,
        signal: signal ?? NEVER_ABORTED,
        header: headers,
        contextValues: contextValues ?? createContextValues(),
        message: create(method.input, input) as MessageShape<I>,
      };
      return call(req as never) as Promise<UnaryResponse<I, O>>;
    },
    stream: (...args) => streaming.stream(...args),
    close: sessions.close,
  };
}

/** A connection held for one call; `release` lets it go (once, however often it is called). */
interface HeldSession {
  session: http2.ClientHttp2Session;
  release(): void;
}

/**
 * The one HTTP/2 connection of a transport, dialled on first use and again after it is lost.
 * An idle connection must not keep the process alive, but a call in flight must: a caller
 * with nothing else to do (a CLI command without a deadline) would otherwise see the event
 * loop empty before its answer, and Node end it with exit 13. So the connection is
 * referenced while it carries at least one call, and unreferenced when the last one ends.
 */
function createSessionHolder(
  authority: string,
  base: URL,
  ca: Buffer | string | undefined,
): { hold(): HeldSession; close(): void } {
  let current: { session: http2.ClientHttp2Session; hold(): HeldSession } | undefined;
  let closed = false;

  const open = () => {
    const session = http2.connect(authority, { createConnection: () => dial(base, ca) });
    const opened = { session, hold: holdFor(session) };
    // A failed or closed connection is forgotten, so the next call dials again; the calls
    // on it fail with their own stream errors.
    const forget = () => {
      if (current === opened) current = undefined;
    };
    session.on('error', forget);
    session.on('close', forget);
    session.on('goaway', forget);
    session.unref();
    return opened;
  };

  return {
    hold() {
      if (closed) throw new Error('the transport was closed');
      if (!current || current.session.closed || current.session.destroyed) current = open();
      return current.hold();
    },
    close() {
      closed = true;
      current?.session.close();
      current = undefined;
    },
  };
}

/** Counts the calls on `session`, referencing it from the first until the last is released. */
function holdFor(session: http2.ClientHttp2Session): () => HeldSession {
  let inFlight = 0;
  return () => {
    if (inFlight === 0) session.ref();
    inFlight += 1;
    let released = false;
    return {
      session,
      release() {
        if (released) return;
        released = true;
        inFlight -= 1;
        if (inFlight === 0) session.unref();
      },
    };
  };
}

/**
 * The socket under a session: plain TCP for http://, TLS for https:// (never a fallback to
 * plain text), verifying the certificate against `ca` or the system's roots and the name in
 * the URL. Nagle off either way: a unary call is a few small frames that must leave at
 * once, not wait for the previous call's ACK (grpc-js does the same on its sockets).
 */
function dial(base: URL, ca: Buffer | string | undefined): net.Socket {
  const host = base.hostname.replace(/^\[|\]$/g, '');
  if (base.protocol !== 'https:') return net.connect({ host, port: Number(base.port || 80), noDelay: true });
  const socket = tls.connect({
    host,
    port: Number(base.port || 443),
    // SNI carries names only; an IP address is checked against the certificate's IP entries.
    ...(net.isIP(host) === 0 ? { servername: host } : {}),
    ALPNProtocols: ['h2'],
    ...(ca === undefined ? {} : { ca }),
  });
  socket.setNoDelay(true);
  return socket;
}

/** Where one call goes and how much of a reply it accepts. */
interface CallTarget {
  /** The connection for one call, referenced until the call releases it. */
  hold: () => HeldSession;
  authority: string;
  readMaxBytes: number;
}

/** One unary call on its own stream: the request written at once, the reply collected, then parsed. */
function sendUnary(req: UnaryRequest, target: CallTarget): Promise<UnaryResponse> {
  return new Promise((resolve, reject) => {
    const { authority } = target;
    // Encoded first: a message that cannot be encoded fails the call before a stream is opened.
    const framed = envelope(req);
    let held: HeldSession | undefined;
    let stream: http2.ClientHttp2Stream;
    try {
      held = target.hold();
      stream = held.session.request(requestHeaders(req));
    } catch (error) {
      held?.release();
      reject(new ConnectError(`cannot reach ${authority}: ${(error as Error).message}`, Code.Unavailable));
      return;
    }
    const { release } = held;

    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (error: ConnectError | undefined, response?: UnaryResponse) => {
      if (settled) return;
      settled = true;
      release();
      if (timer) clearTimeout(timer);
      if (cancellable) req.signal.removeEventListener('abort', onAbort);
      if (error) {
        if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
        reject(error);
      } else {
        resolve(response!);
      }
    };
    const onAbort = () => finish(new ConnectError('the call was cancelled', Code.Canceled));
    // Most calls pass no signal; listening on the shared never-aborted one would only pile up listeners.
    const cancellable = req.signal !== NEVER_ABORTED;
    if (req.signal.aborted) return onAbort();
    if (cancellable) req.signal.addEventListener('abort', onAbort);
    // unary() put the deadline in grpc-timeout (always in milliseconds, "<n>m").
    const deadline = req.header.get('grpc-timeout');
    if (deadline) {
      timer = setTimeout(
        () => finish(new ConnectError('the operation timed out', Code.DeadlineExceeded)),
        Number.parseInt(deadline, 10),
      );
    }
    collectReply(stream, req, target, finish);
    stream.end(framed);
  });
}

/** The HTTP/2 request headers of a call: gRPC's own, then the caller's (token, deadline). */
function requestHeaders(req: UnaryRequest): http2.OutgoingHttpHeaders {
  const headers: http2.OutgoingHttpHeaders = {
    ':method': 'POST',
    ':path': `/${req.method.parent.typeName}/${req.method.name}`,
    'content-type': 'application/grpc+proto',
    te: 'trailers',
  };
  req.header.forEach((value, key) => {
    headers[key] = value;
  });
  return headers;
}

/** The request message in its 5-byte gRPC envelope. */
function envelope(req: UnaryRequest): Buffer {
  const payload = protoEncoder(req.method.input)(req.message);
  const framed = Buffer.allocUnsafe(ENVELOPE_PREFIX_BYTES + payload.byteLength);
  framed[0] = 0;
  framed.writeUInt32BE(payload.byteLength, 1);
  framed.set(payload, ENVELOPE_PREFIX_BYTES);
  return framed;
}

type Finish = (error: ConnectError | undefined, response?: UnaryResponse) => void;

/** Collects the reply of `stream`, bounded by readMaxBytes, and finishes the call when it closes. */
function collectReply(stream: http2.ClientHttp2Stream, req: UnaryRequest, target: CallTarget, finish: Finish): void {
  const reply: RawReply = { status: 0, header: {}, trailer: {}, chunks: [], received: 0 };
  stream.on('response', (incoming) => {
    reply.status = Number(incoming[':status'] ?? 0);
    reply.header = incoming;
  });
  stream.on('data', (chunk: Buffer) => {
    reply.received += chunk.length;
    if (reply.received > target.readMaxBytes + ENVELOPE_PREFIX_BYTES) {
      finish(new ConnectError(`the reply is larger than ${target.readMaxBytes} bytes`, Code.ResourceExhausted));
      return;
    }
    reply.chunks.push(chunk);
  });
  stream.on('trailers', (incoming) => {
    reply.trailer = incoming;
  });
  stream.on('error', (error: Error) =>
    finish(new ConnectError(`the call to ${target.authority} failed: ${error.message}`, Code.Unavailable)),
  );
  stream.on('close', () => {
    const outcome = parseReply(req, reply, target.authority);
    if (outcome instanceof ConnectError) finish(outcome);
    else finish(undefined, outcome);
  });
}

/**
 * A reply as it came: the status, node's plain header objects (turned into Headers only if
 * someone reads them, an interceptor or an onHeader/onTrailer callback, since the conversion
 * is a measurable part of a call and the gateway's own calls never look) and the body.
 */
interface RawReply {
  status: number;
  header: http2.IncomingHttpHeaders;
  trailer: http2.IncomingHttpHeaders;
  chunks: Buffer[];
  received: number;
}

/** The response of a closed stream, or the error it ended with. */
function parseReply(req: UnaryRequest, reply: RawReply, authority: string): UnaryResponse | ConnectError {
  const { status } = reply;
  if (status !== 200)
    return new ConnectError(
      `HTTP ${status || 'no status'} from ${authority}`,
      status === 0 ? Code.Unavailable : httpStatusCode(status),
    );
  // A trailers-only reply carries its status in the headers. A plain OK is read as is;
  // anything else goes through Connect's own parsing, error details and all.
  const statusHeaders = reply.trailer['grpc-status'] !== undefined ? reply.trailer : reply.header;
  if (statusHeaders['grpc-status'] !== GRPC_STATUS_OK || statusHeaders['grpc-status-details-bin'] !== undefined) {
    const error = findTrailerError(toHeaders(statusHeaders));
    if (error) return error;
  }
  const body = reply.chunks.length === 1 ? reply.chunks[0]! : Buffer.concat(reply.chunks, reply.received);
  if (
    body.length < ENVELOPE_PREFIX_BYTES ||
    body[0] !== 0 ||
    body.readUInt32BE(1) !== body.length - ENVELOPE_PREFIX_BYTES
  ) {
    return new ConnectError('the reply is not one uncompressed gRPC message', Code.Internal);
  }
  let message: MessageShape<DescMessage>;
  try {
    const holder = req.contextValues.get(REPLY_BYTES);
    if (holder === undefined) {
      message = protoDecoder(req.method.output)(body.subarray(ENVELOPE_PREFIX_BYTES));
    } else {
      // The caller reads the bytes itself; the message it is handed is the empty one.
      holder.bytes = body.subarray(ENVELOPE_PREFIX_BYTES);
      message = create(req.method.output);
    }
  } catch (error) {
    return new ConnectError(`the reply cannot be parsed: ${(error as Error).message}`, Code.Internal);
  }
  let header: Headers | undefined;
  let trailer: Headers | undefined;
  return {
    stream: false,
    service: req.method.parent,
    method: req.method,
    message,
    get header() {
      header ??= toHeaders(reply.header);
      return header;
    },
    get trailer() {
      trailer ??= toHeaders(reply.trailer);
      return trailer;
    },
  };
}

function toHeaders(incoming: http2.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(incoming)) {
    if (key.startsWith(':') || value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.set(key, String(value));
  }
  return headers;
}

/** The gRPC code for an HTTP status that is not 200 (the gRPC over HTTP/2 spec's table). */
function httpStatusCode(status: number): Code {
  switch (status) {
    case 400:
      return Code.Internal;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.Unimplemented;
    case 429:
    case 502:
    case 503:
    case 504:
      return Code.Unavailable;
    default:
      return Code.Unknown;
  }
}
