/**
 * An open grpc.health.v1.Health/Watch does not hold the stop: grpc-go and
 * grpc-java client-side health checks and Envoy keep one open all the time. On SIGTERM each
 * watcher is sent NOT_SERVING once, its stream ends with status OK, and the service exits 0
 * without reaching SHUTDOWN_TIMEOUT_MS. A real grpc-js client watches a real `npm start`
 * service (node dist/bin/start.js).
 */
import {
  type ClientReadableStream,
  credentials,
  makeClientConstructor,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import * as assert from 'uvu/assert';
import { PurchaseService } from '../../gen/prepaid/v1/purchase_pb.js';
import { suite } from '../helpers/suite.js';
import { type Service, startService } from './service.js';

const test = suite('ops: health Watch during a stop');

interface Watched {
  statuses: string[];
  /** Resolves with the stream's final gRPC status code. */
  ended: Promise<number>;
  /** Resolves once the first status has arrived. */
  first: Promise<void>;
}

function watch(address: string, service: string): Watched {
  const Health = makeClientConstructor(healthService, 'Health');
  const client = new Health(address, credentials.createInsecure()) as unknown as {
    watch(request: { service: string }): ClientReadableStream<{ status: string }>;
    close(): void;
  };
  const stream = client.watch({ service });
  const statuses: string[] = [];
  let gotFirst!: () => void;
  const first = new Promise<void>((resolve) => (gotFirst = resolve));
  stream.on('data', (message: { status: string }) => {
    statuses.push(message.status);
    gotFirst();
  });
  const ended = new Promise<number>((resolve) => {
    stream.on('status', (final: { code: number }) => resolve(final.code));
    stream.on('error', (error: ServiceError) => resolve(error.code));
  }).finally(() => client.close());
  return { statuses, ended, first };
}

test(
  'SIGTERM with Watch streams open: each gets NOT_SERVING once, ends OK, and the service exits 0 without ' +
    'the timeout',
  async () => {
    let service: Service | undefined;
    try {
      service = await startService({ SHUTDOWN_DRAIN_MS: '200', SHUTDOWN_TIMEOUT_MS: '15000' });
      const address = service.coreUrl.replace('http://', '');
      const watchers = [watch(address, ''), watch(address, PurchaseService.typeName), watch(address, '')];
      await Promise.all(watchers.map((w) => w.first));
      for (const w of watchers) assert.equal(w.statuses, ['SERVING']);

      service.child.kill('SIGTERM');
      const codes = await Promise.all(watchers.map((w) => w.ended));
      const exit = await service.exited;

      assert.equal(codes, [status.OK, status.OK, status.OK], 'every Watch stream ended with OK');
      for (const w of watchers) assert.equal(w.statuses, ['SERVING', 'NOT_SERVING'], 'NOT_SERVING exactly once');
      assert.equal(exit, { code: 0, signal: null }, service.stderr());
      const events = service.lines().map((l) => l.event);
      assert.not.ok(events.includes('shutdown.timeout_error'), 'the stop did not run into SHUTDOWN_TIMEOUT_MS');
      assert.ok(events.includes('shutdown.completed'));
    } finally {
      await service?.cleanup();
    }
  },
);

test.run();
