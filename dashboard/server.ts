/**
 * The developer area's HTTP server: node:http, server-rendered pages, one small stylesheet and
 * one small script. The factory builds the server without listening; only dashboard/main.ts
 * (and tests, on port 0) call listen.
 *
 * Around every request, in this order: the security headers (security.ts), the route, and for
 * a POST its CSRF token, checked before anything reaches the core. A signed-in page first asks
 * the core who the session is (which also extends its idle expiry); a session the core does not
 * know any more sends the browser back to sign-in. Every decision about what a person may see
 * or do is the core's: a refusal from it becomes a page that says so.
 *
 * Test mode is a path prefix: /test, /test/keys, /test/transactions... serve the same routes
 * for the account's test wallet and test keys (each such route says `testMode: true` and asks
 * the core with the mode in ctx.mode); every link and form on those pages keeps the prefix
 * (ctx.link), so the mode lives in the address and nowhere else.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { addressBudgetKey } from '../core/domain/addresses.js';
import type { HttpBounds } from '../runtime/http-bounds.js';
import { html, type SafeHtml } from '../web/html.js';
import {
  boundedWebServer,
  plainAddress,
  readForm,
  redirect,
  requestUrl,
  sendPage,
  type WebServer,
} from '../web/http.js';
import { type CoreRefusal, refusalOf } from '../web/refusal.js';
import {
  CHALLENGE_COOKIE,
  CSRF_FIELD,
  type Csrf,
  clearedCookie,
  createCsrf,
  newVisitorId,
  readCookies,
  SESSION_COOKIE,
  setSecurityHeaders,
  VISITOR_COOKIE,
  visitorCookie,
} from '../web/security.js';
import { type DashboardConfig, proxyList } from './config.js';
import type { DashboardCore } from './core-client.js';
import { type DashboardMode, FORM_ACCOUNT_FIELD, modePath, page, type Viewer } from './layout.js';
import type { DashboardLogger } from './log.js';
import { routes } from './pages/index.js';
import type { Answer, PageContext, Route } from './route.js';
import { SAMPLE_STATIC_PATHS } from './samples.js';

/** What the dashboard is built from. */
export interface DashboardDeps {
  config: DashboardConfig;
  core: DashboardCore;
  /** Key of the CSRF tokens (config.ts's resolveDashboardSecret). */
  secret: string;
  log: DashboardLogger;
  /** Tighter connection bounds than runtime/http-bounds.ts's defaults (tests reach the cap with few sockets). */
  bounds?: Partial<HttpBounds>;
}

/** A built dashboard: its server (not listening yet) and how to stop it. */
export type Dashboard = WebServer;

const STATIC_FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/static/dashboard.css': { file: 'dashboard.css', type: 'text/css; charset=utf-8' },
  '/static/dashboard.js': { file: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  // Browsers ask for /favicon.ico whatever the page says; both answer with the one SVG icon.
  '/static/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  '/favicon.ico': { file: 'favicon.svg', type: 'image/svg+xml' },
  // The webhook signature samples, as plain text to read or save (never run by this server).
  ...Object.fromEntries(
    SAMPLE_STATIC_PATHS.map((file) => [`/static/${file}`, { file, type: 'text/plain; charset=utf-8' }]),
  ),
};

/** The static files, read once at start from dashboard/static/ (copied beside the build by bin/build.js). */
function loadStatic(): Map<string, { body: Buffer; type: string }> {
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const [path, { file, type }] of Object.entries(STATIC_FILES)) {
    files.set(path, { body: readFileSync(new URL(`./static/${file}`, import.meta.url)), type });
  }
  return files;
}

/** What every request shares: built once per dashboard. */
interface Shared {
  config: DashboardConfig;
  core: DashboardCore;
  log: DashboardLogger;
  csrf: Csrf;
  staticFiles: Map<string, { body: Buffer; type: string }>;
  clientIpOf(req: IncomingMessage): string;
  cookieOptions: { secure: boolean };
}

/** Builds the dashboard's HTTP server. */
export function createDashboard(deps: DashboardDeps): Dashboard {
  const { config, log } = deps;
  const proxies = proxyList(config.trustedProxies);
  const shared: Shared = {
    config,
    core: deps.core,
    log,
    csrf: createCsrf(deps.secret),
    staticFiles: loadStatic(),
    cookieOptions: { secure: config.secureCookies },
    clientIpOf(req) {
      const peer = plainAddress(req.socket.remoteAddress ?? '');
      if (peer === '' || !proxies.check(peer, isIP(peer) === 6 ? 'ipv6' : 'ipv4')) return peer;
      // The hop the trusted proxy appended is the address it saw; anything left of it the client wrote.
      const forwarded = String(req.headers['x-forwarded-for'] ?? '')
        .split(',')
        .map((hop) => plainAddress(hop.trim()))
        .filter((hop) => isIP(hop) !== 0);
      return forwarded.at(-1) ?? peer;
    },
  };

  // The gateway's connection, pipelining, header and idle bounds (web/http.ts): this port is as
  // public as the API's, and shares its process under `npm start`. One client address (an IPv6
  // one by its /64) holds at most its share of the connections; the trusted proxies any number.
  return boundedWebServer(
    (req, res) => {
      const started = performance.now();
      handle(shared, req, res).then(
        (name) =>
          log.info('http.request', {
            method: req.method,
            route: name,
            status: res.statusCode,
            duration_ms: Math.round(performance.now() - started),
          }),
        (error: unknown) => {
          log.error('http.request_failed', {
            method: req.method,
            error: error instanceof Error ? error.message : String(error),
          });
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
    { peers: { budgetKey: addressBudgetKey, trustedProxies: proxies }, bounds: deps.bounds },
  );
}

/** Answers one request; resolves to the route's name for the log line. */
async function handle(shared: Shared, req: IncomingMessage, res: ServerResponse): Promise<string> {
  setSecurityHeaders(res);
  const url = requestUrl(req.url);
  if (url === undefined) {
    sendPage(res, 404, notFoundPage());
    return 'not_found';
  }
  const fixed = serveFixed(shared, req, res, url.pathname);
  if (fixed !== undefined) return fixed;
  const { mode, path } = splitMode(url.pathname);
  let found = findRoute(req.method === 'HEAD' ? 'GET' : (req.method ?? ''), path);
  // Under /test only the routes that honour the mode exist.
  if (mode === 'test' && typeof found === 'object' && found.route.testMode !== true) found = undefined;
  if (found === undefined) {
    sendPage(res, 404, notFoundPage());
    return 'not_found';
  }
  if (found === 'method') {
    res.setHeader('Allow', 'GET, POST');
    sendPage(res, 405, messagePage('That is not possible here', 'This address does not take that kind of request.'));
    return 'method_not_allowed';
  }
  const { route, params } = found;
  const ctx = await admit(shared, req, res, url, route, params, mode);
  if (ctx === undefined) return route.name;
  let answer: Answer;
  try {
    answer = await runHandler(route, ctx);
  } catch (error) {
    if (res.headersSent) throw error;
    answer = refusalAnswer(shared, ctx.viewer, ctx.setCookies, error);
  }
  if (answer.kind === 'redirect') redirect(res, answer.location, ctx.setCookies);
  else if (answer.kind === 'page') {
    if (ctx.setCookies.length > 0) res.setHeader('Set-Cookie', ctx.setCookies);
    sendPage(res, answer.status ?? 200, answer.body, req.method === 'HEAD');
  }
  return route.name;
}

/** A signed-in route's handler gets the viewer that admit() found (it answered itself when there was none). */
function runHandler(route: Route, ctx: PageContext): Promise<Answer> {
  if (!route.signedIn) return route.handler(ctx);
  const { viewer } = ctx;
  if (viewer === undefined) throw new Error(`the signed-in route ${route.name} was reached without a viewer`);
  return route.handler({ ...ctx, viewer });
}

/** The stylesheet, the script and /healthz; undefined for anything else. */
function serveFixed(shared: Shared, req: IncomingMessage, res: ServerResponse, path: string): string | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  const file = shared.staticFiles.get(path);
  if (file !== undefined) {
    res.writeHead(200, {
      'Content-Type': file.type,
      'Content-Length': file.body.length,
      'Cache-Control': 'public, max-age=300',
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
    return 'static';
  }
  if (path === '/healthz') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end('ok\n');
    return 'healthz';
  }
  return undefined;
}

/**
 * Everything before the page: the visitor cookie, the form and its CSRF token, and for a
 * signed-in route who the session is. Undefined when the request was answered here (refused,
 * or sent to sign in).
 */
async function admit(
  shared: Shared,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  route: Route,
  params: string[],
  mode: DashboardMode,
): Promise<PageContext | undefined> {
  const { csrf, cookieOptions } = shared;
  const cookies = readCookies(req);
  const sessionToken = cookies.get(SESSION_COOKIE) ?? '';
  let visitorId = cookies.get(VISITOR_COOKIE);
  const setCookies: string[] = [];
  if (!route.signedIn && visitorId === undefined && route.method === 'GET') {
    visitorId = newVisitorId();
    setCookies.push(visitorCookie(visitorId, cookieOptions));
  }
  const visitorCsrf = visitorId === undefined ? '' : csrf.forVisitor(visitorId);

  let form = new URLSearchParams();
  if (route.method === 'POST') {
    const body = await readForm(req);
    if (body === undefined) {
      sendPage(res, 413, messagePage('That form was too large', 'Go back and try again with less text.'));
      return undefined;
    }
    form = body;
    if (route.signedIn && sessionToken === '') {
      // A POST from a browser that is not signed in (its session cookie ended with the session).
      redirect(res, '/sign-in?ended=1', setCookies);
      return undefined;
    }
    // The synchroniser token: for a signed-in form, the HMAC of this session's token; for a
    // form shown before sign-in, of this browser's visitor cookie. Checked before the core is asked.
    const expected = route.signedIn ? csrf.forSession(sessionToken) : visitorCsrf;
    if (expected === '' || !csrf.check(form.get(CSRF_FIELD) ?? undefined, expected)) {
      sendPage(res, 403, csrfPage());
      return undefined;
    }
  }

  let viewer: Viewer | undefined;
  if (route.signedIn) {
    if (sessionToken === '') {
      redirect(res, '/sign-in', setCookies);
      return undefined;
    }
    try {
      const { session, accounts } = await shared.core.holder.getSession({ sessionToken });
      if (session === undefined) throw new Error('GetSession answered without a session');
      viewer = { session, accounts, csrfToken: csrf.forSession(sessionToken), mode };
    } catch (error) {
      if (refusalOf(error).kind !== 'signed_out') {
        const answer = refusalAnswer(shared, undefined, setCookies, error);
        if (answer.kind === 'page') sendPage(res, answer.status ?? 200, answer.body);
        return undefined;
      }
      setCookies.push(clearedCookie(SESSION_COOKIE, cookieOptions));
      redirect(res, '/sign-in?ended=1', setCookies);
      return undefined;
    }
  }
  return {
    req,
    res,
    url,
    params,
    form,
    formAccountId: form.get(FORM_ACCOUNT_FIELD) ?? '',
    config: shared.config,
    core: shared.core,
    csrf,
    clientIp: shared.clientIpOf(req),
    setCookies,
    sessionToken,
    viewer,
    visitorCsrf,
    mode,
    link: (path: string) => modePath(mode, path),
  };
}

/** The mode of an address and the route path it names: /test/keys is the keys page in test mode. */
function splitMode(pathname: string): { mode: DashboardMode; path: string } {
  if (pathname === '/test' || pathname === '/test/') return { mode: 'test', path: '/' };
  if (pathname.startsWith('/test/')) return { mode: 'test', path: pathname.slice('/test'.length) };
  return { mode: 'live', path: pathname };
}

/** A refusal from the core that the page did not handle itself. */
function refusalAnswer(shared: Shared, viewer: Viewer | undefined, setCookies: string[], error: unknown): Answer {
  const refusal = refusalOf(error);
  switch (refusal.kind) {
    case 'signed_out':
      setCookies.push(
        clearedCookie(SESSION_COOKIE, shared.cookieOptions),
        clearedCookie(CHALLENGE_COOKIE, shared.cookieOptions),
      );
      return { kind: 'redirect', location: '/sign-in?ended=1' };
    case 'forbidden':
      return {
        kind: 'page',
        status: 403,
        body: messagePage(
          'You cannot do that',
          'Your role on this account can see this, but not change it. Ask an owner of the account.',
          viewer,
        ),
      };
    case 'not_found':
      return { kind: 'page', status: 404, body: notFoundPage(viewer) };
    case 'invalid':
    case 'refused':
      return { kind: 'page', status: 400, body: messagePage('That could not be done', refusal.message, viewer) };
    case 'switched':
      return { kind: 'page', status: 409, body: switchedPage(refusal, viewer) };
    case 'unavailable':
      shared.log.error('dashboard.core_failed', { message: refusal.message });
      return {
        kind: 'page',
        status: 503,
        body: messagePage(
          'Sorry, there is a problem with the service',
          'Try again in a few minutes. Nothing you sent was changed.',
          viewer,
        ),
      };
  }
}

function findRoute(method: string, path: string): { route: Route; params: string[] } | 'method' | undefined {
  let other = false;
  for (const route of routes) {
    const match = typeof route.path === 'string' ? (route.path === path ? [path] : null) : route.path.exec(path);
    if (match === null) continue;
    if (route.method !== method) {
      other = true;
      continue;
    }
    return { route, params: match.slice(1).map((p) => decodeURIComponent(p ?? '')) };
  }
  return other ? 'method' : undefined;
}

/** A page with a heading and one sentence. */
function messagePage(title: string, sentence: string, viewer?: Viewer): SafeHtml {
  return page(
    { title, ...(viewer ? { viewer } : {}) },
    html`<h1>${title}</h1><p>${sentence}</p><p><a href="/">Go to the overview</a></p>`,
  );
}

function notFoundPage(viewer?: Viewer): SafeHtml {
  return messagePage(
    'Page not found',
    'If you typed the address, check it is correct. If you followed a link, it may be out of date.',
    viewer,
  );
}

/**
 * A form made for one account, sent after the session was switched to another in another tab: the core did
 * nothing, and the page says which account the session acts for now (from the core's refusal, not the page).
 */
function switchedPage(refusal: CoreRefusal, viewer?: Viewer): SafeHtml {
  const active = refusal.activeAccount ?? { accountId: '', name: '' };
  return page(
    { title: 'You are working in another account now', ...(viewer ? { viewer } : {}) },
    html`<h1>You are working in another account now</h1>
<p>This form was made for another account. Since then you switched to <strong>${active.name}</strong> \
(account ${active.accountId}), in another tab or window. Nothing was done.</p>
<p>To do this for <strong>${active.name}</strong>, start again from its page. To do it for the other account, \
switch back to it first.</p>
<p><a href="/">Go to the overview of ${active.name}</a></p>`,
  );
}

function csrfPage(): SafeHtml {
  return messagePage(
    'That form could not be accepted',
    'The form was missing its security token, or it came from another page or an earlier sign-in. Nothing was ' +
      'changed. Go back, reload the page and send it again.',
  );
}
