/**
 * `prepaid webhooks ...` against a real core delivering to a real receiver: set prints the
 * secret once (with a warning), the receiver's test event verifies with it, rotate-secret
 * signs with both, deliveries lists what happened, resend delivers again, disable stops.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { type Receiver, signedWith, startReceiver } from '../helpers/receiver.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore; receiver: Receiver }>('prepaid webhooks');

test.before(async (ctx) => {
  ctx.core = await startCore({ webhooks: { allowPrivate: true, retryBaseMs: 20, pollIntervalMs: 25 } });
  ctx.receiver = await startReceiver();
});
test.after(async (ctx) => {
  await ctx.receiver.stop();
  await ctx.core.close();
});

async function settled(core: TestCore, accountId: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const page = await core.store.events.listDeliveries(accountId, 'live', { failedOnly: false }, { limit: 100 });
    if (page.items.every((e) => e.delivery !== 'pending')) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('deliveries did not settle');
}

test('set, test, rotate-secret, deliveries, resend, get and disable', async ({ core, receiver }) => {
  const { accountId } = await core.createApiAccount();
  const set = await runJson(core, ['webhooks', 'set', accountId, receiver.url]);
  assert.is(set.code, 0, set.stderr);
  const secret = set.json['secret'] as string;
  assert.match(secret, /^whsec_/);
  assert.is(set.json['url'], receiver.url);
  assert.match(set.stderr, /shown only this once/);

  const ping = await runJson(core, ['webhooks', 'test', accountId]);
  assert.is(ping.code, 0, ping.stderr);
  await receiver.waitFor(1);
  assert.is(receiver.received[0]!.json.id, ping.json['event_id']);
  assert.ok(signedWith(receiver.received[0]!.headers['prepaid-signature'], receiver.received[0]!.raw, secret));

  const rotated = await runJson(core, ['webhooks', 'rotate-secret', accountId]);
  const second = rotated.json['secret'] as string;
  assert.is.not(second, secret);
  assert.ok(rotated.json['previous_secret_until']);
  await settled(core, accountId);

  const resend = await runJson(core, ['webhooks', 'resend', ping.json['event_id'] as string]);
  assert.is(resend.code, 0, resend.stderr);
  await receiver.waitFor(2);
  const again = receiver.received[1]!;
  assert.is(again.json.id, ping.json['event_id'], 'the same event again');
  assert.ok(signedWith(again.headers['prepaid-signature'], again.raw, secret), 'the old secret still verifies');
  assert.ok(signedWith(again.headers['prepaid-signature'], again.raw, second), 'the new one too');
  await settled(core, accountId);

  const listed = await runJson(core, ['webhooks', 'deliveries', accountId, '--limit', '5']);
  assert.equal(
    (listed.json['deliveries'] as Array<Record<string, unknown>>).map((d) => [
      d['event_id'],
      d['type'],
      d['state'],
      d['attempts'],
      d['last_status'],
    ]),
    [[ping.json['event_id'], 'ping', 'delivered', 2, 200]],
  );
  const text = await runAgainst(core, ['webhooks', 'deliveries', accountId]);
  assert.match(text.stdout, /EVENT ID\s+TYPE\s+STATE\s+ATTEMPTS\s+LAST STATUS\s+NEXT ATTEMPT/);
  const failedOnly = await runJson(core, ['webhooks', 'deliveries', accountId, '--failed']);
  assert.equal(failedOnly.json['deliveries'], []);

  const got = await runAgainst(core, ['webhooks', 'get', accountId]);
  assert.is(got.code, 0);
  assert.ok(got.stdout.includes(receiver.url));
  assert.not.ok(got.stdout.includes(second), 'get never shows the secret');
  assert.ok(got.stdout.includes(second.slice(-4)));

  const disabled = await runJson(core, ['webhooks', 'disable', accountId]);
  assert.is(disabled.json['enabled'], false);
  const refused = await runAgainst(core, ['webhooks', 'test', accountId]);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /FAILED_PRECONDITION/);
});

test('bad input is refused before anything is sent', async ({ core }) => {
  const limit = await runAgainst(core, ['webhooks', 'deliveries', 'acct', '--limit', '0']);
  assert.is(limit.code, 2);
  const mode = await runAgainst(core, ['webhooks', 'get', 'acct', '--mode', 'staging']);
  assert.is(mode.code, 2);
  const url = await runAgainst(core, ['webhooks', 'set', 'acct']);
  assert.is(url.code, 2);
});

test.run();
