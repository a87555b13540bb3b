/**
 * The request door of the web apps (dashboard/, console/): everything that happens to a request
 * before a page handler runs and after it answers, the same for both. Each app passes its cookie
 * names, its session RPC, its routes and its pages; the rules are here.
 *
 * Around every request, in this order: the security headers (security.ts); the static files and
 * /healthz; the route (a path that exists for another method is a 405); a visitor cookie for a
 * public page; for a POST its form and CSRF token, checked before anything reaches the core (a
 * signed-in form from a browser without a session cookie goes back to sign-in: the cookie ended
 * with the session); for a signed-in route, who the session is, asked of the core with the app's
 * session RPC (which also extends its idle expiry). A session the core does not know any more
 * clears the app's cookies and sends the browser to sign in with the "session ended" notice.
 * Every decision about what a person may see or do is the core's: a refusal that the page did
 * not handle itself becomes the app's page for it, with the status its kind has here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { HttpBounds, PeerRule } from '../runtime/http-bounds.js';
import { requestUrl } from '../runtime/url.js';
import type { SafeHtml } from './html.js';
import { boundedWebServer, readForm, redirect, sendPage, type WebServer } from './http.js';
import { type CoreRefusal, refusalOf } from './refusal.js';
import {
  CSRF_FIELD,
  type Csrf,
  clearedCookie,
  httpOnlyCookie,
  newVisitorId,
  readCookies,
  setSecurityHeaders,
} from './security.js';

/** The flag of the sign-in address that says the session ended (an address carries nothing secret). */
export const SESSION_ENDED_FLAG = 'ended';
/** What the sign-in page says to a browser whose session ended under it. */
export const SESSION_ENDED_NOTICE = 'Your session has ended. Sign in again to continue.';
const SIGN_IN_PATH = '/sign-in';
const SESSION_ENDED_PATH = `${SIGN_IN_PATH}?${SESSION_ENDED_FLAG}=1`;
/** The visitor cookie lives as long as the browser session (no Max-Age would do too, but a day bounds it). */
const VISITOR_COOKIE_MAX_AGE_S = 24 * 60 * 60;

/** An app's cookies. Each app has its own names: both may share a host, and cookies ignore ports. */
export interface DoorCookies {
  /** The core's session token, HttpOnly. */
  session: string;
  /** A random value that ties the forms shown before sign-in to this browser (login CSRF). */
  visitor: string;
  /** The core's absolute session lifetime: the session cookie never outlives it. */
  sessionMaxAgeS: number;
  /** Cookies of a sign-in under way (the developer area's TOTP challenge), cleared with an ended session. */
  signInSteps?: readonly string[];
}

/** What the door knows of a route: how it is matched, its log label, and whether it needs a session. */
interface DoorRouteBase {
  method: 'GET' | 'POST';
  path: string | RegExp;
  /** The label in log lines (never the raw path, which may hold a link's token). */
  name: string;
}

/** What an app's route lookup finds: at least the route (with its params and anything else the app needs). */
interface FoundRoute {
  route: DoorRouteBase & { signedIn: boolean };
}

/** The context of a signed-in route's handler: its viewer is known (the door asked the core first). */
export type SignedIn<Ctx extends { viewer: unknown }> = Ctx & { viewer: NonNullable<Ctx['viewer']> };

/**
 * One route: a method, a path (exact, or a pattern whose groups become params), and its handler. A signed-in
 * route needs a session the core knows, and its handler gets the viewer.
 */
export type WebRoute<Ctx extends { viewer: unknown }, Answer> =
  | (DoorRouteBase & { signedIn: true; handler(ctx: SignedIn<Ctx>): Promise<Answer> })
  | (DoorRouteBase & { signedIn: false; handler(ctx: Ctx): Promise<Answer> });

/** Runs a route's handler; a signed-in one gets the viewer the door found (it answered itself when there was none). */
export function runRoute<Ctx extends { viewer: unknown }, Answer>(
  route: WebRoute<Ctx, Answer>,
  ctx: Ctx,
): Promise<Answer> {
  if (!route.signedIn) return route.handler(ctx);
  const { viewer } = ctx;
  if (viewer === undefined || viewer === null)
    throw new Error(`the signed-in route ${route.name} was reached without a viewer`);
  return route.handler({ ...ctx, viewer });
}

/**
 * The first route whose path matches and whose method is `method`, with its params decoded; 'method' when the
 * path exists for another method only; undefined when nothing matches (a param that does not decode included).
 */
export function matchRoute<R extends DoorRouteBase>(
  routes: readonly R[],
  method: string,
  path: string,
): { route: R; params: string[] } | 'method' | undefined {
  let other = false;
  for (const route of routes) {
    const match = typeof route.path === 'string' ? (route.path === path ? [path] : null) : route.path.exec(path);
    if (match === null) continue;
    if (route.method !== method) {
      other = true;
      continue;
    }
    try {
      return { route, params: match.slice(1).map((p) => decodeURIComponent(p ?? '')) };
    } catch {
      return undefined;
    }
  }
  return other ? 'method' : undefined;
}

/** What a handler answers, as the door writes it: a page, a redirect, or nothing (the handler wrote it). */
export type DoorAnswer =
  | { kind: 'page'; status?: number; body: SafeHtml }
  | { kind: 'redirect'; location: string }
  | { kind: 'written' };

/** What the door found out before the page: the app builds its page context from it. */
export interface Admission<V> {
  url: URL;
  /** The submitted form of a POST (its CSRF token already checked); empty for a GET. */
  form: URLSearchParams;
  /** The session token from the app's cookie ('' without one). */
  sessionToken: string;
  /** Signed-in routes: who the core says the session is. */
  viewer: V | undefined;
  /** Public routes: the token their forms carry. */
  visitorCsrf: string;
  /** Cookies to set with the answer. */
  setCookies: string[];
  /** Sets the session cookie (sign-in, a new session after a password change) or clears it (sign-out). */
  startSession(token: string): void;
  endSession(): void;
}

/** A static file: its bytes, type and how long a browser may keep it. */
export interface StaticFile {
  body: Buffer;
  type: string;
  maxAgeS: number;
}

/** A refusal shown as a page: any but `signed_out`, which the door answers by sending the browser to sign in. */
type PageRefusal = CoreRefusal & { kind: Exclude<CoreRefusal['kind'], 'signed_out'> };

/** The app's own pages for what the door refuses, in the app's frame and words. */
export interface DoorPages<V> {
  /** A page with a heading and one sentence. */
  message(title: string, sentence: string, viewer?: V): SafeHtml;
  /** No page at this address. */
  notFound(): SafeHtml;
  /** A refusal of the core that the page did not handle. */
  refused(refusal: PageRefusal, viewer: V | undefined): SafeHtml;
}

/** Where the door writes its line a request and its failures (the app's process log). */
export interface DoorLogger {
  info(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

/** A web app as the door serves it. F is what its route lookup finds (the route, its params, anything else). */
export interface WebApp<F extends FoundRoute, V> {
  /** Names the log line of a core failure: `<service>.core_failed`. */
  service: string;
  log: DoorLogger;
  csrf: Csrf;
  cookies: DoorCookies;
  secureCookies: boolean;
  /** By path; served to GET and HEAD before any route. */
  staticFiles: ReadonlyMap<string, StaticFile>;
  /** The route of a request (HEAD is asked as GET). */
  find(method: string, url: URL): F | 'method' | undefined;
  /** The app's session RPC: who the session is, as the app's viewer whose forms carry `csrfToken`. */
  viewer(session: { sessionToken: string; csrfToken: string; req: IncomingMessage; found: F }): Promise<V>;
  /** Runs the route's handler with the app's page context. */
  run(found: F, admission: Admission<V>, req: IncomingMessage, res: ServerResponse): Promise<DoorAnswer>;
  pages: DoorPages<V>;
  /** How each client address's connections are counted, and tighter bounds (tests) or TLS. */
  peers: PeerRule;
  bounds?: Partial<HttpBounds> | undefined;
  tls?: { cert: Buffer; key: Buffer } | undefined;
}

/** The status of each kind of refusal the door shows as a page. */
const REFUSAL_STATUS: Readonly<Record<PageRefusal['kind'], number>> = {
  forbidden: 403,
  not_found: 404,
  invalid: 400,
  refused: 400,
  switched: 409,
  unavailable: 503,
};

/**
 * Builds an app's HTTP server (not listening yet) behind the door, with the gateway's connection, pipelining,
 * header and idle bounds (http.ts). One line a request in the app's log; a request that fails gets the
 * app's page for it, and its connection is dropped when the answer had begun.
 */
export function webDoor<F extends FoundRoute, V>(app: WebApp<F, V>): WebServer {
  return boundedWebServer(
    (req, res) => {
      const started = performance.now();
      handle(app, req, res).then(
        (name) =>
          app.log.info('http.request', {
            method: req.method,
            route: name,
            status: res.statusCode,
            duration_ms: Math.round(performance.now() - started),
          }),
        (error: unknown) => {
          app.log.error('http.request_failed', {
            method: req.method,
            error: error instanceof Error ? error.message : String(error),
          });
          if (!res.headersSent)
            sendPage(
              res,
              500,
              app.pages.message('Sorry, there is a problem with the service', 'Try again in a few minutes.'),
            );
          else res.destroy();
        },
      );
    },
    { peers: app.peers, bounds: app.bounds, tls: app.tls },
  );
}

/** Answers one request; resolves to the route's name for the log line. */
async function handle<F extends FoundRoute, V>(
  app: WebApp<F, V>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<string> {
  setSecurityHeaders(res);
  const url = requestUrl(req.url);
  if (url === undefined) {
    sendPage(res, 404, app.pages.notFound());
    return 'not_found';
  }
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? '');
  const fixed = method === 'GET' ? serveFixed(app.staticFiles, req, res, url.pathname) : undefined;
  if (fixed !== undefined) return fixed;
  const found = app.find(method, url);
  if (found === undefined) {
    sendPage(res, 404, app.pages.notFound());
    return 'not_found';
  }
  if (found === 'method') {
    res.setHeader('Allow', 'GET, POST');
    sendPage(
      res,
      405,
      app.pages.message('That is not possible here', 'This address does not take that kind of request.'),
    );
    return 'method_not_allowed';
  }
  const admission = await admit(app, req, res, url, found);
  if (admission === undefined) return found.route.name;
  let answer: DoorAnswer;
  try {
    answer = await app.run(found, admission, req, res);
  } catch (error) {
    if (res.headersSent) throw error;
    answer = refusalAnswer(app, error, admission.viewer, admission.setCookies);
  }
  send(req, res, answer, admission.setCookies);
  return found.route.name;
}

function send(req: IncomingMessage, res: ServerResponse, answer: DoorAnswer, setCookies: readonly string[]): void {
  if (answer.kind === 'redirect') redirect(res, answer.location, setCookies);
  else if (answer.kind === 'page') {
    if (setCookies.length > 0) res.setHeader('Set-Cookie', setCookies);
    sendPage(res, answer.status ?? 200, answer.body, req.method === 'HEAD');
  }
}

/** The static files and /healthz, the same for everyone; undefined for any other path. */
function serveFixed(
  files: ReadonlyMap<string, StaticFile>,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): string | undefined {
  const file = files.get(path);
  if (file !== undefined) {
    res.writeHead(200, {
      'Content-Type': file.type,
      'Content-Length': file.body.length,
      'Cache-Control': `public, max-age=${file.maxAgeS}`,
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
 * Everything before the page: the visitor cookie, the form and its CSRF token, and for a signed-in route who
 * the session is. Undefined when the request was answered here (refused, or sent to sign in).
 */
async function admit<F extends FoundRoute, V>(
  app: WebApp<F, V>,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  found: F,
): Promise<Admission<V> | undefined> {
  const { csrf, cookies: names } = app;
  const { route } = found;
  const cookieOptions = { secure: app.secureCookies };
  const cookies = readCookies(req);
  const sessionToken = cookies.get(names.session) ?? '';
  let visitorId = cookies.get(names.visitor);
  const setCookies: string[] = [];
  if (!route.signedIn && visitorId === undefined && route.method === 'GET') {
    visitorId = newVisitorId();
    setCookies.push(httpOnlyCookie(names.visitor, visitorId, VISITOR_COOKIE_MAX_AGE_S, cookieOptions));
  }
  const visitorCsrf = visitorId === undefined ? '' : csrf.forVisitor(visitorId);

  let form = new URLSearchParams();
  if (route.method === 'POST') {
    const body = await readForm(req);
    if (body === undefined) {
      sendPage(res, 413, app.pages.message('That form was too large', 'Go back and try again with less text.'));
      return undefined;
    }
    form = body;
    if (route.signedIn && sessionToken === '') {
      // A POST from a browser that is not signed in (its session cookie ended with the session).
      redirect(res, SESSION_ENDED_PATH, setCookies);
      return undefined;
    }
    // The synchroniser token: for a signed-in form, the HMAC of this session's token; for a
    // form shown before sign-in, of this browser's visitor cookie. Checked before the core is asked.
    const expected = route.signedIn ? csrf.forSession(sessionToken) : visitorCsrf;
    if (expected === '' || !csrf.check(form.get(CSRF_FIELD) ?? undefined, expected)) {
      sendPage(res, 403, csrfPage(app.pages));
      return undefined;
    }
  }

  let viewer: V | undefined;
  if (route.signedIn) {
    if (sessionToken === '') {
      redirect(res, SIGN_IN_PATH, setCookies);
      return undefined;
    }
    try {
      viewer = await app.viewer({ sessionToken, csrfToken: csrf.forSession(sessionToken), req, found });
    } catch (error) {
      send(req, res, refusalAnswer(app, error, undefined, setCookies), setCookies);
      return undefined;
    }
  }
  return {
    url,
    form,
    sessionToken,
    viewer,
    visitorCsrf,
    setCookies,
    startSession: (token) => setCookies.push(httpOnlyCookie(names.session, token, names.sessionMaxAgeS, cookieOptions)),
    endSession: () => setCookies.push(clearedCookie(names.session, cookieOptions)),
  };
}

/** A refusal from the core that the page did not handle itself; anything else is thrown on (a bug). */
function refusalAnswer<F extends FoundRoute, V>(
  app: WebApp<F, V>,
  error: unknown,
  viewer: V | undefined,
  setCookies: string[],
): DoorAnswer {
  const refusal = refusalOf(error);
  const { kind } = refusal;
  if (kind === 'signed_out') {
    const cookieOptions = { secure: app.secureCookies };
    for (const name of [app.cookies.session, ...(app.cookies.signInSteps ?? [])])
      setCookies.push(clearedCookie(name, cookieOptions));
    return { kind: 'redirect', location: SESSION_ENDED_PATH };
  }
  if (kind === 'unavailable') app.log.error(`${app.service}.core_failed`, { message: refusal.message });
  return { kind: 'page', status: REFUSAL_STATUS[kind], body: app.pages.refused({ ...refusal, kind }, viewer) };
}

function csrfPage<V>(pages: DoorPages<V>): SafeHtml {
  return pages.message(
    'That form could not be accepted',
    'The form was missing its security token, or it came from another page or an earlier sign-in. Nothing was ' +
      'changed. Go back, reload the page and send it again.',
  );
}
