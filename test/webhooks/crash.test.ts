/**
 * Webhooks across kill -9: the core runs as a child process and is SIGKILLed at random
 * moments while purchases stream in and the partner's receiver is down. Once the receiver
 * is up, every recorded event arrives (at least once), and the records hold exactly one
 * event per state change: no change without its event, no event without its change.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as assert from 'uvu/assert';
import { AdminService } from '../../gen/prepaid/v1/admin_pb.js';
import { PurchaseService } from '../../gen/prepaid/v1/purchase_pb.js';
import { TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { EventService, WebhookService } from '../../gen/prepaid/v1/webhooks_pb.js';
import { ADMIN_TOKEN_FILE, readTokenFile, SERVICE_TOKEN_FILE } from '../../runtime/tokens.js';
import { bearer } from '../helpers/core.js';
import { type CoreProcess, spawnCore } from '../helpers/process.js';
import { signedWith, startReceiver } from '../helpers/receiver.js';
import { suite } from '../helpers/suite.js';

const test = suite('webhooks across kill -9');

const KILLS = 4;
const CONCURRENT_BUYERS = 3;

const env = (dataDir: string) => ({
  DATA_DIR: dataDir,
  SANDBOX_DELAY_MS: '40',
  PROVIDER_TIMEOUT_MS: '1000',
  RECOVERY_INTERVAL_MS: '200',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_TIMEOUT_MS: '500',
});

function clients(url: string, dataDir: string) {
  const admin = createGrpcTransport({
    baseUrl: url,
    interceptors: [bearer(readTokenFile(dataDir, ADMIN_TOKEN_FILE)!)],
  });
  const service = createGrpcTransport({
    baseUrl: url,
    interceptors: [bearer(readTokenFile(dataDir, SERVICE_TOKEN_FILE)!)],
  });
  return {
    admin: createClient(AdminService, admin),
    webhooks: createClient(WebhookService, admin),
    purchase: createClient(PurchaseService, service),
    events: createClient(EventService, service),
  };
}

/** A phone whose sandbox outcome is mixed: mostly delivered, some failed, some late (8888). */
function phone(): string {
  const roll = Math.random();
  const tail = roll < 0.15 ? '9999' : roll < 0.3 ? '8888' : String(1000 + Math.floor(Math.random() * 7000));
  return `0803123${tail}`;
}

test('a receiver down through purchases and SIGKILLs receives every event once it is up', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-webhook-crash-'));
  const receiver = await startReceiver();
  await receiver.stop();
  let core: CoreProcess | undefined;
  try {
    core = await spawnCore(env(dataDir));
    let api = clients(core.url, dataDir);
    const created = await api.admin.createAccount({ name: 'Crash Hooks', tierId: 'api' });
    const accountId = created.account!.accountId;
    const { secret } = await api.webhooks.setWebhook({ accountId, url: receiver.url });
    await api.admin.creditWallet({ accountId, amountKobo: 100_000_000n, memo: 'funding' });

    for (let life = 0; life < KILLS; life++) {
      let alive = true;
      const buyer = async () => {
        while (alive) {
          try {
            await api.purchase.buyAirtime({
              accountId,
              network: 'mtn',
              phone: phone(),
              amountKobo: 10_000n,
              requestId: randomBytes(8).toString('hex'),
            });
          } catch {
            return;
          }
        }
      };
      const buyers = Array.from({ length: CONCURRENT_BUYERS }, buyer);
      await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 500));
      core.child.kill('SIGKILL');
      assert.is((await core.exited).signal, 'SIGKILL');
      alive = false;
      await Promise.all(buyers);
      core = await spawnCore(env(dataDir));
      api = clients(core.url, dataDir);
    }

    // Every purchase final (recovery), then the receiver comes up.
    const deadline = Date.now() + 60_000;
    while ((await api.admin.checkLedger({})).pendingCount > 0n && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    assert.is((await api.admin.checkLedger({})).pendingCount, 0n, 'every purchase is final');
    await receiver.start();

    // Everything recorded, from the feed.
    const recorded: Array<{ id: string; type: string; subject: string }> = [];
    let cursor = '';
    for (;;) {
      const page = await api.events.listEvents({ accountId, pageSize: 100, pageToken: cursor });
      for (const event of page.events) {
        const body = JSON.parse(event.bodyJson);
        recorded.push({
          id: event.eventId,
          type: event.type,
          subject: body.data.transaction?.reference ?? body.data.reference,
        });
      }
      cursor = page.nextPageToken;
      if (page.events.length === 0) break;
    }

    // Every state change has exactly one event, and every event a state change.
    const transactions: Array<{ reference: string; status: TransactionStatus }> = [];
    let token = '';
    do {
      const page = await api.purchase.listTransactions({ accountId, pageSize: 100, pageToken: token });
      transactions.push(...page.transactions.map((t) => ({ reference: t.reference, status: t.status })));
      token = page.nextPageToken;
    } while (token !== '');
    assert.ok(transactions.length > KILLS, `purchases were made (${transactions.length})`);
    const expected = transactions
      .map((t) => [t.status === TransactionStatus.SUCCESS ? 'transaction.success' : 'transaction.failed', t.reference])
      .concat([['wallet.credited', recorded.find((e) => e.type === 'wallet.credited')?.subject ?? 'missing']])
      .map(([type, subject]) => `${type} ${subject}`)
      .sort();
    assert.equal(
      recorded.map((e) => `${e.type} ${e.subject}`).sort(),
      expected,
      'one event per state change, none missing, none extra',
    );

    // The receiver gets every one of them, signed.
    const ids = new Set(recorded.map((e) => e.id));
    const until = Date.now() + 60_000;
    const received = () => new Set(receiver.received.map((r) => r.json.id as string));
    while ([...ids].some((id) => !received().has(id)) && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const missing = [...ids].filter((id) => !received().has(id));
    assert.equal(missing, [], 'every event arrived');
    for (const request of receiver.received) {
      assert.ok(ids.has(request.json.id), 'nothing arrives that was not recorded');
      assert.ok(signedWith(request.headers['prepaid-signature'], request.raw, secret));
    }
  } finally {
    core?.child.kill('SIGKILL');
    if (core) await core.exited;
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
