/**
 * The bounds every public web server of the platform keeps (the gateway, the developer area,
 * and the operator console): how many connections may be open at once, how many requests one
 * connection may have waiting for their answers, how large the headers may be, how long a
 * client may take to send them and its whole request, and how long a connection may sit with
 * nothing moving. They live here once so that no server is left without them: a server built
 * without them lets one address hold every file descriptor of the process (half-sent
 * requests) or grow it by gigabytes (pipelined requests it never reads the answers of).
 *
 * A server is built with `boundedServerOptions()` and then handed to `applyHttpBounds()`,
 * whose `admit` is the first call of its request handler.
 */
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** A client gets this long to send its headers, and its whole request, before it is dropped. */
export const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * Headers larger than this are refused before any handler sees them (Node's own default,
 * written down so that it cannot drift with a Node release or a command-line flag).
 */
export const MAX_HEADER_BYTES = 16 * 1024;
/**
 * Open connections at once. Each costs some kilobytes of buffers; clients keep a handful of
 * keep-alive connections each, so four thousand leaves room for many of them while a flood of
 * sockets cannot grow the process without bound (past it, new connections are closed at once).
 */
export const MAX_OPEN_CONNECTIONS = 4_096;
/**
 * Connections the kernel may hold for the server before it accepts them. Node's default, 511,
 * drops the SYNs of a burst past it (thousands of clients reconnecting after a restart, a
 * reseller's pool opening), and each dropped client waits out its kernel's one-second
 * retransmission: measured with 3,000 connections opening at once, a server that answers after
 * 2 s answered their first requests with p99 4.5 s, against 2.7 s with this backlog. As many
 * as may be open (MAX_OPEN_CONNECTIONS); the kernel caps it at net.core.somaxconn (4,096 by
 * default since Linux 5.4).
 */
export const LISTEN_BACKLOG = 4_096;
/**
 * Requests one connection may have waiting for their answers. HTTP/1.1 lets a client send
 * requests before reading answers; one that sends thousands and never reads would make the
 * server hold every answer. Real clients wait for each answer (or pipeline a few), so a
 * connection past this is closed.
 */
export const MAX_PIPELINED_REQUESTS = 16;
/** A connection with nothing moving either way for this long (a client that stopped reading) is closed. */
export const SOCKET_IDLE_TIMEOUT_MS = 120_000;

/** Bounds a server may tighten (tests lower the connection cap to reach it with few sockets). */
export interface HttpBounds {
  maxOpenConnections: number;
  maxPipelinedRequests: number;
  socketIdleTimeoutMs: number;
}

const DEFAULT_HTTP_BOUNDS: Readonly<HttpBounds> = {
  maxOpenConnections: MAX_OPEN_CONNECTIONS,
  maxPipelinedRequests: MAX_PIPELINED_REQUESTS,
  socketIdleTimeoutMs: SOCKET_IDLE_TIMEOUT_MS,
};

/** The options of `http.createServer` that carry the header-size and slow-client bounds. */
export function boundedServerOptions(): http.ServerOptions {
  return { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, maxHeaderSize: MAX_HEADER_BYTES };
}

/** What a bounded server's request handler calls first. */
export interface BoundedServer {
  /**
   * Counts the request against its connection's pipelining bound; false when the connection
   * went past it and was closed, and the request must be dropped without anything done for it.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
}

/** Sets the connection cap and the idle time-out on `server`, and returns its pipelining check. */
export function applyHttpBounds(server: http.Server, bounds: Partial<HttpBounds> = {}): BoundedServer {
  const { maxOpenConnections, maxPipelinedRequests, socketIdleTimeoutMs } = { ...DEFAULT_HTTP_BOUNDS, ...bounds };
  server.maxConnections = maxOpenConnections;
  server.setTimeout(socketIdleTimeoutMs, (socket) => socket.destroy());
  const waiting = new WeakMap<Duplex, number>();
  return {
    admit(req, res) {
      const socket = req.socket;
      const count = (waiting.get(socket) ?? 0) + 1;
      if (count > maxPipelinedRequests) {
        socket.destroy();
        return false;
      }
      waiting.set(socket, count);
      res.once('close', () => waiting.set(socket, (waiting.get(socket) ?? 1) - 1));
      return true;
    },
  };
}
