/**
 * Who may call what: bearer tokens in gRPC metadata (the service token for the purchase and
 * auth services, the admin token for everything), and the AuthService's success path.
 */

import { Code, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as assert from 'uvu/assert';
import { AdminService } from '../../../gen/prepaid/v1/admin_pb.js';
import { AuthService } from '../../../gen/prepaid/v1/auth_pb.js';
import { PurchaseService } from '../../../gen/prepaid/v1/purchase_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

let core!: TestCore;

const test = suite('bearer tokens');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

/** A client that sends `authorization` exactly as given, or nothing at all. */
function rawClient<T extends typeof AdminService | typeof PurchaseService | typeof AuthService>(
  service: T,
  authorization: string | null,
) {
  const transport = createGrpcTransport({
    baseUrl: core.url,
    interceptors:
      authorization === null
        ? []
        : [
            (next) => (req) => {
              req.header.set('authorization', authorization);
              return next(req);
            },
          ],
  });
  return createClient(service, transport);
}

/** One cheap call per service, so every service's gate is exercised. */
const CALLS = {
  PurchaseService: (token: string | null, raw = false) =>
    (raw ? rawClient(PurchaseService, token) : core.clientWithToken(PurchaseService, token ?? '')).getBalance({
      accountId: 'acc_0000000000000000',
    }),
  AuthService: (token: string | null, raw = false) =>
    (raw ? rawClient(AuthService, token) : core.clientWithToken(AuthService, token ?? '')).verifyKeyPair({
      publicKey: 'pk_x',
      secretKey: 'sk_x',
    }),
  AdminService: (token: string | null, raw = false) =>
    (raw ? rawClient(AdminService, token) : core.clientWithToken(AdminService, token ?? '')).listTiers({}),
} as const;

for (const [service, call] of Object.entries(CALLS)) {
  test(`${service}: no token is UNAUTHENTICATED`, async () => {
    const refused = await rejection(call(null, true));
    assert.is(refused.code, Code.Unauthenticated);
    assert.is(refused.reason, 'UNAUTHENTICATED');
    assert.match(refused.message, /bearer token is required/);
  });

  test(`${service}: a token the core does not know is UNAUTHENTICATED`, async () => {
    const refused = await rejection(call('not-a-real-token-at-all'));
    assert.is(refused.code, Code.Unauthenticated);
    assert.is(refused.reason, 'UNAUTHENTICATED');
  });

  test(`${service}: a header that is not "Bearer <token>" is UNAUTHENTICATED`, async () => {
    const refused = await rejection(call(`Basic ${core.adminToken}`, true));
    assert.is(refused.code, Code.Unauthenticated);
  });
}

test('the service token calls PurchaseService and AuthService', async () => {
  const api = await core.createApiAccount({ balanceKobo: 100_00 });
  const purchase = core.clientWithToken(PurchaseService, core.serviceToken);
  assert.is((await purchase.getBalance({ accountId: api.accountId })).balanceKobo, 100_00n);
  const auth = core.clientWithToken(AuthService, core.serviceToken);
  assert.is(
    (await auth.verifyKeyPair({ publicKey: api.publicKey, secretKey: api.secretKey })).accountId,
    api.accountId,
  );
});

test('the service token cannot call AdminService: PERMISSION_DENIED', async () => {
  const refused = await rejection(CALLS.AdminService(core.serviceToken));
  assert.is(refused.code, Code.PermissionDenied);
  assert.is(refused.reason, 'PERMISSION_DENIED');
  const credit = await rejection(
    core
      .clientWithToken(AdminService, core.serviceToken)
      .creditWallet({ accountId: 'acc_0000000000000000', amountKobo: 100n }),
  );
  assert.is(credit.code, Code.PermissionDenied);
});

test('the admin token calls AdminService, and the other two services as well', async () => {
  assert.ok((await CALLS.AdminService(core.adminToken)).tiers.length >= 2);
  const api = await core.createApiAccount({ balanceKobo: 100_00 });
  assert.is(
    (await core.clientWithToken(PurchaseService, core.adminToken).getBalance({ accountId: api.accountId })).balanceKobo,
    100_00n,
  );
  assert.is(
    (
      await core
        .clientWithToken(AuthService, core.adminToken)
        .verifyKeyPair({ publicKey: api.publicKey, secretKey: api.secretKey })
    ).tierId,
    'api',
  );
});

test('AuthService.VerifyKeyPair answers the account and tier of a valid key pair', async () => {
  const api = await core.createApiAccount();
  const verified = await core.auth.verifyKeyPair({
    publicKey: api.publicKey,
    secretKey: api.secretKey,
    clientIp: '198.51.100.20',
  });
  assert.equal([verified.accountId, verified.tierId], [api.accountId, 'api']);
});

test.run();
