/**
 * `prepaid routes` against a real core with two upstreams: the table lists the defaults and the
 * upstreams, `set` changes where the next purchase goes (audited with before and after, actor
 * cli), a name that is not configured is refused, `attempts` shows which upstream got a
 * purchase, and `clear` goes back to the default.
 */
import * as assert from 'uvu/assert';
import { ALL_SANDBOX, createProviders } from '../../core/providers/index.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite('cli: routes');
let core: TestCore;

test.before.each(async () => {
  core = await startCore({
    upstreams: (store) =>
      createProviders(
        {
          routing: ALL_SANDBOX,
          upstreams: [{ name: 'spare', kind: 'sandbox' }],
          sandboxDelayMs: 0,
          vtpass: null,
          vtpassSms: null,
        },
        { catalog: store.catalog },
      ),
  });
});
test.after.each(async () => {
  await core.close();
});

test('set sends the next purchase to the route’s first upstream, audited; clear restores the default', async () => {
  const listed = await runJson(core, ['routes', 'list']);
  assert.is(listed.code, 0, listed.stderr);
  assert.equal(listed.json['routes'], []);
  assert.ok((listed.json['upstreams'] as { name: string }[]).some((u) => u.name === 'spare'));

  const set = await runAgainst(core, ['routes', 'set', 'airtime', '--network', 'mtn', 'spare,sandbox']);
  assert.is(set.code, 0, set.stderr);
  assert.match(set.stdout, /spare,sandbox \(was none\)/);
  const audit = await core.store.auditLog.list({ action: 'routes.set', limit: 5 });
  assert.is(audit.length, 1);
  assert.equal(
    [audit[0]!.actor, audit[0]!.target, audit[0]!.before, audit[0]!.after],
    ['cli', 'route:airtime/mtn//', null, '["spare","sandbox"]'],
  );

  const { accountId } = await core.createApiAccount({ balanceKobo: 500_000 });
  const bought = await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 10_000n,
  });
  const reference = bought.transaction!.reference;
  const attempts = await runJson(core, ['routes', 'attempts', reference]);
  assert.equal(
    (attempts.json['attempts'] as { upstream: string; outcome: string }[]).map((a) => [a.upstream, a.outcome]),
    [['spare', 'delivered']],
  );
  const glo = await core.purchase.buyAirtime({ accountId, network: 'glo', phone: '08051234567', amountKobo: 10_000n });
  assert.equal(
    (await core.store.supply.attemptsOf(glo.transaction!.reference)).map((a) => a.upstream),
    ['sandbox'],
    'another network keeps the default',
  );

  const cleared = await runAgainst(core, ['routes', 'clear', 'airtime', '--network', 'mtn']);
  assert.is(cleared.code, 0, cleared.stderr);
  assert.is((await core.store.auditLog.list({ action: 'routes.clear', limit: 5 })).length, 1);
  const again = await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031234568',
    amountKobo: 10_000n,
  });
  assert.equal(
    (await core.store.supply.attemptsOf(again.transaction!.reference)).map((a) => a.upstream),
    ['sandbox'],
  );
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
});

test('bulk SMS is bulksms, as the API names it, in what the CLI prints; bulk_sms is still taken', async () => {
  const listed = await runJson(core, ['routes', 'list']);
  assert.is(listed.code, 0, listed.stderr);
  assert.ok(
    (listed.json['defaults'] as { product: string }[]).some((d) => d.product === 'bulksms'),
    'the defaults name it bulksms',
  );
  assert.ok(
    (listed.json['upstreams'] as { products: string[] }[]).some((u) => u.products.includes('bulksms')),
    'an upstream sells bulksms',
  );
  const table = await runAgainst(core, ['routes', 'list']);
  assert.match(table.stdout, /\bbulksms\b/);
  assert.not.match(`${JSON.stringify(listed.json)}${table.stdout}`, /bulk_sms/);
  for (const word of ['bulksms', 'bulk_sms']) {
    // Both words reach the core as bulk SMS, which refuses routing it: not the CLI's usage error.
    const set = await runAgainst(core, ['routes', 'set', word, 'sandbox']);
    assert.is(set.code, 1, set.stderr);
    assert.match(set.stderr, /Bulk SMS has one upstream/);
  }
});

test('a route naming an upstream that is not configured, or a bad product, is refused, changing nothing', async () => {
  const unknown = await runAgainst(core, ['routes', 'set', 'airtime', 'datahub']);
  assert.not.equal(unknown.code, 0);
  assert.match(unknown.stderr, /datahub is not a configured upstream/);
  const product = await runAgainst(core, ['routes', 'set', 'gas', 'sandbox']);
  assert.is(product.code, 2);
  const plan = await runAgainst(core, ['routes', 'set', 'airtime', '--plan-type', 'sme', 'sandbox']);
  assert.not.equal(plan.code, 0);
  assert.match(plan.stderr, /plan type/);
  assert.equal(await core.store.supply.listRoutes(), []);
  assert.equal(await core.store.auditLog.list({ action: 'routes.', limit: 5 }), []);
});

test('upstreams list shows each upstream; set-float-alert is audited and 0 removes it', async () => {
  const set = await runAgainst(core, ['upstreams', 'set-float-alert', 'spare', '50000']);
  assert.is(set.code, 0, set.stderr);
  assert.match(set.stdout, /spare: float alert .*50.?000.* \(was none\)/, set.stdout);
  const listed = await runJson(core, ['upstreams', 'list']);
  const spare = (listed.json['upstreams'] as Record<string, unknown>[]).find((u) => u['name'] === 'spare');
  assert.equal(
    [spare?.['kind'], spare?.['circuit'], spare?.['float_alert_kobo'], spare?.['purchases_last_hour']],
    ['sandbox', 'closed', 5_000_000, 0],
  );
  const audit = await core.store.auditLog.list({ action: 'upstreams.set_float_alert', limit: 5 });
  assert.equal([audit[0]?.actor, audit[0]?.target, audit[0]?.before], ['cli', 'upstream:spare', null]);
  const removed = await runJson(core, ['upstreams', 'set-float-alert', 'spare', '0']);
  assert.equal([removed.json['alert_kobo'], removed.json['before_kobo']], [null, 5_000_000]);
  const unknown = await runAgainst(core, ['upstreams', 'set-float-alert', 'nobody', '10']);
  assert.not.equal(unknown.code, 0);
});

test.run();
