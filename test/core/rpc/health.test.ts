/**
 * The operational face of the core: grpc.health.v1 answers SERVING for the server and each
 * service, and server reflection lists every service so `buf curl --list-methods` works.
 */

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Code, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as assert from 'uvu/assert';
import { Health, HealthCheckResponse_ServingStatus } from '../../../gen/grpc/health/v1/health_pb.js';
import { AdminService } from '../../../gen/prepaid/v1/admin_pb.js';
import { AuthService } from '../../../gen/prepaid/v1/auth_pb.js';
import { PurchaseService } from '../../../gen/prepaid/v1/purchase_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const BUF = fileURLToPath(new URL('../../../node_modules/.bin/buf', import.meta.url));
/** buf starts in well under a second here; the margin is for a loaded CI machine. */
const BUF_TIMEOUT_MS = 30_000;

let core!: TestCore;

const test = suite('health and reflection');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

const SERVICES = ['', PurchaseService.typeName, AuthService.typeName, AdminService.typeName];

for (const service of SERVICES) {
  test(`Health.Check("${service}") answers SERVING without any token`, async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: core.url }));
    const { status } = await health.check({ service });
    assert.is(status, HealthCheckResponse_ServingStatus.SERVING);
  });
}

test('Health.Check of a service the core does not serve is NOT_FOUND', async () => {
  const health = createClient(Health, createGrpcTransport({ baseUrl: core.url }));
  const refused = await rejection(health.check({ service: 'prepaid.v1.NoSuchService' }));
  assert.is(refused.code, Code.NotFound);
});

test('reflection lets buf curl list every method of the three services and health', async () => {
  // Asynchronous on purpose: the core answers reflection from this same process.
  const { stdout } = await promisify(execFile)(
    BUF,
    ['curl', '--list-methods', '--protocol', 'grpc', '--http2-prior-knowledge', core.url],
    {
      encoding: 'utf8',
      timeout: BUF_TIMEOUT_MS,
    },
  );
  const listed = new Set(
    stdout
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean),
  );
  const expected = [PurchaseService, AuthService, AdminService].flatMap((service) =>
    service.methods.map((m) => `${service.typeName}/${m.name}`),
  );
  for (const method of [...expected, 'grpc.health.v1.Health/Check']) {
    assert.ok(listed.has(method), `${method} is listed`);
  }
  assert.ok(listed.has('prepaid.v1.PurchaseService/BuyAirtime'));
  assert.ok(listed.has('prepaid.v1.AdminService/CreditWallet'));
});

test.run();
