/**
 * Baseline: the store ceiling. The embedded store's raw reserve + settle rate, in-process,
 * with no network and no gRPC, as many purchases in flight as the service would have
 * (argv[2], default 50). Prints one JSON line with the rate and latencies.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { kobo } from '../../core/domain/money.js';
import { newReference } from '../../core/domain/reference.js';
import { openSqliteStore } from '../../core/store/sqlite/index.js';
import { summarize } from '../stats.js';

const durationMs = Number(process.env['BENCH_DURATION_MS'] ?? 10_000);
const concurrency = Number(process.argv[2] ?? 50);
const dir = mkdtempSync(path.join(tmpdir(), 'prepaid-bench-store-'));
const store = openSqliteStore({ filename: path.join(dir, 'prepaid.sqlite') });
await store.accounts.create({ accountId: 'acc_bench', name: 'Bench', tierId: 'api', createdAt: new Date() });
await store.ledger.post({
  kind: 'credit',
  credit: {
    mode: 'live',
    accountId: 'acc_bench',
    amountKobo: kobo(10_000_000_000),
    reference: 'CR-bench',
    memo: 'bench',
    at: new Date(),
  },
});

const latencies: number[] = [];
const deadline = performance.now() + durationMs;
async function worker(): Promise<void> {
  while (performance.now() < deadline) {
    const started = performance.now();
    const now = new Date();
    const reserved = await store.ledger.post({
      kind: 'reserve',
      tx: {
        reference: newReference(now),
        accountId: 'acc_bench',
        mode: 'live',
        product: 'airtime',
        service: 'mtn',
        recipient: '08031234567',
        faceValueKobo: kobo(10_000),
        chargedKobo: kobo(9_700),
        details: {},
        requestId: null,
        requestHash: null,
        nextAttemptAt: new Date(now.getTime() + 30_000),
        createdAt: now,
      },
    });
    if (reserved.outcome !== 'reserved') throw new Error(`reserve: ${reserved.outcome}`);
    await store.ledger.post({
      kind: 'settle',
      reference: reserved.transaction.reference,
      result: { providerReference: 'bench' },
      at: new Date(),
    });
    latencies.push(performance.now() - started);
  }
}
const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const elapsedMs = performance.now() - started;
process.stdout.write(`${JSON.stringify(summarize(latencies, elapsedMs, 0))}\n`);
await store.close();
rmSync(dir, { recursive: true, force: true });
