/**
 * `prepaid plans sync`: the CLI asks the core's SyncPlans, the core reads VTpass's
 * service-variations (the fake) for the four data services and makes the catalog follow
 * them, matched by provider code, with plan ids that never change.
 */
import * as assert from 'uvu/assert';
import { splitName } from '../../../core/catalog/sync.js';
import { runAgainst, runJson } from '../../cli/run.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { type FakeVariation, startVtpassStack, type VtpassStack } from '../../helpers/fake-vtpass.js';
import { suite } from '../../helpers/suite.js';

const test = suite<{ stack: VtpassStack }>('plans sync');

test.before(async (ctx) => {
  ctx.stack = await startVtpassStack();
});

test.after(async ({ stack }) => {
  await stack.close();
});

type Change = { action: string; plan: Record<string, unknown>; before: Record<string, unknown> | null };

async function plansByCode(
  core: TestCore,
): Promise<Map<string, { planId: number; label: string; validity: string; faceValueKobo: number; active: boolean }>> {
  const { plans } = await core.admin.listCatalogPlans({ network: '' });
  return new Map(
    plans
      .filter((p) => p.providerCode !== '')
      .map((p) => [
        p.providerCode,
        {
          planId: Number(p.planId),
          label: p.label,
          validity: p.validity,
          faceValueKobo: Number(p.faceValueKobo),
          active: p.active,
        },
      ]),
  );
}

test('a dry run reports the plans it would create and writes nothing', async ({ stack }) => {
  const run = await runJson(stack.core, ['plans', 'sync', '--dry-run', 'yes']);
  assert.is(run.code, 0, run.stderr);
  assert.is(run.json['dry_run'], true);
  assert.is(run.json['created'], 9, 'the fake lists nine plans over the four networks');
  assert.ok((run.json['changes'] as Change[]).every((c) => c.action === 'created' && c.plan['plan_id'] === 0));
  assert.is((await plansByCode(stack.core)).size, 0, 'nothing written');
});

test('the first sync creates a plan per code with new ids; the old uncoded plans are left alone and listed', async ({
  stack,
}) => {
  const run = await runJson(stack.core, ['plans', 'sync']);
  assert.is(run.code, 0, run.stderr);
  assert.is(run.json['provider'], 'vtpass');
  assert.is(run.json['created'], 9);
  assert.is(run.json['updated'], 0);
  const plans = await plansByCode(stack.core);
  assert.is(plans.size, 9);
  const ids = [...plans.values()].map((p) => p.planId);
  assert.is(new Set(ids).size, 9, 'distinct ids');
  for (const seeded of [1, 2, 3, 101, 201, 301])
    assert.not.ok(ids.includes(seeded), 'new plans take new ids, never a seeded one');
  assert.equal(plans.get('mtn-100mb-1000'), {
    planId: plans.get('mtn-100mb-1000')!.planId,
    label: 'N1000 1.5GB',
    validity: '30 days',
    faceValueKobo: 1_000_00,
    active: true,
  });
  assert.equal((run.json['uncoded_plan_ids'] as number[]).length, 21, 'the 21 seeded plans have no provider code');
  assert.match(run.stderr, /21 active plan\(s\) have no provider code/);
});

test('a second sync keeps every plan id: changed plans updated in place, new codes created, vanished ones off', async ({
  stack,
}) => {
  const before = await plansByCode(stack.core);
  const fake = stack.fake;
  const mtn = fake.variations.get('mtn-data')!;
  const changed: FakeVariation[] = [
    { ...mtn[0]!, variation_amount: '120.00' }, // a new price
    { ...mtn[1]!, name: 'N200 250MB - 3 days' }, // a new label and validity
    // mtn[2] vanished
    { variation_code: 'mtn-20gb-5000', name: 'N5000 20GB - 30 days', variation_amount: '5000', fixedPrice: 'Yes' },
  ];
  fake.variations.set('mtn-data', changed);
  fake.misspelled.add('airtel-data');

  const run = await runJson(stack.core, ['plans', 'sync']);
  assert.is(run.code, 0, run.stderr);
  assert.equal(
    [run.json['created'], run.json['updated'], run.json['deactivated'], run.json['unchanged']],
    [1, 2, 1, 6],
  );
  const after = await plansByCode(stack.core);
  for (const [code, plan] of before)
    assert.is(after.get(code)!.planId, plan.planId, `${code} keeps plan_id ${plan.planId}`);
  assert.is(after.get('mtn-10mb-100')!.faceValueKobo, 120_00);
  assert.equal([after.get('mtn-50mb-200')!.label, after.get('mtn-50mb-200')!.validity], ['N200 250MB', '3 days']);
  assert.is(after.get('mtn-100mb-1000')!.active, false, 'vanished: deactivated, not deleted');
  assert.ok(after.get('mtn-20gb-5000')!.active);
  assert.not.ok([...before.values()].some((p) => p.planId === after.get('mtn-20gb-5000')!.planId));
  const updated = (run.json['changes'] as Change[]).find((c) => c.plan['provider_code'] === 'mtn-10mb-100')!;
  assert.is(updated.before!['face_value_kobo'], 100_00, 'the report shows the plan before the change');

  // Partners see the change under the same id, and no longer see the vanished plan.
  const { accountId } = await stack.core.createApiAccount();
  const { plans } = await stack.core.purchase.listPlans({ accountId, network: 'mtn' });
  assert.ok(plans.some((p) => Number(p.planId) === before.get('mtn-10mb-100')!.planId && p.faceValueKobo === 120_00n));
  assert.not.ok(plans.some((p) => Number(p.planId) === before.get('mtn-100mb-1000')!.planId));

  // A plan offered again comes back, still under its id.
  fake.variations.set('mtn-data', [...changed, mtn[2]!]);
  const again = await runJson(stack.core, ['plans', 'sync']);
  assert.is(again.json['updated'], 1);
  assert.is((await plansByCode(stack.core)).get('mtn-100mb-1000')!.planId, before.get('mtn-100mb-1000')!.planId);
  assert.ok((await plansByCode(stack.core)).get('mtn-100mb-1000')!.active);
});

test('a synced plan is bought from VTpass under its code', async ({ stack }) => {
  const plan = (await plansByCode(stack.core)).get('glo1000')!;
  const created = await stack.core.createApiAccount({ balanceKobo: 5_000_00 });
  const reply = await stack.gateway.request({
    query: { action: 'data' },
    keys: { publicKey: created.publicKey, secretKey: created.secretKey },
    body: { plan_id: plan.planId, phone: '08011111111' },
  });
  assert.is(reply.status, 200, reply.text);
  assert.is(stack.fake.transactions.get(reply.json.reference)?.body['variation_code'], 'glo1000');
});

test('an unreadable network changes nothing anywhere; an empty list leaves its network alone', async ({ stack }) => {
  const before = await plansByCode(stack.core);
  const saved = stack.fake.variations.get('etisalat-data')!;
  stack.fake.variations.delete('etisalat-data');
  stack.fake.variations.set('mtn-data', []);
  const failed = await runAgainst(stack.core, ['plans', 'sync']);
  assert.is(failed.code, 1);
  assert.match(failed.stderr, /could not be read, so nothing was changed/);
  assert.equal(await plansByCode(stack.core), before);

  stack.fake.variations.set('etisalat-data', saved);
  const run = await runJson(stack.core, ['plans', 'sync']);
  assert.is(run.code, 0);
  assert.is(run.json['deactivated'], 0, 'an empty list deactivates nothing');
  assert.ok((run.json['warnings'] as string[]).some((w) => /no mtn plans/.test(w)));
});

test('with the sandbox there is nothing to sync', async () => {
  const core = await startCore();
  try {
    const text = await runAgainst(core, ['plans', 'sync']);
    assert.is(text.code, 0, text.stderr);
    assert.match(text.stdout, /sandbox, which publishes no plans: there is nothing to sync/);
    const json = await runJson(core, ['plans', 'sync']);
    assert.is(json.json['supported'], false);
  } finally {
    await core.close();
  }
});

test('upstream names become a label and a validity', () => {
  assert.equal(splitName('MTN N1000 1.5GB - 30 days'), { label: 'MTN N1000 1.5GB', validity: '30 days' });
  assert.equal(splitName('N100 100MB - 24 hrs'), { label: 'N100 100MB', validity: '24 hrs' });
  assert.equal(splitName('Airtel Data - 100 Naira - 100MB - 1Day'), {
    label: 'Airtel Data - 100 Naira - 100MB',
    validity: '1Day',
  });
  assert.equal(splitName('Glo 2GB (Monthly)'), { label: 'Glo 2GB', validity: 'Monthly' });
  assert.equal(splitName('Special bundle'), { label: 'Special bundle', validity: 'unspecified' });
});

test('--dry-run takes yes or no only', async ({ stack }) => {
  const run = await runAgainst(stack.core, ['plans', 'sync', '--dry-run', 'maybe']);
  assert.is(run.code, 2);
});

test.run();
