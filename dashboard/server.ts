/**
 * The developer area's HTTP server: node:http, server-rendered pages, one small stylesheet and
 * one small script. The factory builds the server without listening; only dashboard/main.ts
 * (and tests, on port 0) call listen.
 *
 * Every request passes the web apps' door (web/door.ts): the security headers, the static files,
 * the CSRF token of a POST, the session lookup (HolderService.GetSession, which also extends the
 * session's idle expiry) and the core's refusals as pages. This file passes it the developer
 * area's cookie names (cookies.ts), its routes, its viewer and its pages; every decision about
 * what a person may see or do is the core's.
 *
 * Test mode is a path prefix: /test, /test/keys, /test/transactions... serve the same routes
 * for the account's test wallet and test keys (each such route says `testMode: true` and asks
 * the core with the mode in ctx.mode); every link and form on those pages keeps the prefix
 * (ctx.link), so the mode lives in the address and nowhere else.
 */

import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { addressBudgetKey } from '../core/domain/addresses.js';
import type { ErrorReasonName } from '../runtime/error-reason.js';
import type { HttpBounds } from '../runtime/http-bounds.js';
import { type DoorPages, matchRoute, runRoute, type StaticFile, webDoor } from '../web/door.js';
import { html, type SafeHtml } from '../web/html.js';
import { plainAddress, type WebServer } from '../web/http.js';
import type { CoreRefusal } from '../web/refusal.js';
import { createCsrf } from '../web/security.js';
import { type DashboardConfig, proxyList } from './config.js';
import { DASHBOARD_COOKIES } from './cookies.js';
import type { DashboardCore } from './core-client.js';
import { type DashboardMode, FORM_ACCOUNT_FIELD, modePath, page, type Viewer } from './layout.js';
import type { DashboardLogger } from './log.js';
import { routes } from './pages/index.js';
import type { Route } from './route.js';
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
function loadStatic(): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const [path, { file, type }] of Object.entries(STATIC_FILES)) {
    files.set(path, { body: readFileSync(new URL(`./static/${file}`, import.meta.url)), type, maxAgeS: 300 });
  }
  return files;
}

/** What the door finds for a request: the route, its params, and the mode its address names. */
interface Found {
  route: Route;
  params: string[];
  mode: DashboardMode;
}

/** Builds the dashboard's HTTP server. */
export function createDashboard(deps: DashboardDeps): Dashboard {
  const { config, core } = deps;
  const proxies = proxyList(config.trustedProxies);
  const csrf = createCsrf(deps.secret);
  const clientIpOf = (req: IncomingMessage) => {
    const peer = plainAddress(req.socket.remoteAddress ?? '');
    if (peer === '' || !proxies.check(peer, isIP(peer) === 6 ? 'ipv6' : 'ipv4')) return peer;
    // The hop the trusted proxy appended is the address it saw; anything left of it the client wrote.
    const forwarded = String(req.headers['x-forwarded-for'] ?? '')
      .split(',')
      .map((hop) => plainAddress(hop.trim()))
      .filter((hop) => isIP(hop) !== 0);
    return forwarded.at(-1) ?? peer;
  };

  // The gateway's connection, pipelining, header and idle bounds (web/http.ts): this port is as
  // public as the API's, and shares its process under `npm start`. One client address (an IPv6
  // one by its /64) holds at most its share of the connections; the trusted proxies any number.
  return webDoor<Found, Viewer>({
    service: 'dashboard',
    log: deps.log,
    csrf,
    cookies: DASHBOARD_COOKIES,
    secureCookies: config.secureCookies,
    staticFiles: loadStatic(),
    find: findRoute,
    async viewer({ sessionToken, csrfToken, found }) {
      const { session, accounts } = await core.holder.getSession({ sessionToken });
      if (session === undefined) throw new Error('GetSession answered without a session');
      return { session, accounts, csrfToken, mode: found.mode };
    },
    run: ({ route, params, mode }, admission, req, res) =>
      runRoute(route, {
        ...admission,
        req,
        res,
        params,
        formAccountId: admission.form.get(FORM_ACCOUNT_FIELD) ?? '',
        config,
        core,
        csrf,
        clientIp: clientIpOf(req),
        mode,
        link: (path: string) => modePath(mode, path),
      }),
    pages,
    peers: { budgetKey: addressBudgetKey, trustedProxies: proxies },
    bounds: deps.bounds,
  });
}

/** The route of an address; under /test only the routes that honour the mode exist. */
function findRoute(method: string, url: URL): Found | 'method' | undefined {
  const { mode, path } = splitMode(url.pathname);
  const found = matchRoute(routes, method, path);
  if (found === undefined || found === 'method') return found;
  if (mode === 'test' && found.route.testMode !== true) return undefined;
  return { ...found, mode };
}

/** The mode of an address and the route path it names: /test/keys is the keys page in test mode. */
function splitMode(pathname: string): { mode: DashboardMode; path: string } {
  if (pathname === '/test' || pathname === '/test/') return { mode: 'test', path: '/' };
  if (pathname.startsWith('/test/')) return { mode: 'test', path: pathname.slice('/test'.length) };
  return { mode: 'live', path: pathname };
}

/** The developer area's pages for what the door refuses. */
const pages: DoorPages<Viewer> = {
  message: messagePage,
  notFound: () => notFoundPage(),
  refused(refusal, viewer) {
    switch (refusal.kind) {
      case 'forbidden':
        if (refusal.reason === VERIFICATION_REQUIRED) return verifyFirstPage(refusal.message, viewer);
        return messagePage(
          'You cannot do that',
          'Your role on this account can see this, but not change it. Ask an owner of the account.',
          viewer,
        );
      case 'not_found':
        return notFoundPage(viewer);
      case 'switched':
        return switchedPage(refusal, viewer);
      case 'unavailable':
        return messagePage(
          'Sorry, there is a problem with the service',
          'Try again in a few minutes. Nothing you sent was changed.',
          viewer,
        );
      case 'invalid':
      case 'refused':
        return messagePage('That could not be done', refusal.message, viewer);
    }
  },
};

/** The contract's reason of a live action refused until the account's email and phone are verified. */
const VERIFICATION_REQUIRED: ErrorReasonName = 'VERIFICATION_REQUIRED';

/** Live money waits for the account's proofs: the core's sentence, and the way to the Verify page. */
function verifyFirstPage(sentence: string, viewer?: Viewer): SafeHtml {
  return page(
    { title: 'Verify your account first', ...(viewer ? { viewer } : {}) },
    html`<h1>Verify your account first</h1><p>${sentence}</p><p><a href="/verify" class="button">Verify now</a></p>`,
  );
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
