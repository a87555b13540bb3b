/**
 * How a client process reaches the core: one gRPC (HTTP/2) connection through the lean unary
 * transport (grpc-transport.ts), with the caller's bearer token on every call and a deadline
 * on any call that names none. The gateway, the dashboard and internal tools build their
 * Connect clients on it, so that they all reach the core the same way: over TLS for an
 * https:// URL, and never with the token in plain text to another machine unless the
 * operator opted in (runtime/tls.ts).
 */
import type { Interceptor } from '@connectrpc/connect';
import { ConfigError } from './env-schema.js';
import { createUnaryGrpcTransport, type UnaryGrpcTransport } from './grpc-transport.js';
import { plaintextProblem } from './tls.js';

export interface CoreTransportOptions {
  /** The core's base URL, for example http://127.0.0.1:50051. */
  coreUrl: string;
  /** The bearer token presented on every call (the service token, or the admin token). */
  token: string;
  /** Deadline of a call that names none. */
  defaultTimeoutMs: number;
  /** The CA certificates (PEM) of an https:// core; the system's roots when absent. */
  ca?: Buffer | string;
  /** CORE_ALLOW_PLAINTEXT=yes: the operator accepts http:// to another machine. */
  allowPlaintext?: boolean;
  /** What counts as this machine; runtime/url.ts's isLoopbackHost unless a test says otherwise. */
  isLoopback?: (hostname: string) => boolean;
}

/**
 * A transport to the core that authenticates every call; close() ends its connection.
 * Throws a ConfigError (CORE_URL) before any connection is made when the token would travel
 * in plain text to another machine.
 */
export function createCoreTransport(options: CoreTransportOptions): UnaryGrpcTransport {
  const problem = plaintextProblem(new URL(options.coreUrl), options.allowPlaintext ?? false, options.isLoopback);
  if (problem !== undefined) throw new ConfigError('CORE_URL', problem);
  const authorization = `Bearer ${options.token}`;
  const addToken: Interceptor = (next) => async (req) => {
    req.header.set('authorization', authorization);
    return next(req);
  };
  return createUnaryGrpcTransport({
    baseUrl: options.coreUrl,
    interceptors: [addToken],
    defaultTimeoutMs: options.defaultTimeoutMs,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
}
