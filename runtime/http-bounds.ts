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
 * whose `admit` is the first call of its request handler. A request the server cannot read
 * (too slow, too large, malformed) is answered with `answerAndClose`, which frees the
 * connection once the answer is written instead of waiting for the client to close its side.
 */
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BlockList, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { normalizeAddress } from './client-ip.js';

/** A client gets this long to send its headers before it is answered 408 and dropped. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** ...and this long to send its whole request. */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How often the two time-outs above are checked. Node checks them on a timer, every 30 s by
 * default, so a client that stopped half-way through its headers held its connection for up
 * to 40 s instead of 10; checked twice a second, a time-out is enforced within half a second
 * of its documented length. Each check walks the open connections (a few thousand at most).
 */
const TIMEOUT_CHECK_INTERVAL_MS = 500;
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
 * Open connections at once from one client address (an IPv6 client by its /64, as every
 * throttle counts it: core/domain/addresses.ts). Without it one address could hold all
 * MAX_OPEN_CONNECTIONS with half-sent requests, and the port refused everyone else until they
 * timed out; with it, one address holds at most a sixteenth of the port. A reseller's pool
 * or an office behind one address opens tens of connections, not hundreds; a reverse proxy
 * carries many clients on its connections, so the trusted proxies are not counted. Past it,
 * the address's new connections are closed at once.
 */
export const MAX_CONNECTIONS_PER_ADDRESS = 256;
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

/**
 * Bounds a server may change: tests lower the caps to reach them with few sockets and the
 * header time-out to see it pass; the gateway's per-address cap is CONNECTIONS_PER_ADDRESS.
 */
export interface HttpBounds {
  maxOpenConnections: number;
  maxConnectionsPerAddress: number;
  maxPipelinedRequests: number;
  socketIdleTimeoutMs: number;
  headersTimeoutMs: number;
}

const DEFAULT_HTTP_BOUNDS: Readonly<HttpBounds> = {
  maxOpenConnections: MAX_OPEN_CONNECTIONS,
  maxConnectionsPerAddress: MAX_CONNECTIONS_PER_ADDRESS,
  maxPipelinedRequests: MAX_PIPELINED_REQUESTS,
  socketIdleTimeoutMs: SOCKET_IDLE_TIMEOUT_MS,
  headersTimeoutMs: HEADERS_TIMEOUT_MS,
};

/** The options of `http.createServer` that carry the header-size and slow-client bounds. */
export function boundedServerOptions(bounds: Partial<HttpBounds> = {}): http.ServerOptions {
  const headersTimeout = bounds.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  return {
    headersTimeout,
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout),
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    maxHeaderSize: MAX_HEADER_BYTES,
  };
}

/** Whose connections are counted per address, and by which key. */
export interface PeerRule {
  /** The budget key of a client address (core/domain/addresses.ts's `addressBudgetKey`). */
  budgetKey(address: string): string;
  /** Reverse proxies the server trusts: their connections carry many clients and are not counted. */
  trustedProxies: BlockList;
}

/** What a bounded server's request handler calls first. */
export interface BoundedServer {
  /**
   * Counts the request against its connection's pipelining bound; false when the connection
   * went past it and was closed, and the request must be dropped without anything done for it.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
}

/**
 * Sets the connection caps (the port's and each address's) and the idle time-out on `server`,
 * and returns its pipelining check.
 */
export function applyHttpBounds(server: http.Server, peers: PeerRule, bounds: Partial<HttpBounds> = {}): BoundedServer {
  const { maxOpenConnections, maxConnectionsPerAddress, maxPipelinedRequests, socketIdleTimeoutMs } = {
    ...DEFAULT_HTTP_BOUNDS,
    ...bounds,
  };
  server.maxConnections = maxOpenConnections;
  server.setTimeout(socketIdleTimeoutMs, (socket) => socket.destroy());
  capPerAddress(server, peers, maxConnectionsPerAddress);
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

/**
 * Closes a connection at once when its address already holds `cap` of them. Counted on the
 * TCP connection (an https server's too, before its handshake), so a client cannot spend a
 * slot before it is counted.
 */
function capPerAddress(server: http.Server, peers: PeerRule, cap: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = normalizeAddress(socket.remoteAddress ?? '');
    if (address === undefined) return;
    if (peers.trustedProxies.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')) return;
    const key = peers.budgetKey(address);
    const count = (open.get(key) ?? 0) + 1;
    if (count > cap) {
      socket.destroy();
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
}

/**
 * Writes `answer` (a whole HTTP response) to a connection whose request cannot be served, and
 * destroys the connection once it is written. Ending it alone would wait for the client to
 * close its side too, and a client that never does kept the slot until the idle time-out.
 */
export function answerAndClose(socket: Duplex, answer: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(answer, () => socket.destroy());
}
