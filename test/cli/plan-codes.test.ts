/**
 * `prepaid plans codes` and `plans sync --upstream` against a real core with a fake
 * ported-number site: set, list and clear a plan's code there (audited, actor cli), usage
 * errors before any call, and the sync printing what it matched and what it could not.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { createProviders } from '../../core/providers/index.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type FakePortedNumber, startFakePortedNumber } from '../helpers/fake-ported-number.js';
import { suite } from '../helpers/suite.js';
import { testProvidersConfig } from '../helpers/supply.js';
import { runAgainst, runJson } from './run.js';

const test = suite('cli: plans codes');
let site: FakePortedNumber;
let core: TestCore;

test.before.each(async () => {
  site = await startFakePortedNumber();
  core = await startCore({
    upstreams: (store, planCodes) =>
      createProviders(
        testProvidersConfig({
          upstreams: [{ name: 'site', kind: 'ported-number', baseUrl: site.baseUrl, token: site.token }],
        }),
        { catalog: store.catalog, planCodes },
      ),
  });
});
test.after.each(async () => {
  await core.close();
  await site.close();
});

async function addPlan(label: string, type: 'sme' | 'gifting', sizeMb: number): Promise<number> {
  return (
    await core.store.catalog.upsertPlan({
      planId: 0,
      network: 'mtn',
      label,
      validity: '30 days',
      type,
      sizeMb,
      validityDays: 30,
      faceValueKobo: kobo(300_00),
      tierPricesKobo: {},
      costsKobo: {},
      active: true,
      providerCode: '',
    })
  ).planId;
}

test('codes set, list and clear one plan at one upstream, audited with before and after', async () => {
  const plan = await addPlan('1GB SME', 'sme', 1024);
  const set = await runAgainst(core, ['plans', 'codes', 'set', String(plan), 'site', '353']);
  assert.is(set.code, 0, set.stderr);
  assert.match(set.stdout, new RegExp(`Plan ${plan} \\(mtn 1GB SME\\) is sold at site as 353\\.`));
  const replaced = await runJson(core, ['plans', 'codes', 'set', String(plan), 'site', '354']);
  assert.equal(replaced.json, { plan_id: plan, upstream: 'site', code: '354', before: '353' });

  const listed = await runJson(core, ['plans', 'codes', 'list', '--upstream', 'site']);
  assert.is(listed.code, 0, listed.stderr);
  assert.equal(
    (listed.json['codes'] as Record<string, unknown>[]).map((c) => [c['plan_id'], c['upstream'], c['code']]),
    [[plan, 'site', '354']],
  );
  const text = await runAgainst(core, ['plans', 'codes', 'list']);
  assert.match(text.stdout, /UPSTREAM\s+PLAN\s+NETWORK\s+LABEL\s+CODE/);

  const cleared = await runAgainst(core, ['plans', 'codes', 'clear', String(plan), 'site']);
  assert.is(cleared.code, 0, cleared.stderr);
  assert.match(cleared.stdout, /no longer sold at site \(its code was 354\)/);
  const twice = await runAgainst(core, ['plans', 'codes', 'clear', String(plan), 'site']);
  assert.match(twice.stdout, /had no code at site; nothing changed/);

  const audit = (await core.store.auditLog.list({ limit: 10 }))
    .filter((a) => a.action.startsWith('plans.code'))
    .map((a) => [a.actor, a.action, a.before, a.after]);
  assert.equal(audit.length, 3, 'set, replace and clear; the clear of nothing is not a change');
  assert.ok(audit.every(([actor]) => actor === 'cli'));
  assert.ok(
    audit.some(
      ([, action, before, after]) =>
        action === 'plans.code_set' && before === '{"code":"353"}' && after === '{"code":"354"}',
    ),
  );
});

test('usage errors are caught before any call; the core refuses an upstream that is not declared', async () => {
  const bad = await runAgainst(core, ['plans', 'codes', 'set', 'seven', 'site', '353']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /PLAN_ID must be a plan id/);
  const short = await runAgainst(core, ['plans', 'codes', 'set', '7', 'site']);
  assert.is(short.code, 2);
  assert.match(short.stderr, /usage: prepaid plans codes set PLAN_ID UPSTREAM CODE/);
  const action = await runAgainst(core, ['plans', 'codes', 'rename']);
  assert.is(action.code, 2);
  const plan = await addPlan('1GB SME', 'sme', 1024);
  const vtpass = await runAgainst(core, ['plans', 'codes', 'set', String(plan), 'sandbox', '1']);
  assert.not.equal(vtpass.code, 0);
  assert.match(vtpass.stderr, /not a configured ClubKonnect or ported-number upstream/);
});

test('plans sync --upstream prints what it matched and what it could not', async () => {
  const plan = await addPlan('1GB SME', 'sme', 1024);
  await addPlan('50MB a', 'gifting', 50);
  const synced = await runAgainst(core, ['plans', 'sync', '--upstream', 'site']);
  assert.is(synced.code, 0, synced.stderr);
  assert.match(synced.stdout, /Matched 1 of site's plans to ours \(1 new or changed\), 2 not matched/);
  assert.match(synced.stdout, new RegExp(`${plan}\\s+mtn\\s+1GB SME\\s+353\\s+NGN 239\\.00`));
  assert.match(synced.stdout, /Not matched/);
  assert.match(synced.stdout, /292\s+50\.0MB CORPORATE GIFTING - 30 days\s+no_plan/);
  assert.match(synced.stdout, /401\s+.*no_plan/);
  const json = await runJson(core, ['plans', 'sync', '--upstream', 'site', '--dry-run', 'yes']);
  assert.is(json.json['dry_run'], true);
  assert.equal(
    (json.json['matched'] as Record<string, unknown>[]).map((m) => [m['plan_id'], m['code'], m['changed']]),
    [[plan, '353', false]],
  );
});

test.run();
