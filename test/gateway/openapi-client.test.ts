/**
 * A typed client generated from the served document works: the types
 * openapi-typescript generates from GET /openapi.json type each action on its own (tsc checks
 * that `balance` answers a balance, not the union of every action), and openapi-fetch calls
 * three actions and /healthz through them against a real gateway and core.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { fundedAccount } from './fields.js';

const test = suite('OpenAPI: a generated typed client');
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let core: TestCore;
let gateway: TestGateway;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core);
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

/** Written with the generated types; tsc must accept it, and reject the marked lines. */
const TYPED_USE = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function use(client: ReturnType<typeof createClient<paths>>): Promise<number> {
  const balance = await client.GET('/balance');
  if (balance.data === undefined) return -1;
  const naira: number = balance.data.balance;
  const tier: string = balance.data.tier;
  // @ts-expect-error a balance answer has no transactions: the type is the balance's own, not a union
  balance.data.transactions;
  const plans = await client.GET('/plans', { params: { query: { network: 'mtn' } } });
  const first: number | undefined = plans.data?.plans[0]?.plan_id;
  // @ts-expect-error airtime takes a body with network, phone and amount
  await client.POST('/airtime', { body: { network: 'mtn' } });
  const bought = await client.POST('/airtime', { body: { network: 'mtn', phone: '08031234567', amount: 100 } });
  const charged: number | undefined = bought.data?.charged;
  return naira + (first ?? 0) + (charged ?? 0) + tier.length;
}
`;

test('types made from the served document type each action; openapi-fetch calls 3 actions and /healthz', async () => {
  const served = await fetch(`http://127.0.0.1:${gateway.port}/openapi.json`);
  assert.is(served.status, 200);
  assert.is(served.headers.get('access-control-allow-origin'), '*');
  const document = await served.json();

  // Inside node_modules so that the compiled file resolves openapi-fetch as a user's would.
  mkdirSync(path.join(ROOT, 'node_modules/.cache'), { recursive: true });
  const dir = mkdtempSync(path.join(ROOT, 'node_modules/.cache/openapi-client-'));
  try {
    writeFileSync(path.join(dir, 'api.d.ts'), astToString(await openapiTS(document)));
    writeFileSync(path.join(dir, 'use.ts'), TYPED_USE);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          skipLibCheck: true,
        },
        files: ['use.ts'],
      }),
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const checked = await promisify(execFile)(process.execPath, [tsc, '-p', dir], { timeout: 120_000 }).then(
      () => ({ ok: true, output: '' }),
      (error: { stdout?: string }) => ({ ok: false, output: String(error.stdout) }),
    );
    assert.ok(checked.ok, `tsc accepts the typed use of the generated client:\n${checked.output}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The same calls at run time, against the real gateway, through the per-action paths.
  const { keys } = await fundedAccount(core, 500_000);
  // Untyped here: the generated types live in the temporary file checked above.
  const client = createClient<any>({
    baseUrl: `http://127.0.0.1:${gateway.port}/api/v1`,
    headers: { 'X-Public-Key': keys.publicKey, 'X-Secret-Key': keys.secretKey },
  });
  const balance = await client.GET('/balance', {});
  assert.is(balance.response.status, 200);
  assert.is(balance.data.balance, 5000);
  const plans = await client.GET('/plans', { params: { query: { network: 'mtn' } } });
  assert.is(plans.response.status, 200);
  assert.ok(plans.data.plans.length > 0 && plans.data.plans.every((p: { network: string }) => p.network === 'mtn'));
  const bought = await client.POST('/airtime', { body: { network: 'mtn', phone: '08031234567', amount: 100 } });
  assert.is(bought.response.status, 200, JSON.stringify(bought.error));
  assert.is(bought.data.status, 'success');
  assert.type(bought.data.charged, 'number');
  // The same pipeline: a wrong body is the same 422 as with ?action=airtime.
  const refused = await client.POST('/airtime', { body: { network: 'mtn' } });
  assert.is(refused.response.status, 422);
  assert.is(refused.error.code, 'INVALID_PARAMETER');
  // And /healthz where a client built on the document's servers looks for it.
  const health = await client.GET('/healthz', {});
  assert.is(health.response.status, 200);
  assert.equal(health.data, { status: 'ok' });
});

test.run();
