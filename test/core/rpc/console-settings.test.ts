/**
 * The console's catalogue, settings and staff RPCs over real gRPC: every role reads, only an
 * admin changes (each kind of change refused to support and finance in the core); a change is
 * audited once, with the member and their address, and the CLI's tier and SMS-rate changes now
 * too, with before and after; each tier's price of a plan says whether it is fixed, a rule or a
 * discount; a role change takes effect on the member's open session; the last active admin
 * keeps their role and stays enabled.
 */
import { create } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { TierPriceSchema } from '../../../gen/prepaid/v1/admin_pb.js';
import type { ChangeCatalogueRequest } from '../../../gen/prepaid/v1/console_pb.js';
import { Product } from '../../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { consoleClients, type SignedInStaff, signedInStaff, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const test = suite('console rpc: catalogue, settings and staff');
const clock = new TestClock();
let core: TestCore;
let admin: SignedInStaff;

test.before(async () => {
  core = await startCore({ clock: clock.now });
  admin = await signedInStaff(core, clock, 'admin', 'ada@ops.example.ng');
});
test.after(async () => {
  await core.close();
});

const at = '198.51.100.4';

/** One change of each kind the console can ask for. */
const CHANGES: ChangeCatalogueRequest['change'][] = [
  { case: 'tier', value: { tier: { tierId: 'api', name: 'Cheap', apiAccess: true, discounts: [] } } as never },
  { case: 'planCost', value: { planId: 1n, upstream: 'sandbox', costKobo: 100_00n, note: '' } as never },
  { case: 'priceRule', value: { tierId: 'api', rule: { marginBasisPoints: 100 }, remove: false, note: '' } as never },
  { case: 'planType', value: { network: 'mtn', planType: 'sme', enabled: false, note: '' } as never },
  { case: 'smsRate', value: { koboPerPage: 1n } as never },
  { case: 'route', value: { key: { product: Product.AIRTIME }, upstreams: ['sandbox'] } as never },
  { case: 'clearRoute', value: { key: { product: Product.AIRTIME } } as never },
  { case: 'floatAlert', value: { name: 'sandbox', alertKobo: 1n } as never },
];

test('support and finance read the catalogue and settings; the core refuses them every change', async () => {
  const { console } = consoleClients(core);
  for (const role of ['support', 'finance'] as const) {
    const member = await signedInStaff(core, clock, role);
    const session = { sessionToken: member.token, clientAddress: at };
    const catalogue = await console.getCatalogue({ ...session, network: 'mtn' });
    assert.ok(catalogue.tiers.length > 0 && catalogue.plans.length > 0, `${role} reads the catalogue`);
    assert.ok((await console.getSupplySettings(session)).routes!.defaults.length > 0, `${role} reads the routes`);
    for (const change of CHANGES) {
      const refused = await rejection(console.changeCatalogue({ ...session, change } as never));
      assert.is(refused.code, Code.PermissionDenied, `${role} may not change ${change.case}`);
    }
    for (const call of [
      () => console.listStaffMembers(session),
      () => console.inviteStaffMember({ ...session, email: 'x@ops.example.ng', role: 'admin' }),
      () => console.setStaffRole({ ...session, email: member.email, role: 'admin' }),
      () => console.disableStaffMember({ ...session, email: admin.email }),
    ])
      assert.is((await rejection(call())).code, Code.PermissionDenied, `${role} may not manage staff`);
  }
  assert.is((await core.admin.getSmsRate({})).koboPerPage, 350n, 'nothing changed');
  assert.equal(
    (await consoleClients(core).staffAdmin.listAudit({ filter: { action: 'prices.' } })).entries,
    [],
    'nothing audited',
  );
});

test('an admin change is audited once with member and address; CLI tier and SMS rate changes keep both', async () => {
  const { console, staffAdmin } = consoleClients(core);
  const session = { sessionToken: admin.token, clientAddress: at };
  await console.changeCatalogue({ ...session, change: { case: 'smsRate', value: { koboPerPage: 400n } } as never });
  await core.admin.setSmsRate({ koboPerPage: 375n });
  const rows = (await staffAdmin.listAudit({ filter: { target: 'sms_rate' } })).entries;
  assert.equal(
    rows.map((r) => [r.action, r.actor, r.address, r.before, r.after]).sort((a, b) => a[1]!.localeCompare(b[1]!)),
    [
      ['prices.sms_rate', 'cli', '', '{"kobo_per_page":400}', '{"kobo_per_page":375}'],
      ['prices.sms_rate', 'staff:ada@ops.example.ng', at, '{"kobo_per_page":350}', '{"kobo_per_page":400}'],
    ],
  );
  await core.admin.upsertTier({ tier: { tierId: 'partner', name: 'Partner', apiAccess: true, discounts: [] } });
  const tierRows = (await staffAdmin.listAudit({ filter: { target: 'tier:partner' } })).entries;
  assert.equal(
    tierRows.map((r) => [r.action, r.actor, r.before]),
    [['tiers.upsert', 'cli', '']],
    'one row, no generic admin.upsertTier beside it',
  );
  const empty = await rejection(console.changeCatalogue(session));
  assert.is(empty.code, Code.InvalidArgument);
});

test("each tier's price of a plan says where it comes from: fixed, rule or discount", async () => {
  const { console } = consoleClients(core);
  const session = { sessionToken: admin.token, clientAddress: at };
  await core.admin.upsertTier({ tier: { tierId: 'bronze', name: 'Bronze', apiAccess: false, discounts: [] } });
  const before = await console.getCatalogue({ ...session, network: 'glo' });
  const plan = before.plans[0]!.plan!;
  const basis = async (tierId: string) =>
    (await console.getCatalogue({ ...session, network: 'glo' })).plans
      .find((p) => p.plan!.planId === plan.planId)!
      .prices.find((p) => p.tierId === tierId)!;
  assert.is((await basis('bronze')).basis, 'discount');
  await console.changeCatalogue({
    ...session,
    change: { case: 'planCost', value: { planId: plan.planId, upstream: 'sandbox', costKobo: 200_00n, note: '' } },
  } as never);
  await console.changeCatalogue({
    ...session,
    change: {
      case: 'priceRule',
      value: { tierId: 'bronze', rule: { network: 'glo', marginBasisPoints: 1000 }, remove: false, note: 'test' },
    },
  } as never);
  assert.equal(await basis('bronze'), { ...(await basis('bronze')), priceKobo: 220_00n, basis: 'rule' });
  await core.admin.upsertPlan({
    plan: {
      ...plan,
      tierPrices: [...plan.tierPrices, create(TierPriceSchema, { tierId: 'bronze', priceKobo: 199_00n })],
    },
  });
  assert.equal([(await basis('bronze')).priceKobo, (await basis('bronze')).basis], [199_00n, 'fixed']);
});

test('a role change reaches the open session at once; the last active admin keeps the role', async () => {
  const { console } = consoleClients(core);
  const session = { sessionToken: admin.token, clientAddress: at };
  const lone = await rejection(console.setStaffRole({ ...session, email: admin.email, role: 'support' }));
  assert.is(lone.code, Code.FailedPrecondition);
  assert.match(lone.message, /last active admin/);
  assert.is(
    (await rejection(console.disableStaffMember({ ...session, email: admin.email }))).code,
    Code.FailedPrecondition,
  );

  const bola = await signedInStaff(core, clock, 'admin', 'bola@ops.example.ng');
  const bolaSession = { sessionToken: bola.token, clientAddress: at };
  await console.changeCatalogue({ ...bolaSession, change: { case: 'smsRate', value: { koboPerPage: 360n } } } as never);
  const { member } = await console.setStaffRole({ ...session, email: bola.email, role: 'finance' });
  assert.is(member?.role, 'finance');
  const now = await rejection(
    console.changeCatalogue({ ...bolaSession, change: { case: 'smsRate', value: { koboPerPage: 370n } } } as never),
  );
  assert.is(now.code, Code.PermissionDenied, 'the new role applies to the session already open');
  // Another admin exists again, so Ada may step down; then Bola is the last and keeps the role.
  await console.setStaffRole({ ...session, email: bola.email, role: 'admin' });
  assert.is((await console.setStaffRole({ ...session, email: admin.email, role: 'support' })).member?.role, 'support');
  const last = await rejection(console.setStaffRole({ ...bolaSession, email: bola.email, role: 'finance' }));
  assert.is(last.code, Code.FailedPrecondition);
});

test.run();
