/**
 * VTpass's transaction-update callbacks at POST /callbacks/vtpass/<secret>: a reversal after
 * a delivery refunds once and leaves the purchase `reversed`; a pending purchase is settled
 * or refunded; a replay has no second effect; nothing is believed that a requery to VTpass
 * does not confirm; and the endpoint answers nothing to a wrong secret.
 */
import * as assert from 'uvu/assert';
import { loadGatewayConfig } from '../../gateway/config.js';
import { ConfigError } from '../../runtime/env-schema.js';
import { ledgerOf } from '../helpers/core.js';
import { startVtpassStack, type VtpassStack } from '../helpers/fake-vtpass.js';
import { type ApiKeys, type Reply, startTestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ stack: VtpassStack }>('VTpass callbacks');

test.before(async (ctx) => {
  ctx.stack = await startVtpassStack({ providerTimeoutMs: 800 });
});

test.after(async ({ stack }) => {
  await stack.close();
});

async function account(stack: VtpassStack): Promise<{ accountId: string; keys: ApiKeys }> {
  const { accountId, publicKey, secretKey } = await stack.core.createApiAccount({ balanceKobo: 50_000_00 });
  return { accountId, keys: { publicKey, secretKey } };
}

function postCallback(
  stack: VtpassStack,
  body: unknown,
  options: { secret?: string; method?: string } = {},
): Promise<Reply> {
  return stack.gateway.request({
    path: `/callbacks/vtpass/${options.secret ?? stack.callbackSecret}`,
    method: options.method ?? 'POST',
    ...(body === undefined ? {} : { body }),
  });
}

async function kinds(stack: VtpassStack, accountId: string, reference: string): Promise<string[]> {
  return (await ledgerOf(stack.core, accountId)).filter((e) => e.reference === reference).map((e) => e.kind);
}

async function statusOf(stack: VtpassStack, keys: ApiKeys, reference: string): Promise<Record<string, unknown>> {
  const reply = await stack.gateway.request({ query: { action: 'transaction', reference }, keys });
  return reply.json.transaction;
}

async function buyAirtime(stack: VtpassStack, keys: ApiKeys, phone: string): Promise<Reply> {
  return stack.gateway.request({ query: { action: 'airtime' }, keys, body: { network: 'mtn', phone, amount: 250 } });
}

test('a reversal after delivery refunds the charge once, the partner sees "reversed"; a replay does nothing', async ({
  stack,
}) => {
  const { accountId, keys } = await account(stack);
  const bought = await buyAirtime(stack, keys, '08011111111');
  assert.is(bought.status, 200, bought.text);
  const reference = bought.json.reference as string;
  const { account: before } = await stack.core.admin.getAccount({ accountId });

  stack.fake.setState(reference, 'reversed');
  const first = await postCallback(stack, stack.fake.callbackBody(reference));
  assert.is(first.status, 200, first.text);
  assert.equal(first.json, { response: 'success' });

  const tx = await statusOf(stack, keys, reference);
  assert.is(tx.status, 'reversed');
  assert.match(String(tx.failure_reason), /reversed/);
  assert.equal(await kinds(stack, accountId, reference), ['debit', 'refund']);
  const { account: after } = await stack.core.admin.getAccount({ accountId });
  assert.is(
    after!.balanceKobo - before!.balanceKobo,
    242_50n,
    'the API tier paid 242.50 for 250 of MTN airtime, all of it back',
  );

  const replay = await postCallback(stack, stack.fake.callbackBody(reference));
  assert.is(replay.status, 200);
  assert.equal(replay.json, { response: 'success' });
  assert.equal(await kinds(stack, accountId, reference), ['debit', 'refund'], 'no second refund');
  const audit = await stack.core.admin.checkLedger({});
  assert.is(audit.violationCount, 0n, JSON.stringify(audit.violations));
});

test('a callback settles a pending purchase before the worker does, once', async ({ stack }) => {
  const { accountId, keys } = await account(stack);
  stack.fake.script('1111111111111', { answer: 'hang', later: 'delivered' });
  const reply = await stack.gateway.request({
    query: { action: 'electricity' },
    keys,
    body: { disco: 'ikedc', meter_number: '1111111111111', meter_type: 'prepaid', amount: 2000 },
  });
  assert.is(reply.status, 202, reply.text);
  const reference = reply.json.reference as string;
  const answered = await postCallback(stack, stack.fake.callbackBody(reference));
  assert.is(answered.status, 200, answered.text);
  const tx = await statusOf(stack, keys, reference);
  assert.is(tx.status, 'success');
  assert.is(tx.token, stack.fake.tokenDigits(reference).match(/\d{4}/g)!.join('-'));
  assert.equal(await kinds(stack, accountId, reference), ['debit']);
  // What VTpass said is kept for the operator with the settle: the callback and the re-query's answer.
  const answers = await stack.core.store.supply.answersOf(reference);
  assert.equal(
    answers.map((a) => [a.source, a.upstream]),
    [
      ['callback', 'vtpass'],
      ['requery', 'vtpass'],
    ],
  );
  assert.ok(answers[0]!.body.includes(reference));
  assert.match(answers[1]!.body, /^HTTP 200\n/);
  assert.ok(answers[1]!.body.includes(stack.fake.tokenDigits(reference).slice(0, 4)), 'the token is the goods: kept');
  assert.is((await postCallback(stack, stack.fake.callbackBody(reference))).status, 200);
  assert.equal(await kinds(stack, accountId, reference), ['debit']);
});

test('a callback for a pending purchase VTpass failed refunds it once, replayed or not', async ({ stack }) => {
  const { accountId, keys } = await account(stack);
  stack.fake.script('08012345550', { answer: 'processing', later: 'failed' });
  const reply = await buyAirtime(stack, keys, '08012345550');
  assert.is(reply.status, 202, reply.text);
  const reference = reply.json.reference as string;
  for (let i = 0; i < 3; i += 1) assert.is((await postCallback(stack, stack.fake.callbackBody(reference))).status, 200);
  await stack.core.recoverNow();
  assert.is((await statusOf(stack, keys, reference)).status, 'failed');
  assert.equal(await kinds(stack, accountId, reference), ['debit', 'refund']);
});

test('a callback that VTpass does not confirm changes nothing: a forged reversal of a delivered purchase', async ({
  stack,
}) => {
  const { accountId, keys } = await account(stack);
  const bought = await buyAirtime(stack, keys, '08011111111');
  const reference = bought.json.reference as string;
  const forged = stack.fake.callbackBody(reference) as { data: { content: { transactions: { status: string } } } };
  forged.data.content.transactions.status = 'reversed';
  const reply = await postCallback(stack, forged);
  assert.is(reply.status, 200);
  assert.is((await statusOf(stack, keys, reference)).status, 'success');
  assert.equal(await kinds(stack, accountId, reference), ['debit']);
  assert.ok(
    stack.fake.calls.some((c) => c.path === '/api/requery' && c.body?.['request_id'] === reference),
    'the core asked VTpass',
  );
});

test('a flood of the same callback asks VTpass once: the rest share its answer', async ({ stack }) => {
  const { accountId, keys } = await account(stack);
  stack.fake.script('08012345552', { answer: 'processing', later: 'delivered' });
  const reply = await buyAirtime(stack, keys, '08012345552');
  assert.is(reply.status, 202, reply.text);
  const reference = reply.json.reference as string;
  const requeries = () =>
    stack.fake.calls.filter((c) => c.path === '/api/requery' && c.body?.['request_id'] === reference).length;
  const before = requeries();
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => postCallback(stack, stack.fake.callbackBody(reference))),
  );
  assert.ok(
    answers.every((answer) => answer.status === 200),
    answers.map((a) => a.status).join(', '),
  );
  assert.is(requeries() - before, 1, 'one requery for twenty callbacks');
  assert.is((await statusOf(stack, keys, reference)).status, 'success');
  assert.equal(await kinds(stack, accountId, reference), ['debit']);
});

test('callbacks past CALLBACKS_PER_MINUTE from one address are told to come back later', async ({ stack }) => {
  const strict = await startTestGateway(stack.core, {
    vtpassCallbackSecret: stack.callbackSecret,
    callbacksPerMinute: 3,
  });
  try {
    const body = { code: '000', content: { transactions: { transactionId: 'nothing-of-ours' } } };
    const path = `/callbacks/vtpass/${stack.callbackSecret}`;
    for (let i = 0; i < 3; i += 1) assert.is((await strict.request({ path, method: 'POST', body })).status, 200);
    const limited = await strict.request({ path, method: 'POST', body });
    assert.is(limited.status, 429, limited.text);
    assert.is(limited.json.response, 'retry');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
  } finally {
    await strict.close();
  }
});

test('a callback VTpass cannot confirm yet is answered 503 so that VTpass sends it again', async ({ stack }) => {
  const { accountId, keys } = await account(stack);
  stack.fake.script('08012345551', { answer: 'pending', later: 'pending' });
  const reply = await buyAirtime(stack, keys, '08012345551');
  const reference = reply.json.reference as string;
  const answered = await postCallback(stack, stack.fake.callbackBody(reference));
  assert.is(answered.status, 503, answered.text);
  assert.is(answered.json.response, 'retry');
  assert.is((await statusOf(stack, keys, reference)).status, 'pending');
  assert.equal(await kinds(stack, accountId, reference), ['debit']);
});

test('an unknown reference and a body that is not a transaction update are answered success, without effect', async ({
  stack,
}) => {
  const unknown = await postCallback(stack, {
    type: 'transaction-update',
    data: { code: '000', requestId: '202601010000ABCDEFGHJK', content: { transactions: { status: 'reversed' } } },
  });
  assert.is(unknown.status, 200);
  assert.equal(unknown.json, { response: 'success' });
  assert.ok(
    stack.coreLog.some(
      (line) => line.includes('callback.unknown_reference') && line.includes('202601010000ABCDEFGHJK'),
    ),
  );
  for (const body of [{ type: 'wallet-update', data: {} }, 'not json at all', { type: 'transaction-update' }]) {
    const reply = await postCallback(stack, body);
    assert.is(reply.status, 200, JSON.stringify(body));
    assert.equal(reply.json, { response: 'success' });
  }
  assert.ok(stack.coreLog.some((line) => line.includes('callback.ignored')));
});

test('a wrong secret is the same 404 as any unknown path; GET is 405; a body over 1 MiB is 413', async ({ stack }) => {
  const wrong = await postCallback(
    stack,
    { type: 'transaction-update', data: {} },
    { secret: `${stack.callbackSecret.slice(0, -1)}x` },
  );
  assert.is(wrong.status, 404);
  assert.is(wrong.json.code, 'NOT_FOUND');
  const bare = await stack.gateway.request({ path: '/callbacks/vtpass', method: 'POST', body: {} });
  assert.is(bare.status, 404);
  const get = await postCallback(stack, undefined, { method: 'GET' });
  assert.is(get.status, 405);
  assert.is(get.headers['allow'], 'POST');
  const big = await postCallback(stack, { type: 'transaction-update', data: { padding: 'x'.repeat(1024 * 1024 + 1) } });
  assert.is(big.status, 413);
});

test('the callback path, which holds the secret, is never logged', ({ stack }) => {
  assert.ok(stack.gateway.logged.some((line) => line.message === 'callback.received'));
  assert.not.ok(stack.gateway.logged.some((line) => JSON.stringify(line).includes(stack.callbackSecret)));
});

test('without VTPASS_CALLBACK_SECRET the endpoint does not exist', async ({ stack }) => {
  const plain = await startTestGateway(stack.core);
  try {
    for (const secret of [stack.callbackSecret, 'undefined', '']) {
      const reply = await plain.request({ path: `/callbacks/vtpass/${secret}`, method: 'POST', body: {} });
      assert.is(reply.status, 404);
    }
  } finally {
    await plain.close();
  }
});

test('VTPASS_CALLBACK_SECRET must be a long URL-safe secret; the error names the variable and not the value', () => {
  for (const value of [
    'short',
    'has spaces in it and is long enough to pass',
    `${'a'.repeat(31)}`,
    `${'a'.repeat(40)}/x`,
  ]) {
    try {
      loadGatewayConfig({ VTPASS_CALLBACK_SECRET: value });
      assert.unreachable(`accepted ${value}`);
    } catch (error) {
      assert.instance(error, ConfigError);
      assert.is((error as ConfigError).variable, 'VTPASS_CALLBACK_SECRET');
      assert.not.match((error as Error).message, value);
    }
  }
  assert.is(loadGatewayConfig({ VTPASS_CALLBACK_SECRET: 'a'.repeat(32) }).vtpassCallbackSecret, 'a'.repeat(32));
  assert.not.ok('vtpassCallbackSecret' in loadGatewayConfig({}), 'absent when unset');
});

test.run();
