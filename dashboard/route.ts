/**
 * What a page of the developer area is: the route the server matches, what its handler gets and
 * what it answers. Pages import these from here, never from server.ts (which imports the pages).
 * A signed-in route's handler gets a context whose viewer is known: the door (web/door.ts) has
 * asked the core who the session is before the handler runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Admission, DoorAnswer, SignedIn, WebRoute } from '../web/door.js';
import type { Csrf } from '../web/security.js';
import type { DashboardConfig } from './config.js';
import type { DashboardCore } from './core-client.js';
import type { DashboardMode, Viewer } from './layout.js';

/** What a page handler answers: a page, a redirect, or `written` when it wrote the answer itself (a CSV stream). */
export type Answer = DoorAnswer;

/** Everything a page handler gets: what the door found (the form, the session, its cookies) and the page's own. */
export interface PageContext extends Admission<Viewer> {
  req: IncomingMessage;
  res: ServerResponse;
  /** Groups of the route's pattern (for example a reference). */
  params: readonly string[];
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
  /** Live, or test under the /test prefix: which wallet and keys the page asks the core for. */
  mode: DashboardMode;
  /** A path of this dashboard in the page's mode (prefixed with /test in test mode). */
  link(path: string): string;
}

/** The context of a signed-in route: who the session is, already asked of the core. */
export type SignedInContext = SignedIn<PageContext>;

/**
 * One route: a method, a path (exact, or a pattern whose groups become params), and its
 * handler. A signed-in route needs a session the core knows, and its handler gets the viewer.
 * A route with `testMode` is also served under /test, for the test wallet and keys (the handler
 * honours ctx.mode).
 */
export type Route = WebRoute<PageContext, Answer> & { testMode?: boolean };
