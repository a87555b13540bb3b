/**
 * How a client process reaches the core: one gRPC (HTTP/2) connection through the lean unary
 * transport (grpc-transport.ts), with the caller's bearer token on every call and a deadline
 * on any call that names none. The gateway, the dashboard and internal tools build their
 * Connect clients on it, so that they all reach the core the same way.
 */
import type { Interceptor } from '@connectrpc/connect';
import { createUnaryGrpcTransport, type UnaryGrpcTransport } from './grpc-transport.js';

export interface CoreTransportOptions {
  /** The core's base URL, for example http://127.0.0.1:50051. */
  coreUrl: string;
  /** The bearer token presented on every call (the service token, or the admin token). */
  token: string;
  /** Deadline of a call that names none. */
  defaultTimeoutMs: number;
}

/** A transport to the core that authenticates every call; close() ends its connection. */
export function createCoreTransport(options: CoreTransportOptions): UnaryGrpcTransport {
  const authorization = `Bearer ${options.token}`;
  const addToken: Interceptor = (next) => async (req) => {
    req.header.set('authorization', authorization);
    return next(req);
  };
  return createUnaryGrpcTransport({ baseUrl: options.coreUrl, interceptors: [addToken], defaultTimeoutMs: options.defaultTimeoutMs });
}
