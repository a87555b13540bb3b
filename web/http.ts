/**
 * The HTTP plumbing every server-rendered web app of the core shares (dashboard/, console/):
 * reading the request target and a form, and writing a page or a redirect. Answers are never
 * cached: every page may carry a CSRF token or a secret.
 */

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { type AddressInfo, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  answerAndClose,
  applyHttpBounds,
  boundedServerOptions,
  type HttpBounds,
  LISTEN_BACKLOG,
  type PeerRule,
} from '../runtime/http-bounds.js';
import type { Stoppable } from '../runtime/lifecycle.js';
import { bindError } from '../runtime/ports.js';
import type { SafeHtml } from './html.js';

/** A form is a handful of fields; nothing legitimate comes close. */
const MAX_FORM_BYTES = 64 * 1024;

/** Reads an application/x-www-form-urlencoded body up to MAX_FORM_BYTES; undefined when larger. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk);
  }
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  // Only what an HTML form sends; anything else carries no fields (and so no CSRF token).
  if (type !== 'application/x-www-form-urlencoded') return new URLSearchParams();
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export function sendPage(res: ServerResponse, status: number, body: SafeHtml, headOnly = false): void {
  const payload = Buffer.from(body.text, 'utf8');
  // Every page may carry a CSRF token or a secret; none is kept by a browser or a proxy.
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': payload.length,
    'Cache-Control': 'no-store',
  });
  res.end(headOnly ? undefined : payload);
}

export function redirect(res: ServerResponse, location: string, setCookies: readonly string[]): void {
  if (setCookies.length > 0) res.setHeader('Set-Cookie', setCookies);
  res.writeHead(303, { Location: location, 'Cache-Control': 'no-store', 'Content-Length': 0 });
  res.end();
}

/** A socket's or header's address as plain text: no brackets, IPv4-mapped IPv6 as IPv4. */
export function plainAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '');
  return bare.startsWith('::ffff:') && isIP(bare.slice(7)) === 4 ? bare.slice(7) : bare;
}

/** A web app's server (not listening yet) and how to stop it. */
export interface WebServer {
  server: http.Server;
  /** Stops accepting connections and waits for open requests to finish. */
  close(): Promise<void>;
  /** Drops every connection still open. */
  forceClose(): void;
}

/**
 * An HTTP server that keeps the gateway's connection, pipelining, header and idle bounds
 * (runtime/http-bounds.ts), with each client address's connections counted by `peers`,
 * answers a request it cannot read with a bare 408 (too slow) or 400 and frees its
 * connection at once, and tracks its sockets so that a stop can drop them. `handle` runs for
 * every request the bounds admit. With `tls` (PEM certificate chain and key) it serves https
 * only, with the same bounds.
 */
export function boundedWebServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  options: {
    peers: PeerRule;
    bounds?: Partial<HttpBounds> | undefined;
    tls?: { cert: Buffer; key: Buffer } | undefined;
  },
): WebServer {
  const { peers, bounds: overrides, tls } = options;
  const open = new Set<Socket>();
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (bounds.admit(req, res)) handle(req, res);
  };
  // An https server is an http server over TLS sockets: the same requests, options and bounds.
  const server =
    tls === undefined
      ? http.createServer(boundedServerOptions(overrides), listener)
      : (https.createServer(
          { ...boundedServerOptions(overrides), cert: tls.cert, key: tls.key },
          listener,
        ) as unknown as http.Server);
  const bounds = applyHttpBounds(server, peers, overrides);
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    answerAndClose(socket, `HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  });
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
    forceClose() {
      for (const socket of open) socket.destroy();
    },
  };
}

/** A web app listening: where, and how process lifecycle (runtime/lifecycle.ts) stops it. */
export interface RunningWebApp extends Stoppable {
  /** http://host:port (https:// when it serves TLS) as a browser on this machine opens it. */
  url: string;
  port: number;
  drain(): void;
  close(): Promise<void>;
  forceClose(): void;
}

/**
 * Binds a built web app and hands back how to stop it: the server first, then its connection
 * to the core (`closeCore`), then `<service>.stopped` in its log. A failed bind closes the
 * connection and says which variables name the address.
 */
export async function listenWebApp(options: {
  app: WebServer;
  names: { host: string; port: string };
  host: string;
  port: number;
  closeCore(): void;
  log: Stoppable['log'];
  service: string;
  shutdownTimeoutMs: number;
}): Promise<RunningWebApp> {
  const { app, log } = options;
  try {
    await new Promise<void>((resolve, reject) => {
      app.server.once('error', reject);
      app.server.listen({ port: options.port, host: options.host, backlog: LISTEN_BACKLOG }, () => {
        app.server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    options.closeCore();
    throw bindError(options.names, options.host, options.port, error);
  }
  const { port } = app.server.address() as AddressInfo;
  const shownHost = options.host === '::' || options.host === '0.0.0.0' ? '127.0.0.1' : options.host;
  const scheme = app.server instanceof https.Server ? 'https' : 'http';
  let closing: Promise<void> | undefined;
  return {
    url: `${scheme}://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`,
    port,
    shutdownTimeoutMs: options.shutdownTimeoutMs,
    drainMs: 0,
    log,
    drain() {},
    close() {
      closing ??= (async () => {
        try {
          await app.close();
        } finally {
          options.closeCore();
        }
        log.info(`${options.service}.stopped`, {});
      })();
      return closing;
    },
    forceClose() {
      app.forceClose();
      options.closeCore();
    },
  };
}

/** A form page's status: 400 when it shows field errors, else 200. */
export function formStatus(errors: readonly unknown[]): 400 | 200 {
  return errors.length > 0 ? 400 : 200;
}
