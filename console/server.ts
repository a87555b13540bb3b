/**
 * The console's HTTP server: node:http, server-rendered pages, one stylesheet, no script. The
 * factory builds the server without listening; only console/main.ts (and tests, on port 0)
 * listen. Around every request: the security headers, the route, and for a POST its CSRF token,
 * checked before anything reaches the core. A signed-in page first asks the core who the
 * session is; every decision about what a member may do is the core's, and its refusal
 * becomes a page that says so.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { addressBudgetKey } from '../core/domain/addresses.js';
import { addressList, type ClientIpResolver, createClientIpResolver } from '../runtime/client-ip.js';
import type { HttpBounds } from '../runtime/http-bounds.js';
import { boundedWebServer, readForm, redirect, requestUrl, sendPage, type WebServer } from '../web/http.js';
import { refusalOf } from '../web/refusal.js';
import {
  CSRF_FIELD,
  type Csrf,
  clearedCookie,
  createCsrf,
  httpOnlyCookie,
  newVisitorId,
  readCookies,
  setSecurityHeaders,
} from '../web/security.js';
import { messagePage, type StaffViewer } from './layout.js';
import { routes } from './pages/index.js';
import type { ConsoleCore, Route } from './route.js';

/** The console's own cookie names: the developer area may share the host (cookies ignore ports). */
const STAFF_SESSION_COOKIE = 'prepaid_staff_session';
const STAFF_VISITOR_COOKIE = 'prepaid_staff_visitor';
/** The core ends a staff session after 8 hours; the cookie never outlives it. */
const SESSION_COOKIE_MAX_AGE_S = 8 * 60 * 60;
const VISITOR_COOKIE_MAX_AGE_S = 24 * 60 * 60;

interface ConsoleLogger {
  info(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

export interface ConsoleDeps {
  core: ConsoleCore;
  /** Key of the CSRF tokens. */
  secret: string;
  secureCookies: boolean;
  log: ConsoleLogger;
  bounds?: Partial<HttpBounds>;
  /** Proxies whose X-Forwarded-For is believed (CONSOLE_TRUSTED_PROXIES); none by default. */
  trustedProxies?: readonly string[];
  /** The console's own TLS certificate chain and key (CONSOLE_TLS_CERT, CONSOLE_TLS_KEY): https only. */
  tls?: { cert: Buffer; key: Buffer };
}

export type Console = WebServer;

const STYLESHEET = readFileSync(new URL('./static/console.css', import.meta.url));
/** The console's icon; browsers ask for /favicon.ico whatever the page says, and get it too. */
const FAVICON = readFileSync(new URL('./static/favicon.svg', import.meta.url));
const FAVICON_PATHS = new Set(['/static/favicon.svg', '/favicon.ico']);

export function createConsole(deps: ConsoleDeps): Console {
  const csrf = createCsrf(deps.secret);
  // The member's address (the sign-in throttle's and the audit log's) is the connection's,
  // unless that is a trusted proxy: the gateway's rule, from runtime/client-ip.ts.
  const trustedProxies = addressList('CONSOLE_TRUSTED_PROXIES', deps.trustedProxies ?? []);
  const clientAddressOf = createClientIpResolver(trustedProxies);
  // The same connection, pipelining, header and idle bounds as the gateway and the developer area,
  // each client address (an IPv6 one by its /64) holding at most its share of the connections.
  return boundedWebServer(
    (req, res) => {
      handle(deps, csrf, clientAddressOf, req, res).then(
        (name) => deps.log.info('http.request', { method: req.method, route: name, status: res.statusCode }),
        (error: unknown) => {
          deps.log.error('http.request_failed', { error: error instanceof Error ? error.message : String(error) });
          if (!res.headersSent)
            sendPage(
              res,
              500,
              messagePage('Sorry, there is a problem with the service', 'Try again in a few minutes.'),
            );
          else res.destroy();
        },
      );
    },
    { peers: { budgetKey: addressBudgetKey, trustedProxies }, bounds: deps.bounds, tls: deps.tls },
  );
}

/** The stylesheet, the icon and /healthz, the same for everyone; undefined for any other path. */
function fixedAnswer(req: IncomingMessage, res: ServerResponse, pathname: string): string | undefined {
  if (pathname === '/static/console.css') {
    res.writeHead(200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=300' });
    res.end(req.method === 'HEAD' ? undefined : STYLESHEET);
    return 'static';
  }
  if (FAVICON_PATHS.has(pathname)) {
    res.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' });
    res.end(req.method === 'HEAD' ? undefined : FAVICON);
    return 'static';
  }
  if (pathname === '/healthz') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end('ok\n');
    return 'healthz';
  }
  return undefined;
}

function findRoute(method: string, path: string): { route: Route; params: string[] } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const match = typeof route.path === 'string' ? (route.path === path ? [path] : null) : route.path.exec(path);
    if (match !== null) return { route, params: match.slice(1).map((p) => decodeURIComponent(p ?? '')) };
  }
  return undefined;
}

async function handle(
  deps: ConsoleDeps,
  csrf: Csrf,
  clientAddressOf: ClientIpResolver,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<string> {
  setSecurityHeaders(res);
  const url = requestUrl(req.url);
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? '');
  const fixed = method === 'GET' && url !== undefined ? fixedAnswer(req, res, url.pathname) : undefined;
  if (fixed !== undefined) return fixed;
  const found = url === undefined ? undefined : findRoute(method, url.pathname);
  if (url === undefined || found === undefined) {
    sendPage(res, 404, messagePage('Page not found', 'Check the address, or go back to the attention queue.'));
    return 'not_found';
  }
  const { route, params } = found;
  const cookieOptions = { secure: deps.secureCookies };
  const cookies = readCookies(req);
  const setCookies: string[] = [];
  let sessionToken = cookies.get(STAFF_SESSION_COOKIE) ?? '';
  let visitorId = cookies.get(STAFF_VISITOR_COOKIE);
  if (!route.signedIn && visitorId === undefined && route.method === 'GET') {
    visitorId = newVisitorId();
    setCookies.push(httpOnlyCookie(STAFF_VISITOR_COOKIE, visitorId, VISITOR_COOKIE_MAX_AGE_S, cookieOptions));
  }
  const visitorCsrf = visitorId === undefined ? '' : csrf.forVisitor(visitorId);
  const clientAddress = clientAddressOf(req);

  let form = new URLSearchParams();
  if (route.method === 'POST') {
    const body = await readForm(req);
    if (body === undefined) {
      sendPage(res, 413, messagePage('That form was too large', 'Go back and try again with less text.'));
      return route.name;
    }
    form = body;
    const expected = route.signedIn ? (sessionToken === '' ? '' : csrf.forSession(sessionToken)) : visitorCsrf;
    if (expected === '' || !csrf.check(form.get(CSRF_FIELD) ?? undefined, expected)) {
      sendPage(
        res,
        403,
        messagePage(
          'That form could not be accepted',
          'The form was missing its security token, or it came from another page or an earlier sign-in. ' +
            'Nothing was changed.',
        ),
      );
      return route.name;
    }
  }

  let viewer: StaffViewer | undefined;
  try {
    if (route.signedIn) {
      if (sessionToken === '') {
        redirect(res, '/sign-in', setCookies);
        return route.name;
      }
      const { member } = await deps.core.getStaffSession({ sessionToken, clientAddress });
      viewer = { email: member?.email ?? '', role: member?.role ?? '', csrfToken: csrf.forSession(sessionToken) };
    }
    const answer = await route.handler({
      url,
      params,
      form,
      core: deps.core,
      clientAddress,
      sessionToken,
      viewer,
      visitorCsrf,
      startSession(token) {
        sessionToken = token;
        setCookies.push(httpOnlyCookie(STAFF_SESSION_COOKIE, token, SESSION_COOKIE_MAX_AGE_S, cookieOptions));
      },
      endSession() {
        setCookies.push(clearedCookie(STAFF_SESSION_COOKIE, cookieOptions));
      },
    });
    if (answer.kind === 'redirect') redirect(res, answer.location, setCookies);
    else if (answer.kind === 'download') {
      res.writeHead(200, {
        'Content-Type': answer.contentType,
        'Content-Disposition': `attachment; filename="${answer.filename}"`,
        'Cache-Control': 'no-store',
        ...(setCookies.length > 0 ? { 'Set-Cookie': setCookies } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : answer.body);
    } else {
      if (setCookies.length > 0) res.setHeader('Set-Cookie', setCookies);
      sendPage(res, answer.status ?? 200, answer.body, req.method === 'HEAD');
    }
  } catch (error) {
    if (res.headersSent) throw error;
    const refusal = refusalOf(error);
    if (refusal.kind === 'signed_out') {
      setCookies.push(clearedCookie(STAFF_SESSION_COOKIE, cookieOptions));
      redirect(res, '/sign-in?ended=1', setCookies);
    } else if (refusal.kind === 'forbidden') {
      sendPage(res, 403, messagePage('You cannot do that', refusal.message, viewer));
    } else if (refusal.kind === 'unavailable') {
      deps.log.error('console.core_failed', { message: refusal.message });
      sendPage(
        res,
        503,
        messagePage('Sorry, there is a problem with the service', 'Try again in a few minutes.', viewer),
      );
    } else {
      sendPage(
        res,
        refusal.kind === 'not_found' ? 404 : 400,
        messagePage('That could not be done', refusal.message, viewer),
      );
    }
  }
  return route.name;
}
