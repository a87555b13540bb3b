/**
 * The scale benchmark's data set, written through the store's own port (so every guard and
 * index is what the service keeps): ACCOUNTS accounts, each funded by a credit, and argv[3]
 * purchases spread over the past year, one reseller (acc_scale_0000) holding BIG_SHARE of
 * them, one in FAILED_EVERY refunded as a failure. Purchases are written FILL_CONCURRENCY at a
 * time, so the group commit batches them as it batches live traffic.
 *
 * argv: the SQLite file, the number of purchases. Prints one JSON line: how long the fill
 * took and a history cursor deep in the big reseller's history (90% of the way down).
 */
import { kobo } from '../../core/domain/money.js';
import { newReference } from '../../core/domain/reference.js';
import { encodeTransactionCursor } from '../../core/store/paging.js';
import { openSqliteStore } from '../../core/store/sqlite/index.js';

const ACCOUNTS = 1_000;
/** The share of all purchases made by the one big reseller. */
const BIG_SHARE = 0.3;
/** Every FAILED_EVERY-th purchase fails and is refunded, so the audit's refund rules have work. */
const FAILED_EVERY = 50;
const FILL_CONCURRENCY = 64;
const YEAR_MS = 365 * 24 * 3_600_000;
const CHARGE_KOBO = kobo(9_800);

const filename = process.argv[2]!;
const purchases = Number(process.argv[3]);
const store = openSqliteStore({ filename });
const started = performance.now();
const accountId = (i: number) => `acc_scale_${String(i).padStart(4, '0')}`;
const origin = Date.now() - YEAR_MS;

// Each wallet gets enough for every purchase it could be given, whatever the draw.
const funding = kobo(CHARGE_KOBO * Math.ceil(purchases * BIG_SHARE + purchases / ACCOUNTS + 10));
for (let i = 0; i < ACCOUNTS; i += 1) {
  await store.accounts.create({
    accountId: accountId(i),
    name: `Scale ${i}`,
    tierId: 'api',
    createdAt: new Date(origin),
  });
  await store.ledger.post({
    kind: 'credit',
    credit: {
      mode: 'live',
      accountId: accountId(i),
      amountKobo: funding,
      reference: `CR-scale-${i}`,
      memo: 'scale fill',
      at: new Date(origin),
    },
  });
}

let next = 0;
let deepCursor = '';
const deepAt = Math.floor(purchases * 0.1);
async function writer(): Promise<void> {
  while (next < purchases) {
    const n = next++;
    const owner = n % 10 < BIG_SHARE * 10 ? 0 : 1 + (n % (ACCOUNTS - 1));
    const at = new Date(origin + Math.floor((n / purchases) * (YEAR_MS - 60_000)));
    const reserved = await store.ledger.post({
      kind: 'reserve',
      tx: {
        reference: newReference(at),
        accountId: accountId(owner),
        mode: 'live',
        product: 'airtime',
        service: 'mtn',
        recipient: `0803${String(1_000_000 + (n % 9_000_000)).padStart(7, '0')}`,
        faceValueKobo: kobo(10_000),
        chargedKobo: CHARGE_KOBO,
        details: {},
        requestId: null,
        requestHash: null,
        nextAttemptAt: at,
        createdAt: at,
      },
    });
    if (reserved.outcome !== 'reserved') throw new Error(`fill: purchase ${n} was ${reserved.outcome}`);
    const reference = reserved.transaction.reference;
    if (owner === 0 && n >= deepAt && deepCursor === '') deepCursor = encodeTransactionCursor(at, reference);
    if (n % FAILED_EVERY === 0)
      await store.ledger.post({ kind: 'refund', reference, reason: 'scale fill: declined', at });
    else await store.ledger.post({ kind: 'settle', reference, result: { providerReference: `P-${n}` }, at });
  }
}
await Promise.all(Array.from({ length: FILL_CONCURRENCY }, writer));
await store.close();
process.stdout.write(`${JSON.stringify({ fillMs: Math.round(performance.now() - started), deepCursor })}\n`);
