/**
 * What a page of the console is: the route the server matches, what its handler gets and what
 * it answers. Pages import these from here, never from server.ts (which imports the pages), as
 * the developer area's pages do with dashboard/route.ts.
 */
import type { Client } from '@connectrpc/connect';
import type { ConsoleService } from '../gen/prepaid/v1/console_pb.js';
import type { SafeHtml } from '../web/html.js';
import type { StaffViewer } from './layout.js';

/** The console's client of the core's ConsoleService. */
export type ConsoleCore = Client<typeof ConsoleService>;

/** What a page handler answers. */
export type Answer =
  | { kind: 'page'; status?: number; body: SafeHtml }
  | { kind: 'redirect'; location: string }
  /** A file to save (a report's CSV): never cached, never shown in the page. */
  | { kind: 'download'; filename: string; contentType: string; body: string };

/** Everything a page handler gets. */
export interface PageContext {
  url: URL;
  params: readonly string[];
  form: URLSearchParams;
  core: ConsoleCore;
  /** The member's address, for the core's throttle and the audit log. */
  clientAddress: string;
  sessionToken: string;
  /** Signed-in routes: who the core says the session is. */
  viewer: StaffViewer | undefined;
  /** Public routes: the token their forms carry. */
  visitorCsrf: string;
  /** Sets the session cookie (sign-in) or clears it (sign-out). */
  startSession(token: string): void;
  endSession(): void;
}

/** A page: its method and path, and whether the member must be signed in. */
export interface Route {
  method: 'GET' | 'POST';
  path: string | RegExp;
  /** The label in log lines (never the raw path, which may hold a set-up token). */
  name: string;
  signedIn: boolean;
  handler(ctx: PageContext): Promise<Answer>;
}
