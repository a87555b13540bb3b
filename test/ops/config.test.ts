/**
 * Configuration: one table per process. A bad value stops each entry point
 * (npm start, start:core, start:gateway) non-zero with the variable's name; `--help` prints
 * the tables; and the parsers read the environment only through their table, every variable
 * of which has a default or says when it is required.
 */
import { spawn } from 'node:child_process';
import * as assert from 'uvu/assert';
import { CONSOLE_SCHEMA } from '../../console/config.js';
import { CORE_SCHEMA, readCoreConfig } from '../../core/config.js';
import { DASHBOARD_SCHEMA, loadDashboardConfig } from '../../dashboard/config.js';
import { GATEWAY_SCHEMA, loadGatewayConfig } from '../../gateway/config.js';
import { type Env, type Schema, schemaNames } from '../../runtime/env-schema.js';
import { suite } from '../helpers/suite.js';

const test = suite('ops: configuration');

/** node --import tsx <script> ...args with `env` on top of a clean environment. */
function run(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => ![CORE_SCHEMA, GATEWAY_SCHEMA, DASHBOARD_SCHEMA].some((schema) => schemaNames(schema).includes(name)),
    ),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      env: { ...inherited, ...env },
      timeout: 20_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Free ports on this machine only, so that a start that wrongly succeeded would still be harmless. */
const SAFE: Record<string, Record<string, string>> = {
  'core/main.ts': { CORE_PORT: '0', CORE_METRICS_PORT: 'off' },
  'gateway/main.ts': {
    PORT: '0',
    HOST: '127.0.0.1',
    CORE_URL: 'http://127.0.0.1:1',
    SERVICE_TOKEN: 'a-service-token-for-tests',
  },
  'bin/start.ts': {
    PORT: '0',
    HOST: '127.0.0.1',
    CORE_PORT: '0',
    CORE_METRICS_PORT: 'off',
    DASHBOARD_PORT: '0',
    CONSOLE_PORT: '0',
    DASHBOARD_HOST: '127.0.0.1',
  },
};

test('a bad value stops each entry point non-zero, naming the variable, before anything listens', async () => {
  const cases: [script: string, env: Record<string, string>, variable: string][] = [
    ['core/main.ts', { PROVIDER_TIMEOUT_MS: 'soon' }, 'PROVIDER_TIMEOUT_MS'],
    ['core/main.ts', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    ['gateway/main.ts', { RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE'],
    ['gateway/main.ts', { METRICS_ALLOW: 'prometheus.internal' }, 'METRICS_ALLOW'],
    ['bin/start.ts', { CORE_METRICS_PORT: '70000' }, 'CORE_METRICS_PORT'],
    ['bin/start.ts', { AUTH_CACHE_TTL_MS: '-5' }, 'AUTH_CACHE_TTL_MS'],
    ['bin/start.ts', { SHUTDOWN_DRAIN_MS: '30000', SHUTDOWN_TIMEOUT_MS: '20000' }, 'SHUTDOWN_DRAIN_MS'],
  ];
  const results = await Promise.all(
    cases.map(([script, env]) =>
      run(script, [], { ...SAFE[script], DATA_DIR: '/nonexistent/prepaid-config-test', ...env }),
    ),
  );
  cases.forEach(([script, env, variable], i) => {
    const { code, stdout, stderr } = results[i]!;
    const label = `${script} with ${JSON.stringify(env)}`;
    assert.is(code, 2, `${label}: exit 2 (${stderr})`);
    assert.ok(stderr.startsWith(`Configuration error: ${variable}:`), `${label}: ${stderr}`);
    assert.not.ok(stdout.includes('listening'), `${label} did not start`);
  });
});

test('--help prints each process its own table, and npm start both', async () => {
  const [core, gateway, dashboard, consoleApp, both] = await Promise.all([
    run('core/main.ts', ['--help'], {}),
    run('gateway/main.ts', ['--help'], {}),
    run('dashboard/main.ts', ['--help'], {}),
    run('console/main.ts', ['--help'], {}),
    run('bin/start.ts', ['--help'], {}),
  ]);
  const listed = (text: string) => new Set([...text.matchAll(/^ {2}([A-Z][A-Z0-9_]+) /gm)].map((m) => m[1]!));
  for (const [output, schemas] of [
    [core, [CORE_SCHEMA]],
    [gateway, [GATEWAY_SCHEMA]],
    [dashboard, [DASHBOARD_SCHEMA]],
    [consoleApp, [CONSOLE_SCHEMA]],
    [both, [CORE_SCHEMA, GATEWAY_SCHEMA, DASHBOARD_SCHEMA, CONSOLE_SCHEMA]],
  ] as const) {
    assert.is(output.code, 0, output.stderr);
    const names = listed(output.stdout);
    const expected = new Set(schemas.flatMap((s: Schema) => schemaNames(s)));
    assert.equal([...names].sort(), [...expected].sort(), output.stdout.slice(0, 200));
  }
  assert.match(core.stdout, /SHUTDOWN_TIMEOUT_MS +.*Default: 20000\./);
  assert.match(gateway.stdout, /METRICS_ALLOW +.*Default: 127\.0\.0\.0\/8/);
  assert.match(both.stdout, /^Core configuration/);
  assert.match(both.stdout, /Gateway configuration/);
  assert.match(both.stdout, /Dashboard configuration/);
  assert.match(both.stdout, /Console configuration/);
  assert.match(dashboard.stdout, /DASHBOARD_PORT +.*Default: 8081\./);
});

/** The variables a parser asks the environment for, through a recording stand-in. */
function namesRead(parse: (env: Env) => unknown, env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name) as unknown;
    },
  });
  parse(recording);
  return read;
}

test("each parser reads exactly its table's variables, each with a default or saying when required", () => {
  // Everything routed to VTpass, so that the conditional variables are read too.
  const everything = {
    PROVIDER_AIRTIME: 'vtpass',
    PROVIDER_DATA: 'vtpass',
    PROVIDER_ELECTRICITY: 'vtpass',
    PROVIDER_CABLE: 'vtpass',
    PROVIDER_BULKSMS: 'vtpass',
    VTPASS_API_KEY: 'k',
    VTPASS_PUBLIC_KEY: 'p',
    VTPASS_SECRET_KEY: 's',
    VTPASS_FALLBACK_PHONE: '08099999999',
    VTPASS_SMS_TOKEN: 't',
    VTPASS_SMS_SECRET: 's',
    MONGODB_URI: 'mongodb://db/?replicaSet=rs0',
  };
  for (const [label, schema, parse] of [
    ['core', CORE_SCHEMA, readCoreConfig],
    ['gateway', GATEWAY_SCHEMA, loadGatewayConfig],
    ['dashboard', DASHBOARD_SCHEMA, loadDashboardConfig],
  ] as const) {
    const read = namesRead(parse as (env: Env) => unknown, everything);
    assert.equal(
      [...read].sort(),
      [...schemaNames(schema)].sort(),
      `${label}: the parser and the table list the same variables`,
    );
    for (const variable of Object.values(schema as Schema)) {
      assert.ok(variable.fallback.trim() !== '', `${variable.name} has a default or a requirement`);
      assert.ok(/[.)]$/.test(variable.help), `${variable.name}'s help is a sentence`);
    }
  }
  assert.is(new Set(schemaNames(CORE_SCHEMA)).size, schemaNames(CORE_SCHEMA).length, 'no variable is listed twice');
  assert.is(new Set(schemaNames(GATEWAY_SCHEMA)).size, schemaNames(GATEWAY_SCHEMA).length);
  assert.is(new Set(schemaNames(DASHBOARD_SCHEMA)).size, schemaNames(DASHBOARD_SCHEMA).length);
});

test.run();
