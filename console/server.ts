/**
 * The console's HTTP server: node:http, server-rendered pages, one stylesheet, no script. The
 * factory builds the server without listening; only console/main.ts (and tests, on port 0)
 * listen. Every request passes the web apps' door (web/door.ts): the security headers, the
 * static files, the CSRF token of a POST, the session lookup (ConsoleService.GetStaffSession)
 * and the core's refusals as pages. This file passes it the console's own cookie names, its
 * routes, its viewer and its pages; every decision about what a member may do is the core's.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { addressBudgetKey } from '../core/domain/addresses.js';
import { STAFF_SESSION_ABSOLUTE_MS } from '../core/domain/staff.js';
import { addressList, createClientIpResolver } from '../runtime/client-ip.js';
import type { HttpBounds } from '../runtime/http-bounds.js';
import {
  type DoorAnswer,
  type DoorCookies,
  type DoorLogger,
  type DoorPages,
  matchRoute,
  runRoute,
  type StaticFile,
  webDoor,
} from '../web/door.js';
import type { WebServer } from '../web/http.js';
import { createCsrf } from '../web/security.js';
import { messagePage, type StaffViewer } from './layout.js';
import { routes } from './pages/index.js';
import type { Answer, ConsoleCore, Route } from './route.js';

/** The console's own cookie names: the developer area may share the host (cookies ignore ports). */
const CONSOLE_COOKIES: DoorCookies = {
  session: 'prepaid_staff_session',
  visitor: 'prepaid_staff_visitor',
  /** The core ends a staff session after 8 hours; the cookie never outlives it. */
  sessionMaxAgeS: STAFF_SESSION_ABSOLUTE_MS / 1000,
};

export interface ConsoleDeps {
  core: ConsoleCore;
  /** Key of the CSRF tokens. */
  secret: string;
  secureCookies: boolean;
  log: DoorLogger;
  bounds?: Partial<HttpBounds>;
  /** Proxies whose X-Forwarded-For is believed (CONSOLE_TRUSTED_PROXIES); none by default. */
  trustedProxies?: readonly string[];
  /** The console's own TLS certificate chain and key (CONSOLE_TLS_CERT, CONSOLE_TLS_KEY): https only. */
  tls?: { cert: Buffer; key: Buffer };
}

export type Console = WebServer;

const read = (file: string) => readFileSync(new URL(`./static/${file}`, import.meta.url));
const STYLESHEET = read('console.css');
/** The console's icon; browsers ask for /favicon.ico whatever the page says, and get it too. */
const FAVICON: StaticFile = { body: read('favicon.svg'), type: 'image/svg+xml', maxAgeS: 86400 };
const STATIC_FILES: ReadonlyMap<string, StaticFile> = new Map([
  ['/static/console.css', { body: STYLESHEET, type: 'text/css; charset=utf-8', maxAgeS: 300 }],
  ['/static/favicon.svg', FAVICON],
  ['/favicon.ico', FAVICON],
]);

/** The console's pages for what the door refuses. */
const pages: DoorPages<StaffViewer> = {
  message: messagePage,
  notFound: () => messagePage('Page not found', 'Check the address, or go back to the attention queue.'),
  refused(refusal, viewer) {
    switch (refusal.kind) {
      case 'forbidden':
        return messagePage('You cannot do that', refusal.message, viewer);
      case 'unavailable':
        return messagePage('Sorry, there is a problem with the service', 'Try again in a few minutes.', viewer);
      case 'not_found':
      case 'invalid':
      case 'refused':
      case 'switched':
        return messagePage('That could not be done', refusal.message, viewer);
    }
  },
};

export function createConsole(deps: ConsoleDeps): Console {
  // The member's address (the sign-in throttle's and the audit log's) is the connection's,
  // unless that is a trusted proxy: the gateway's rule, from runtime/client-ip.ts.
  const trustedProxies = addressList('CONSOLE_TRUSTED_PROXIES', deps.trustedProxies ?? []);
  const clientAddressOf = createClientIpResolver(trustedProxies);
  const { core } = deps;
  // The same connection, pipelining, header and idle bounds as the gateway and the developer area,
  // each client address (an IPv6 one by its /64) holding at most its share of the connections.
  return webDoor<{ route: Route; params: string[] }, StaffViewer>({
    service: 'console',
    log: deps.log,
    csrf: createCsrf(deps.secret),
    cookies: CONSOLE_COOKIES,
    secureCookies: deps.secureCookies,
    staticFiles: STATIC_FILES,
    find: (method, url) => matchRoute(routes, method, url.pathname),
    async viewer({ sessionToken, csrfToken, req }) {
      const { member } = await core.getStaffSession({ sessionToken, clientAddress: clientAddressOf(req) });
      return { email: member?.email ?? '', role: member?.role ?? '', csrfToken };
    },
    async run({ route, params }, admission, req, res) {
      const answer = await runRoute(route, { ...admission, params, core, clientAddress: clientAddressOf(req) });
      return answer.kind === 'download' ? download(req, res, answer, admission.setCookies) : answer;
    },
    pages,
    peers: { budgetKey: addressBudgetKey, trustedProxies },
    bounds: deps.bounds,
    tls: deps.tls,
  });
}

/** A file to save: never cached, never shown in the page. */
function download(
  req: IncomingMessage,
  res: ServerResponse,
  answer: Extract<Answer, { kind: 'download' }>,
  setCookies: string[],
): DoorAnswer {
  res.writeHead(200, {
    'Content-Type': answer.contentType,
    'Content-Disposition': `attachment; filename="${answer.filename}"`,
    'Cache-Control': 'no-store',
    ...(setCookies.length > 0 ? { 'Set-Cookie': setCookies } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : answer.body);
  return { kind: 'written' };
}
