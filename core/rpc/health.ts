/**
 * grpc.health.v1.Health for the core: Check, List and Watch over the same status map as
 * grpc-health-check's implementation (whose service definition it serves), with two things
 * that library lacks and a graceful stop needs:
 * - a Watch stream is sent a status only when it changes, so a drain that sets NOT_SERVING
 *   again sends nothing twice;
 * - endWatches() ends every open Watch stream (and any opened later answers its status and
 *   ends at once), because an open server stream keeps the server's tryShutdown waiting
 *   until SHUTDOWN_TIMEOUT_MS: grpc-go and grpc-java client-side health checks and Envoy
 *   hold one open all the time.
 */
import {
  type Server,
  type ServerUnaryCall,
  type ServerWritableStream,
  status as StatusCode,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

export type ServingStatus = 'SERVING' | 'NOT_SERVING';
type WatchStatus = ServingStatus | 'SERVICE_UNKNOWN';

/** As grpc-health-check: List refuses past this many services. */
const LIST_LIMIT = 100;

export interface CoreHealth {
  setStatus(service: string, status: ServingStatus): void;
  /** Ends every open Watch stream with status OK, after the status it last sent; later Watch calls end at once. */
  endWatches(): void;
  addToServer(server: Server): void;
}

interface Watcher {
  service: string;
  call: ServerWritableStream<{ service: string }, { status: WatchStatus }>;
  last: WatchStatus;
}

export function createHealth(initial: Record<string, ServingStatus>): CoreHealth {
  const statuses = new Map<string, ServingStatus>(Object.entries(initial));
  const watchers = new Set<Watcher>();
  let ended = false;

  const send = (watcher: Watcher, status: WatchStatus) => {
    if (watcher.last === status) return;
    watcher.last = status;
    watcher.call.write({ status });
  };
  const end = (watcher: Watcher) => {
    watchers.delete(watcher);
    watcher.call.end();
  };

  return {
    setStatus(service, status) {
      statuses.set(service, status);
      for (const watcher of watchers) if (watcher.service === service) send(watcher, status);
    },
    endWatches() {
      ended = true;
      for (const watcher of [...watchers]) end(watcher);
    },
    addToServer(server) {
      server.addService(healthService, {
        check(call: ServerUnaryCall<{ service: string }, unknown>, callback: sendUnaryData<{ status: ServingStatus }>) {
          const status = statuses.get(call.request.service);
          if (status) callback(null, { status });
          else
            callback({
              code: StatusCode.NOT_FOUND,
              details: `Health status unknown for service ${call.request.service}`,
            });
        },
        watch(call: ServerWritableStream<{ service: string }, { status: WatchStatus }>) {
          const watcher: Watcher = { service: call.request.service, call, last: 'SERVING' };
          const current = statuses.get(watcher.service) ?? 'SERVICE_UNKNOWN';
          // The first message always goes out, whatever it is.
          watcher.last = current;
          call.write({ status: current });
          if (ended) {
            call.end();
            return;
          }
          watchers.add(watcher);
          call.on('cancelled', () => watchers.delete(watcher));
        },
        list(
          _call: ServerUnaryCall<unknown, unknown>,
          callback: sendUnaryData<{ statuses: Record<string, { status: ServingStatus }> }>,
        ) {
          if (statuses.size > LIST_LIMIT) {
            callback({ code: StatusCode.RESOURCE_EXHAUSTED, details: 'Too many services to list.' });
            return;
          }
          callback(null, { statuses: Object.fromEntries([...statuses].map(([name, status]) => [name, { status }])) });
        },
      });
    },
  };
}
