/**
 * The metrics pass Prometheus' own checker: every series the core and the gateway can
 * expose (each label value that exists, Node's own series too) is produced, then checked by
 * the naming rules promtool applies (always) and by `promtool check metrics` itself where
 * promtool is installed (Debian's `prometheus` package); SKIPPED otherwise, with the command.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { createCoreMetrics } from '../../core/metrics.js';
import { createGatewayMetrics } from '../../gateway/metrics.js';
import { suite } from '../helpers/suite.js';

const test = suite('metrics and promtool');

/** Every label value the code can produce, as the README lists them: the core's scrape and the gateway's. */
async function everySeries(): Promise<[string, string]> {
  const core = createCoreMetrics({ defaultMetrics: true });
  for (const mode of ['live', 'test'] as const) {
    for (const state of ['pending', 'success', 'failed', 'reversed'] as const) core.purchase('airtime', state, mode);
    core.refund('airtime', 'failed', kobo(100), mode);
    core.refund('airtime', 'reversed', kobo(100), mode);
  }
  const outcomes = {
    purchase: ['delivered', 'failed', 'reversed', 'unknown', 'error'],
    query: ['delivered', 'failed', 'reversed', 'unknown', 'error'],
    verify: ['found', 'not_found', 'unavailable', 'error'],
    notify: ['accepted', 'refused', 'error'],
  } as const;
  for (const [operation, list] of Object.entries(outcomes)) {
    for (const outcome of list)
      core.providerCall('sandbox', 'electricity', operation as 'purchase', outcome, 0.01, 'live');
  }
  for (const operation of ['reserve', 'settle', 'refund', 'reverse', 'credit'] as const)
    core.walletOperation(operation, 0.001);
  core.watchPending(async () => ({ count: 1, needsAttentionCount: 0, oldestCreatedAt: new Date(0) }));
  for (const outcome of ['delivered', 'failed', 'pending', 'not_delivered'] as const)
    core.supply.attempt('vtpass', 'airtime', outcome);
  core.supply.failover('datahub', 'vtpass', 'refused');
  for (const reason of ['circuit_open', 'float_low', 'not_sold', 'not_configured', 'below_cost'] as const)
    core.supply.skipped('datahub', reason);
  core.supply.circuit('datahub', 'half_open');
  core.supply.float('datahub', kobo(1_000_00), kobo(5_000_00));
  core.storage.writable(false);
  core.storage.backup(true);
  core.storage.backup(false);
  core.storage.watchNewestBackup(
    () => new Date(0),
    () => new Date(),
  );
  const gateway = createGatewayMetrics({ defaultMetrics: true });
  return [await core.registry.metrics(), await gateway.registry.metrics()];
}

test('counters end in _total and nothing else does; names are Prometheus names', async () => {
  const text = (await everySeries()).join('');
  const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!] as const);
  assert.ok(types.length > 30, `${types.length} series`);
  for (const [name, type] of types) {
    assert.match(name, /^[a-zA-Z_:][a-zA-Z0-9_:]*$/, name);
    if (type === 'counter') assert.ok(name.endsWith('_total'), `counter ${name} ends in _total`);
    else assert.not.match(name, /_(total|count|sum|bucket)$/, `${type} ${name} has no counter-style suffix`);
  }
});

test('promtool check metrics finds nothing to say', async () => {
  const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((path) => existsSync(path));
  if (promtool === undefined) {
    console.log('  promtool: SKIPPED (install it with: apt-get install -y --no-install-recommends prometheus)');
    return;
  }
  for (const scrape of await everySeries()) {
    const checked = spawnSync(promtool, ['check', 'metrics'], { input: scrape, encoding: 'utf8' });
    assert.is(checked.status, 0, checked.stdout + checked.stderr);
    assert.is((checked.stdout + checked.stderr).trim(), '');
  }
});

/** The alert rules docs/operating.md gives operators: its YAML block that starts with `groups:`. */
function documentedRules(): string {
  const doc = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../docs/operating.md'), 'utf8');
  const block = [...doc.matchAll(/```yaml\n(groups:[\s\S]*?)```/g)].map((m) => m[1]!);
  assert.is(block.length, 1, 'one block of alert rules');
  return block[0]!;
}

test('every documented alert rule names series the core or the gateway expose', async () => {
  const exposed = new Set(
    [...(await everySeries()).join('').matchAll(/^# TYPE (\S+) /gm)].flatMap((m) => [
      m[1]!,
      `${m[1]!}_bucket`,
      `${m[1]!}_count`,
      `${m[1]!}_sum`,
    ]),
  );
  const rules = documentedRules();
  const named = [...rules.matchAll(/\b(prepaid_[a-z_]+)/g)].map((m) => m[1]!);
  assert.ok(named.includes('prepaid_core_backup_newest_age_seconds'), 'the backups have their alert');
  assert.ok(named.includes('prepaid_core_store_writable'), 'a store that cannot write has its alert');
  for (const name of named) assert.ok(exposed.has(name), `${name} is a series the services expose`);
});

test('promtool check rules accepts the documented alert rules', () => {
  const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((file) => existsSync(file));
  if (promtool === undefined) {
    console.log('  promtool rules: SKIPPED (install it with: apt-get install -y --no-install-recommends prometheus)');
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'prepaid-rules-'));
  try {
    const file = path.join(dir, 'prepaid.rules.yml');
    writeFileSync(file, documentedRules());
    const checked = spawnSync(promtool, ['check', 'rules', file], { encoding: 'utf8' });
    assert.is(checked.status, 0, checked.stdout + checked.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
