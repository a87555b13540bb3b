/**
 * The gateway's clients of the core: one gRPC (HTTP/2) connection per process, shared by
 * every request, with the service token added to every call by an interceptor.
 */
import { createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { Health } from '../gen/grpc/health/v1/health_pb.js';
import { AuthService } from '../gen/prepaid/v1/auth_pb.js';
import { PurchaseService } from '../gen/prepaid/v1/purchase_pb.js';
import { createUnaryGrpcTransport } from './grpc-transport.js';

/** The core's services as the gateway uses them. */
export interface CoreClients {
  purchase: Client<typeof PurchaseService>;
  auth: Client<typeof AuthService>;
  health: Client<typeof Health>;
  /** Closes the connection to the core; calls after this fail. */
  close(): void;
}

/**
 * A generous ceiling on any one call. Purchases wait for the provider inside the core, which
 * bounds that wait itself and answers PENDING when it runs out; this only stops a request
 * from hanging forever on a core that stopped answering.
 */
const CALL_TIMEOUT_MS = 60_000;

/** Builds the clients for a core at `coreUrl`, authenticated with `serviceToken`. */
export function createCoreClients(options: { coreUrl: string; serviceToken: string }): CoreClients {
  const authorization = `Bearer ${options.serviceToken}`;
  const addToken: Interceptor = (next) => async (req) => {
    req.header.set('authorization', authorization);
    return next(req);
  };
  // The lean unary transport (see grpc-transport.ts for why and what it measured); the
  // clients, interceptors and errors are Connect's all the same.
  const transport = createUnaryGrpcTransport({
    baseUrl: options.coreUrl,
    interceptors: [addToken],
    defaultTimeoutMs: CALL_TIMEOUT_MS,
  });
  return {
    purchase: createClient(PurchaseService, transport),
    auth: createClient(AuthService, transport),
    health: createClient(Health, transport),
    close: () => transport.close(),
  };
}
