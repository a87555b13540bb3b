/**
 * Webhook isolation is per account, not per origin (core/webhooks/delivery.ts and
 * destination.ts): accounts whose webhooks point at paths of one origin that never answer hold
 * their own connections and slots only, so another account on that origin is delivered at
 * once; and one account's live and test webhooks together hold at most one account's slots.
 * A real core delivering to a real HTTP server on port 0 whose paths hang or answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { DEFAULT_PER_DESTINATION } from '../../core/config.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { WebhookService } from '../../gen/prepaid/v1/webhooks_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';

/** One origin: requests to /hang/... are held unanswered, any other path is answered 200 and counted. */
interface Origin {
  url: string;
  hung: Map<string, number>;
  answered: string[];
  release(): void;
  close(): Promise<void>;
}

async function startOrigin(): Promise<Origin> {
  const held: http.ServerResponse[] = [];
  const hung = new Map<string, number>();
  const answered: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '';
      if (path.startsWith('/hang/')) {
        hung.set(path, (hung.get(path) ?? 0) + 1);
        held.push(res);
        return;
      }
      answered.push(path);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = () => {
    for (const res of held.splice(0)) res.writeHead(200).end('ok');
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hung,
    answered,
    release,
    async close() {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const test = suite<{ core: TestCore; origin: Origin }>('webhooks: one origin, several accounts', {} as never);

test.before(async (context) => {
  // A generous attempt time-out: a hung request holds its slot for the whole test.
  context.core = await startCore({ webhooks: { allowPrivate: true, pollIntervalMs: 25, timeoutMs: 20_000 } });
});
test.before.each(async (context) => {
  context.origin = await startOrigin();
});
test.after.each(async ({ origin }) => {
  await origin.close();
});
test.after(async ({ core }) => {
  await core?.close();
});

const total = (origin: Origin) => [...origin.hung.values()].reduce((sum, n) => sum + n, 0);

async function until(what: string, done: () => boolean, boundMs = 5_000): Promise<void> {
  for (const deadline = Date.now() + boundMs; !done(); ) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("four accounts hanging on an origin do not hold back a fifth account's event on it", async ({ core, origin }) => {
  const webhooks = core.clientWithToken(WebhookService, core.adminToken);
  const HOSTILE = 4;
  for (let i = 0; i < HOSTILE; i++) {
    const { accountId } = await core.createApiAccount();
    await webhooks.setWebhook({ accountId, url: `${origin.url}/hang/${i}` });
    for (let n = 0; n < DEFAULT_PER_DESTINATION * 2; n++) await webhooks.sendTestEvent({ accountId });
  }
  // Each takes its own slots, as many as the bound per destination.
  await until('the hanging accounts fill their slots', () => total(origin) === HOSTILE * DEFAULT_PER_DESTINATION);
  const victim = await core.createApiAccount();
  await webhooks.setWebhook({ accountId: victim.accountId, url: `${origin.url}/victim` });
  await webhooks.sendTestEvent({ accountId: victim.accountId });
  // Sharing one pool per origin, the event waited for a hung request's time-out (20 s here).
  await until("the fifth account's event arrives while the others hang", () => origin.answered.length === 1);
  assert.equal(origin.answered, ['/victim']);
  assert.is(total(origin), HOSTILE * DEFAULT_PER_DESTINATION, 'the hanging accounts hold no more than their slots');
});

test('one account holds at most its slots, its live and test webhooks together', async ({ core, origin }) => {
  const webhooks = core.clientWithToken(WebhookService, core.adminToken);
  const { accountId } = await core.createApiAccount();
  for (const mode of [Mode.LIVE, Mode.TEST]) {
    await webhooks.setWebhook({ accountId, mode, url: `${origin.url}/hang/${Mode[mode]}` });
    for (let n = 0; n < DEFAULT_PER_DESTINATION * 2; n++) await webhooks.sendTestEvent({ accountId, mode });
  }
  await until('the account fills its slots', () => total(origin) >= DEFAULT_PER_DESTINATION);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.is(total(origin), DEFAULT_PER_DESTINATION, `hung: ${JSON.stringify([...origin.hung])}`);
  // Once answered, the rest of both webhooks' events go out.
  origin.release();
  await until('the second round is sent', () => total(origin) >= 2 * DEFAULT_PER_DESTINATION);
});

test.run();
