/**
 * Re-queries at a ported-number family site (the only upstream of the route), through the real
 * gateway and core with the fake site on port 0, which pages its history by 50: a purchase
 * answered `processing` is asked for by the site's id it kept, and one whose answer was lost
 * (no id) is found by following the history's pages, however many sales the site made after
 * it. Before, the re-query read only the newest page and such purchases stayed pending for
 * good. Every case ends with the ledger check.
 */
import * as assert from 'uvu/assert';
import { createProviders } from '../../core/providers/index.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type FakePortedNumber, startFakePortedNumber } from '../helpers/fake-ported-number.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { testProvidersConfig } from '../helpers/supply.js';

interface Stack {
  site: FakePortedNumber;
  core: TestCore;
  gateway: TestGateway;
  keys: ApiKeys & { accountId: string };
  close(): Promise<void>;
}

async function startStack(): Promise<Stack> {
  const site = await startFakePortedNumber();
  const config = testProvidersConfig({
    routing: { airtime: ['site'], data: ['site'] },
    upstreams: [{ name: 'site', kind: 'ported-number', baseUrl: site.baseUrl, token: site.token }],
  });
  const planCodes = async (upstream: string, planId: number) => (upstream === 'site' && planId === 7 ? '353' : null);
  const core = await startCore({
    providerTimeoutMs: 300,
    upstreams: (store) => createProviders(config, { catalog: store.catalog, planCodes }),
  });
  const gateway = await startTestGateway(core);
  const keys = await core.createApiAccount({ balanceKobo: 100_000_00 });
  return {
    site,
    core,
    gateway,
    keys,
    async close() {
      await gateway.close();
      await core.close();
      await site.close();
    },
  };
}

async function statusOf(stack: Stack, reference: string): Promise<string> {
  return (await stack.gateway.request({ query: { action: 'transaction', reference }, keys: stack.keys })).json
    .transaction.status;
}

async function ledgerIsExact(stack: Stack, reference: string): Promise<void> {
  const entries = await stack.core.store.wallet.ledgerOf(stack.keys.accountId, 'live', reference);
  assert.equal(
    entries.map((e) => e.kind),
    ['debit'],
    'one debit, never refunded',
  );
  const audit = await stack.core.admin.checkLedger({});
  assert.is(audit.violationCount, 0n, 'prepaid ledger check finds nothing');
}

const test = suite('re-queries at a ported-number site');

test('processing, then 60 more sales at the site: the re-query by its id finds it delivered', async () => {
  const stack = await startStack();
  try {
    stack.site.script('08031234567', { answer: 'processing' });
    const reply = await stack.gateway.request({
      query: { action: 'data' },
      keys: stack.keys,
      body: { network: 'mtn', phone: '08031234567', plan_id: 7 },
    });
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    const record = stack.site.records.at(-1)!;
    assert.equal(
      (await stack.core.store.supply.attemptsOf(reference)).map((a) => [a.outcome, a.upstreamReference]),
      [['pending', String(record.id)]],
      "the site's id is kept on the attempt",
    );
    stack.site.otherSales('data', 60);
    stack.site.settle(record.id, 'successful');
    assert.is(await stack.core.recoverNow(), 1);
    assert.is(await statusOf(stack, reference), 'success');
    assert.ok(stack.site.calls.some((c) => c.method === 'GET' && c.path === `/api/data/${record.id}`));
    await ledgerIsExact(stack, reference);
  } finally {
    await stack.close();
  }
});

test('a lost answer, then 60 more sales: the re-query follows the pages to it', async () => {
  const stack = await startStack();
  try {
    stack.site.script('08031234567', { answer: 'hang' });
    const reply = await stack.gateway.request({
      query: { action: 'airtime' },
      keys: stack.keys,
      body: { network: 'mtn', phone: '08031234567', amount: 250 },
    });
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    const record = stack.site.records.at(-1)!;
    stack.site.otherSales('topup', 60);
    stack.site.settle(record.id, 'successful');
    assert.is(await stack.core.recoverNow(), 1);
    assert.is(await statusOf(stack, reference), 'success');
    await ledgerIsExact(stack, reference);
  } finally {
    await stack.close();
  }
});

test.run();
