/**
 * What a dialect is (docs/compat.md): another site's API shape, answered at
 * `/compat/<dialect>/api/...` and at the root of COMPAT_PORT. A dialect routes its own paths,
 * reads its own token header, and writes every answer, refusals included, in its own shape;
 * the shared machinery here (handler.ts) does the rest as the main API's pipeline does it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dialect as DialectName, InFlightWord } from '../../core/domain/compat.js';
import type { Caller } from '../auth.js';
import type { JsonObject } from '../body.js';
import type { CoreClients } from '../core-client.js';
import type { ApiError } from '../errors.js';
import type { GatewayLogger } from '../log.js';

/** The key pair a compatible token acts as, with the token's in-flight word and the account's aliases. */
export interface CompatCaller extends Caller {
  inFlight: InFlightWord;
  /** The account's plan aliases in this dialect: alias id to our plan_id. */
  planAliases: ReadonlyMap<string, number>;
}

/** One request as a dialect's route sees it. */
export interface CompatRequest {
  caller: CompatCaller;
  method: 'GET' | 'POST';
  /** The request's headers, for a dialect whose login reads more than the token (Adex's Basic user name). */
  headers: IncomingHttpHeaders;
  /** The path's segments after `api/`, without empty ones: `/api/data/12` is ["data", "12"]. */
  segments: readonly string[];
  query: URLSearchParams;
  /** The JSON (or form) body of a POST; empty for GET. */
  body: JsonObject;
  core: CoreClients;
  log: GatewayLogger;
  /** When the wait for a purchase's outcome runs out (performance.now() milliseconds). */
  waitUntilMs: number;
}

/** An answer in the dialect's shape. */
export interface CompatAnswer {
  status: number;
  body: unknown;
}

/** One of a dialect's paths. */
export interface CompatRoute {
  /** The methods it takes; clients of one family use either for some paths. */
  methods: readonly ('GET' | 'POST')[];
  /**
   * The key scope it needs (core/domain/key-controls.ts), or '': a route every token may call
   * (Adex's login), or one that checks the scope itself (VTpass's `pay` knows the product only
   * from the body).
   */
  scope: string;
  handle(request: CompatRequest): Promise<CompatAnswer>;
}

export interface Dialect {
  name: DialectName;
  /** The route of a path's segments after `api/`; undefined is the dialect's 404. */
  route(segments: readonly string[]): CompatRoute | undefined;
  /** The token a request presents, whatever the spacing; undefined when none is there. */
  tokenOf(headers: IncomingHttpHeaders): string | undefined;
  /** Anything else a dialect publishes about itself (Adex: its OpenAPI paths). */
  openApiPaths?: Readonly<Record<string, unknown>>;
  /** Answers for the machinery's own refusals. */
  unauthorized(missing: boolean): CompatAnswer;
  notFound(): CompatAnswer;
  methodNotAllowed(method: string): CompatAnswer;
  throttled(retryAfterSeconds: number): CompatAnswer;
  /** Any other refusal (ours, or the core's), in the dialect's error shape. */
  refusal(error: ApiError): CompatAnswer;
}
