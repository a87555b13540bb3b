/**
 * The walls between the parts: the gateway reaches nothing under core/
 * except the generated contract and pure domain rules, and the dashboard likewise,
 * nothing of the gateway either, and the console likewise, sharing only web/; runtime/ (the plumbing
 * every process shares) reaches neither
 * core/ nor gateway/; and loading the gateway's configuration loads
 * no provider adapter. Read from the import statements themselves, followed file to file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { suite } from '../helpers/suite.js';

const test = suite('ops: boundaries between the parts');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** `import ... from '...'`, `export ... from '...'` and `import('...')` with a relative path. */
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g;

/** Every project file reached from `entry` by relative imports, as paths from the root. */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(path.join(ROOT, file), 'utf8');
    for (const match of source.matchAll(IMPORT)) {
      const target = path.join(path.dirname(file), match[1] ?? match[2]!).replace(/\.js$/, '.ts');
      pending.push(target);
    }
  }
  return seen;
}

/** Files under core/ that the gateway may reach: pure domain rules. */
const PURE_DOMAIN = /^core\/domain\/[a-z-]+\.ts$/;

test('the gateway reaches nothing under core/ but pure domain rules, and runtime/ nothing of either part', () => {
  const fromGateway = [...reachable('gateway/main.ts')];
  assert.ok(
    fromGateway.includes('gateway/server.ts') && fromGateway.includes('runtime/core-transport.ts'),
    'the walk follows imports',
  );
  const intoCore = fromGateway.filter((file) => file.startsWith('core/'));
  assert.equal(
    intoCore.filter((file) => !PURE_DOMAIN.test(file)),
    [],
    'only core/domain',
  );
  for (const file of intoCore) {
    // Pure: no module of node's but crypto (references are random, which is no I/O).
    const nodeImports = [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/from '(node:[a-z_/]+)'/g)].map(
      (m) => m[1],
    );
    assert.equal(
      nodeImports.filter((name) => name !== 'node:crypto'),
      [],
      `${file} does no I/O`,
    );
  }
  for (const entry of [
    'runtime/core-transport.ts',
    'runtime/lifecycle.ts',
    'runtime/tokens.ts',
    'runtime/url.ts',
    'runtime/error-reason.ts',
  ]) {
    const outside = [...reachable(entry)].filter((file) => file.startsWith('core/') || file.startsWith('gateway/'));
    assert.equal(outside, [], `${entry} stays in runtime/ and gen/`);
  }
});

test(
  'the dashboard reaches only gen/, runtime/ and pure core/domain rules: nothing of the gateway, no store, ' +
    'no use case',
  () => {
    const fromDashboard = [...reachable('dashboard/main.ts')];
    assert.ok(
      fromDashboard.includes('dashboard/server.ts') && fromDashboard.includes('runtime/core-transport.ts'),
      'the walk follows imports',
    );
    const outside = fromDashboard.filter(
      (file) =>
        !file.startsWith('dashboard/') &&
        !file.startsWith('web/') &&
        !file.startsWith('gen/') &&
        !file.startsWith('runtime/'),
    );
    assert.equal(
      outside.filter((file) => !PURE_DOMAIN.test(file)),
      [],
      'only gen/, runtime/ and core/domain',
    );
    for (const file of outside) {
      const nodeImports = [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/from '(node:[a-z_/]+)'/g)].map(
        (m) => m[1],
      );
      assert.equal(
        nodeImports.filter((name) => name !== 'node:crypto'),
        [],
        `${file} does no I/O`,
      );
    }
    for (const entry of ['runtime/core-transport.ts', 'runtime/lifecycle.ts', 'runtime/env-schema.ts']) {
      assert.equal(
        [...reachable(entry)].filter((file) => file.startsWith('dashboard/')),
        [],
        `${entry} reaches nothing of the dashboard`,
      );
    }
  },
);

test(
  'the console reaches only web/, gen/, runtime/ and pure core/domain rules; web/ is shared and reaches no ' +
    'app nor the core',
  () => {
    const fromConsole = [...reachable('console/main.ts')];
    assert.ok(
      fromConsole.includes('console/server.ts') && fromConsole.includes('web/security.ts'),
      'the walk follows imports',
    );
    const outside = fromConsole.filter(
      (file) =>
        !file.startsWith('console/') &&
        !file.startsWith('web/') &&
        !file.startsWith('gen/') &&
        !file.startsWith('runtime/'),
    );
    assert.equal(
      outside.filter((file) => !PURE_DOMAIN.test(file)),
      [],
      'only web/, gen/, runtime/ and core/domain',
    );
    for (const entry of ['web/html.ts', 'web/security.ts', 'web/http.ts', 'web/refusal.ts']) {
      assert.equal(
        [...reachable(entry)].filter(
          (file) => !file.startsWith('web/') && !file.startsWith('gen/') && !file.startsWith('runtime/'),
        ),
        [],
        `${entry} reaches only web/, gen/ and runtime/`,
      );
    }
  },
);

test("loading the gateway's configuration loads no provider adapter and nothing of the core", () => {
  const files = [...reachable('gateway/config.ts')];
  assert.ok(files.includes('runtime/env-schema.ts'), 'the walk follows imports');
  assert.equal(
    files.filter((file) => file.startsWith('core/')),
    [],
  );
});

/**
 * The one door from the CLI into the core's files: `backup verify` and `restore` work on a
 * backup's files where no core runs (a restore must run with none on the directory), loaded by
 * a dynamic import only when one of them runs. What lies behind it is walked apart below.
 */
const CLI_OFFLINE_BACKUP = 'core/storage/backup-files.ts';

test('the admin CLI (cli/) is a client: it reaches only gen/, runtime/ and pure core/domain rules', () => {
  const offline = reachable(CLI_OFFLINE_BACKUP);
  const fromCli = [...reachable('cli/main.ts')].filter((file) => !offline.has(file));
  assert.ok(
    fromCli.includes('cli/connection.ts') && fromCli.includes('runtime/core-transport.ts'),
    'the walk follows imports',
  );
  const outside = fromCli.filter(
    (file) => !file.startsWith('cli/') && !file.startsWith('gen/') && !file.startsWith('runtime/'),
  );
  assert.equal(
    outside.filter((file) => !PURE_DOMAIN.test(file)),
    [],
    'only gen/, runtime/ and core/domain',
  );
});

test("the CLI's offline backup door reaches the store's files and nothing of a running core", () => {
  const cliSource = readFileSync(path.join(ROOT, 'cli/backup.ts'), 'utf8');
  assert.match(
    cliSource,
    /await import\('\.\.\/core\/storage\/backup-files\.js'\)|import\('\.\.\/core\/storage\/backup-files\.js'\)/,
  );
  assert.not.match(
    cliSource,
    /^import [^;]*from '\.\.\/core\//m,
    'no static import of the core: other commands never load it',
  );
  const behind = [...reachable(CLI_OFFLINE_BACKUP)];
  assert.equal(
    behind.filter(
      (file) =>
        !file.startsWith('runtime/') &&
        !PURE_DOMAIN.test(file) &&
        !file.startsWith('core/storage/') &&
        !file.startsWith('core/store/sqlite/') &&
        file !== 'core/store/audit.ts',
    ),
    [],
    "only the backup files, the SQLite adapter's read side and pure rules",
  );
  assert.ok(!behind.some((file) => /core\/(app|main|rpc\/)/.test(file)), 'nothing of a running core');
});

test.run();
