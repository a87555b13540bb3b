/**
 * The events feed, `?action=events`, through a real gateway and core: it returns exactly
 * the events the store recorded, oldest first, across pages of any size; the cursor is
 * always there and polling with it never skips nor repeats an event; a transaction event
 * carries the transaction exactly as `?action=transaction` shows it.
 */
import * as assert from 'uvu/assert';
import type { EventRecord } from '../../core/domain/events.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite('events feed');

let core: TestCore;
let gateway: TestGateway;

test.before(async () => {
  core = await startCore({ providerTimeoutMs: 300 });
  gateway = await startTestGateway(core);
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

async function fundedAccount(): Promise<{ accountId: string; keys: ApiKeys }> {
  const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 5_000_000 });
  return { accountId, keys: { publicKey, secretKey } };
}

async function recorded(accountId: string): Promise<EventRecord[]> {
  return core.store.events.listFeed(accountId, 'live', 0, 1_000);
}

/** Every event of the feed, polled `limit` at a time until a page comes back empty. */
async function pollAll(keys: ApiKeys, limit: number, cursor?: string): Promise<{ events: any[]; cursor: string }> {
  const events: any[] = [];
  let next = cursor;
  for (let polls = 0; polls < 1_000; polls++) {
    const reply = await gateway.request({
      query: { action: 'events', limit: String(limit), ...(next === undefined ? {} : { cursor: next }) },
      keys,
    });
    assert.is(reply.status, 200, reply.text);
    assert.type(reply.json.next_cursor, 'string', 'next_cursor is always present');
    assert.ok(reply.json.events.length <= limit);
    events.push(...reply.json.events);
    next = reply.json.next_cursor;
    if (reply.json.events.length === 0) return { events, cursor: next! };
  }
  throw new Error('the feed never ended');
}

const buy = (keys: ApiKeys, phone: string) =>
  gateway.request({ query: { action: 'airtime' }, keys, body: { network: 'mtn', phone, amount: 100 } });

test('the feed returns exactly the recorded events, oldest first, at every page size', async () => {
  const { accountId, keys } = await fundedAccount();
  const delivered = await buy(keys, '08031234567');
  const failed = await buy(keys, '08031239999');
  const pending = await buy(keys, '08031238888');
  assert.equal([delivered.status, failed.status, pending.status], [200, 502, 202]);
  await core.recoverNow();

  const expected = await recorded(accountId);
  assert.equal(
    expected.map((e) => [e.type, e.subject]),
    [
      ['wallet.credited', expected[0]!.subject],
      ['transaction.success', delivered.json.reference],
      ['transaction.failed', failed.json.reference],
      ['transaction.success', pending.json.reference],
    ],
    'one event per change: the credit, the delivery, the failure, and the pending purchase once settled',
  );
  for (const limit of [1, 2, 3, 100]) {
    const { events } = await pollAll(keys, limit);
    assert.equal(
      events,
      expected.map((e) => JSON.parse(e.body)),
      `page size ${limit}`,
    );
  }
});

test('a transaction event carries the transaction as ?action=transaction shows it', async () => {
  const { accountId, keys } = await fundedAccount();
  const bought = await buy(keys, '08031234567');
  const { events } = await pollAll(keys, 10);
  const event = events.find((e) => e.type === 'transaction.success');
  assert.ok(event, 'the delivery has its event');
  const shown = await gateway.request({ query: { action: 'transaction', reference: bought.json.reference }, keys });
  assert.equal(event.data, { transaction: shown.json.transaction });
  assert.is(event.livemode, true);
  assert.match(event.id, /^evt_[0-9a-f]{24}$/);
  assert.is(event.created_at, new Date(event.created_at).toISOString());
  assert.ok((await recorded(accountId)).some((e) => e.eventId === event.id));
});

test('polling with the last cursor returns only what was recorded since, never a repeat', async () => {
  const { keys } = await fundedAccount();
  const first = await pollAll(keys, 5);
  assert.is(first.events.length, 1, 'the opening credit');
  const empty = await gateway.request({ query: { action: 'events', cursor: first.cursor }, keys });
  assert.equal(empty.json.events, []);
  assert.is(empty.json.next_cursor, first.cursor, 'an empty page hands the same cursor back');
  const bought = await buy(keys, '08031234567');
  const later = await pollAll(keys, 5, first.cursor);
  assert.equal(
    later.events.map((e) => [e.type, e.data.transaction.reference]),
    [['transaction.success', bought.json.reference]],
  );
});

test('an account sees only its own events', async () => {
  const mine = await fundedAccount();
  const theirs = await fundedAccount();
  await buy(theirs.keys, '08031234567');
  const { events } = await pollAll(mine.keys, 50);
  assert.is(events.length, 1);
  const ids = new Set((await recorded(theirs.accountId)).map((e) => e.eventId));
  assert.not.ok(events.some((e) => ids.has(e.id)));
});

test('a bad limit or a forged cursor is 422 naming the field', async () => {
  const { keys } = await fundedAccount();
  for (const [query, field] of [
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 'many' }, 'limit'],
    [{ cursor: 'not-a-cursor' }, 'cursor'],
  ] as const) {
    const reply = await gateway.request({ query: { action: 'events', ...query }, keys });
    assert.is(reply.status, 422, reply.text);
    assert.ok(JSON.stringify(reply.json).includes(field), `${reply.text} names ${field}`);
  }
  const post = await gateway.request({ method: 'POST', query: { action: 'events' }, keys, body: {} });
  assert.is(post.status, 405);
});

test("the cursor names the account's own last event, never a count of the platform's, and is no one else's", async () => {
  const mine = await fundedAccount();
  const theirs = await fundedAccount();
  await buy(mine.keys, '08031234567');
  const { events, cursor } = await pollAll(mine.keys, 5);
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  assert.is(decoded, JSON.stringify([events.at(-1).id]), 'the cursor holds the last event id shown');
  assert.not.match(decoded, /\d+\]/, 'no sequence number');
  const start = await gateway.request({ query: { action: 'events', limit: '1' }, keys: theirs.keys });
  assert.is(start.json.events.length, 1);
  const borrowed = await gateway.request({ query: { action: 'events', cursor }, keys: theirs.keys });
  assert.is(borrowed.status, 422, "another account's cursor names nothing in this feed");
  const issued = await core.admin.createApiKey({ accountId: mine.accountId, mode: Mode.TEST });
  const otherMode = await gateway.request({ query: { action: 'events', cursor }, keys: issued.issuedKey! });
  assert.is(otherMode.status, 422, 'a live cursor names nothing in the test feed');
  const old = Buffer.from(JSON.stringify([2])).toString('base64url');
  const legacy = await gateway.request({ query: { action: 'events', cursor: old }, keys: mine.keys });
  assert.is(legacy.status, 422, 'a number is no cursor');
});

test("a test key's feed holds only test events, livemode false, and a live key's only live ones", async () => {
  const { accountId, keys } = await fundedAccount();
  const issued = await core.admin.createApiKey({ accountId, mode: Mode.TEST });
  const testKeys: ApiKeys = issued.issuedKey!;
  await core.admin.creditWallet({
    accountId,
    amountKobo: 50_000n,
    memo: 'test money',
    mode: Mode.TEST,
    reference: 'TEST-FEED-1',
  });
  const bought = await buy(testKeys, '08031234567');
  assert.is(bought.status, 200, bought.text);

  const testFeed = (await pollAll(testKeys, 100)).events;
  assert.equal(
    testFeed.map((e) => [e.type, e.livemode]),
    [
      ['wallet.credited', false],
      ['transaction.success', false],
    ],
  );
  assert.is(testFeed[1].data.transaction.reference, bought.json.reference);
  const liveFeed = (await pollAll(keys, 100)).events;
  assert.equal(
    liveFeed.map((e) => [e.type, e.livemode]),
    [['wallet.credited', true]],
    'the live feed has only the live credit',
  );
});

test.run();
