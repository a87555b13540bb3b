/**
 * The gateway's clients of the core: the services it calls, over the one connection that
 * runtime/core-transport.ts opens per process, with the service token on every call.
 */

import { type Client, createClient } from '@connectrpc/connect';
import { Health } from '../gen/grpc/health/v1/health_pb.js';
import { AuthService } from '../gen/prepaid/v1/auth_pb.js';
import { FundingCallbackService, HolderFundingService } from '../gen/prepaid/v1/funding_pb.js';
import { PurchaseService } from '../gen/prepaid/v1/purchase_pb.js';
import { EventService } from '../gen/prepaid/v1/webhooks_pb.js';
import { createCoreTransport } from '../runtime/core-transport.js';

/** The core's services as the gateway uses them. */
export interface CoreClients {
  purchase: Client<typeof PurchaseService>;
  auth: Client<typeof AuthService>;
  /** The events feed. */
  events: Client<typeof EventService>;
  health: Client<typeof Health>;
  /** Providers' funding notifications (POST /callbacks/paystack, /callbacks/monnify). */
  funding: Client<typeof FundingCallbackService>;
  /** The caller's funding accounts and fee (GET ?action=funding). */
  holderFunding: Client<typeof HolderFundingService>;
  /** Closes the connection to the core; calls after this fail. */
  close(): void;
}

/**
 * A generous ceiling on any one call. Purchases wait for the provider inside the core, which
 * bounds that wait itself and answers PENDING when it runs out; this only stops a request
 * from hanging forever on a core that stopped answering.
 */
const CALL_TIMEOUT_MS = 60_000;

/** How the gateway reaches the core. */
export interface CoreClientOptions {
  coreUrl: string;
  serviceToken: string;
  /** The CA certificates (PEM) of an https:// core; the system's roots when absent. */
  ca?: Buffer;
  /** The operator accepted http:// to another machine (CORE_ALLOW_PLAINTEXT=yes). */
  allowPlaintext?: boolean;
  /** What counts as this machine (tests stand a remote address in for it). */
  isLoopback?: (hostname: string) => boolean;
}

/** Builds the clients for a core at `coreUrl`, authenticated with `serviceToken`. */
export function createCoreClients(options: CoreClientOptions): CoreClients {
  const transport = createCoreTransport({
    coreUrl: options.coreUrl,
    token: options.serviceToken,
    defaultTimeoutMs: CALL_TIMEOUT_MS,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    ...(options.allowPlaintext === undefined ? {} : { allowPlaintext: options.allowPlaintext }),
    ...(options.isLoopback === undefined ? {} : { isLoopback: options.isLoopback }),
  });
  return {
    purchase: createClient(PurchaseService, transport),
    auth: createClient(AuthService, transport),
    events: createClient(EventService, transport),
    health: createClient(Health, transport),
    funding: createClient(FundingCallbackService, transport),
    holderFunding: createClient(HolderFundingService, transport),
    close: () => transport.close(),
  };
}
