/**
 * The dashboard's client of the core: the HolderService over the one connection that
 * runtime/core-transport.ts opens per process, with the service token as bearer. Every call
 * after sign-in carries the browser's session token in the request; the core decides what
 * that session may see and do.
 */
import { type Client, Code, ConnectError, createClient } from '@connectrpc/connect';
import { BadRequestSchema } from '../gen/google/rpc/error_details_pb.js';
import { ApiAccessService } from '../gen/prepaid/v1/access_pb.js';
import { HolderFundingService } from '../gen/prepaid/v1/funding_pb.js';
import { HolderService } from '../gen/prepaid/v1/holder_pb.js';
import { ShopService } from '../gen/prepaid/v1/shop_pb.js';
import { Mode } from '../gen/prepaid/v1/types_pb.js';
import { createCoreTransport } from '../runtime/core-transport.js';

/** The core's services as the dashboard uses them. */
export interface DashboardCore {
  holder: Client<typeof HolderService>;
  /** Buying from the developer area, for the session's account. */
  shop: Client<typeof ShopService>;
  /** Requests for API access, and the first key pair after an approval. */
  access: Client<typeof ApiAccessService>;
  /** The Fund wallet page: the session's wallet's bank accounts, identity and low-balance threshold. */
  holderFunding: Client<typeof HolderFundingService>;
  /** Closes the connection to the core. */
  close(): void;
}

/** A page waits at most this long for the core; an export asks page by page, each bounded. */
const CALL_TIMEOUT_MS = 30_000;

export interface DashboardCoreOptions {
  coreUrl: string;
  serviceToken: string;
  ca?: Buffer;
  allowPlaintext?: boolean;
}

export function createDashboardCore(options: DashboardCoreOptions): DashboardCore {
  const transport = createCoreTransport({
    coreUrl: options.coreUrl,
    token: options.serviceToken,
    defaultTimeoutMs: CALL_TIMEOUT_MS,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    ...(options.allowPlaintext === undefined ? {} : { allowPlaintext: options.allowPlaintext }),
  });
  return {
    holder: createClient(HolderService, transport),
    shop: createClient(ShopService, transport),
    access: createClient(ApiAccessService, transport),
    holderFunding: createClient(HolderFundingService, transport),
    close: () => transport.close(),
  };
}

/** The core's Mode for a page's mode: every mode-scoped call names it, live included. */
export function coreMode(mode: 'live' | 'test'): Mode {
  return mode === 'test' ? Mode.TEST : Mode.LIVE;
}

/** How a failed core call is shown: the kind decides the page, `fields` the messages beside fields. */
export interface CoreRefusal {
  kind: 'signed_out' | 'forbidden' | 'not_found' | 'invalid' | 'refused' | 'unavailable';
  /** The core's own sentence (never a stack): what to show. */
  message: string;
  /** Field name -> plain sentence, from the core's BadRequest. */
  fields: Map<string, string>;
}

/** Reads a failed call; anything that is not a ConnectError is a bug and is thrown on. */
export function refusalOf(error: unknown): CoreRefusal {
  if (!(error instanceof ConnectError)) throw error;
  const fields = new Map<string, string>();
  for (const detail of error.findDetails(BadRequestSchema)) {
    for (const violation of detail.fieldViolations)
      if (!fields.has(violation.field)) fields.set(violation.field, violation.description);
  }
  const message = error.rawMessage;
  switch (error.code) {
    case Code.Unauthenticated:
      return { kind: 'signed_out', message, fields };
    case Code.PermissionDenied:
      return { kind: 'forbidden', message, fields };
    case Code.NotFound:
      return { kind: 'not_found', message, fields };
    case Code.InvalidArgument:
      return { kind: 'invalid', message, fields };
    case Code.FailedPrecondition:
    case Code.AlreadyExists:
    case Code.ResourceExhausted:
    case Code.OutOfRange:
      return { kind: 'refused', message, fields };
    default:
      return { kind: 'unavailable', message, fields };
  }
}
