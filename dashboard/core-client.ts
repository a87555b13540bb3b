/**
 * The dashboard's client of the core: the HolderService over the one connection that
 * runtime/core-transport.ts opens per process, with the service token as bearer. Every call
 * after sign-in carries the browser's session token in the request; the core decides what
 * that session may see and do.
 */
import { type Client, createClient } from '@connectrpc/connect';
import { modeOfWord } from '../core/domain/words.js';
import { ApiAccessService } from '../gen/prepaid/v1/access_pb.js';
import { HolderFundingService } from '../gen/prepaid/v1/funding_pb.js';
import { HolderService } from '../gen/prepaid/v1/holder_pb.js';
import { KycService } from '../gen/prepaid/v1/kyc_pb.js';
import { ShopService } from '../gen/prepaid/v1/shop_pb.js';
import type { Mode } from '../gen/prepaid/v1/types_pb.js';
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
  /** The Verify page's identity level: its limits, the request for the next, what is held. */
  kyc: Client<typeof KycService>;
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
    kyc: createClient(KycService, transport),
    close: () => transport.close(),
  };
}

/** The core's Mode for a page's mode: every mode-scoped call names it, live included. */
export function coreMode(mode: 'live' | 'test'): Mode {
  return modeOfWord(mode);
}
