/**
 * What a page of the console is: the route the server matches, what its handler gets and what
 * it answers. Pages import these from here, never from server.ts (which imports the pages), as
 * the developer area's pages do with dashboard/route.ts. A signed-in route's handler gets a
 * context whose viewer is known: the door (web/door.ts) has asked the core who the session is.
 */
import type { Client } from '@connectrpc/connect';
import type { ConsoleService } from '../gen/prepaid/v1/console_pb.js';
import type { KycConsoleService } from '../gen/prepaid/v1/kyc_pb.js';
import type { Admission, DoorAnswer, SignedIn, WebRoute } from '../web/door.js';
import type { StaffViewer } from './layout.js';

/** The console's client of the core's ConsoleService, and of its identity-level queue (KycConsoleService). */
export type ConsoleCore = Client<typeof ConsoleService> & { readonly kyc: Client<typeof KycConsoleService> };

/** What a page handler answers. */
export type Answer =
  | Exclude<DoorAnswer, { kind: 'written' }>
  /** A file to save (a report's CSV): never cached, never shown in the page. */
  | { kind: 'download'; filename: string; contentType: string; body: string };

/** Everything a page handler gets: what the door found (the form, the session, its cookies) and the page's own. */
export interface PageContext extends Admission<StaffViewer> {
  params: readonly string[];
  core: ConsoleCore;
  /** The member's address, for the core's throttle and the audit log. */
  clientAddress: string;
}

/** The context of a signed-in route: who the core says the session is, already asked. */
export type SignedInContext = SignedIn<PageContext>;

/** A page: its method and path, whether the member must be signed in, and its handler. */
export type Route = WebRoute<PageContext, Answer>;
