/**
 * What a page of the developer area is: the route the server matches, what its handler gets and
 * what it answers. Pages import these from here, never from server.ts (which imports the pages).
 * A signed-in route's handler gets a context whose viewer is known: the server has asked the
 * core who the session is before the handler runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SafeHtml } from '../web/html.js';
import type { Csrf } from '../web/security.js';
import type { DashboardConfig } from './config.js';
import type { DashboardCore } from './core-client.js';
import type { DashboardMode, Viewer } from './layout.js';

/** What a page handler answers. */
export type Answer =
  | { kind: 'page'; status?: number; body: SafeHtml }
  | { kind: 'redirect'; location: string }
  /** The handler wrote the answer itself (a CSV stream). */
  | { kind: 'written' };

/** Everything a page handler gets. */
export interface PageContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Groups of the route's pattern (for example a reference). */
  params: readonly string[];
  /** The submitted form of a POST (its CSRF token already checked); empty for a GET. */
  form: URLSearchParams;
  /**
   * The account a signed-in form was made for (its hidden field, layout.ts formFields); '' for a GET. Every
   * call that acts on the account sends it, and the core refuses it when the session acts for another now.
   */
  formAccountId: string;
  config: DashboardConfig;
  core: DashboardCore;
  csrf: Csrf;
  /** The browser's address, for the core's sign-in throttling. */
  clientIp: string;
  /** Cookies to set with the answer. */
  setCookies: string[];
  /** Signed-in routes: the session token (from the cookie) and who it is. */
  sessionToken: string;
  viewer: Viewer | undefined;
  /** Public routes: the token their forms carry. */
  visitorCsrf: string;
  /** Live, or test under the /test prefix: which wallet and keys the page asks the core for. */
  mode: DashboardMode;
  /** A path of this dashboard in the page's mode (prefixed with /test in test mode). */
  link(path: string): string;
}

/** The context of a signed-in route: who the session is, already asked of the core. */
export interface SignedInContext extends PageContext {
  viewer: Viewer;
}

interface RouteBase {
  method: 'GET' | 'POST';
  path: string | RegExp;
  /** The label in log lines (never the raw path, which may hold an invitation token). */
  name: string;
  /** Also served under /test, for the test wallet and keys (the handler honours ctx.mode). */
  testMode?: boolean;
}

/**
 * One route: a method, a path (exact, or a pattern whose groups become params), and its
 * handler. A signed-in route needs a session the core knows, and its handler gets the viewer.
 */
export type Route =
  | (RouteBase & { signedIn: true; handler(ctx: SignedInContext): Promise<Answer> })
  | (RouteBase & { signedIn: false; handler(ctx: PageContext): Promise<Answer> });
