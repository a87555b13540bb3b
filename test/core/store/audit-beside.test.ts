/**
 * The ledger check runs beside the money: on SQLite it reads a snapshot on a thread and a
 * connection of its own, so purchases made while it reads complete, and its answer is exact
 * for the snapshot it read. The check is held inside its snapshot by a gate (a test seam of
 * the thread runner), so nothing here depends on timing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { createLedgerCheck } from '../../../core/accounts/ledger-check.js';
import type { LedgerAudit } from '../../../core/domain/audit.js';
import type { DomainError } from '../../../core/domain/errors.js';
import { kobo } from '../../../core/domain/money.js';
import type { Store } from '../../../core/store/port.js';
import { auditOffThread, releaseAuditGate } from '../../../core/store/sqlite/audit-runner.js';
import { openSqliteStore } from '../../../core/store/sqlite/index.js';
import { airtimePurchase } from '../../helpers/purchases.js';
import { suite } from '../../helpers/suite.js';

const beside = suite('ledger check beside purchases');

let dir = '';
let filename = '';
let store: Store;
let sequence = 0;

beside.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prepaid-audit-'));
  filename = join(dir, 'prepaid.db');
  store = openSqliteStore({ filename });
  await store.accounts.create({ accountId: 'acct-1', name: 'Ada', tierId: 'standard', createdAt: new Date(1_000) });
  await store.ledger.post({
    kind: 'credit',
    credit: {
      mode: 'live',
      accountId: 'acct-1',
      amountKobo: kobo(1_000_000),
      reference: 'CR-1',
      memo: 'opening',
      at: new Date(2_000),
    },
  });
});

beside.after.each(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One delivered purchase of 98 naira, reserved and settled through the port. */
async function purchase(): Promise<void> {
  sequence += 1;
  const reference = `TX-${String(sequence).padStart(6, '0')}`;
  const reserved = await store.ledger.post({
    kind: 'reserve',
    tx: airtimePurchase(reference, { createdAt: new Date(3_000 + sequence) }),
  });
  assert.is(reserved.outcome, 'reserved');
  await store.ledger.post({
    kind: 'settle',
    reference,
    result: { providerReference: `P-${sequence}` },
    at: new Date(4_000 + sequence),
  });
}

/** Starts a held check; resolves once it has its snapshot and waits at the gate. */
async function heldCheck(signal?: AbortSignal): Promise<{ result: Promise<LedgerAudit>; release(): void }> {
  const buffer = new SharedArrayBuffer(4);
  let inSnapshot!: () => void;
  const snapshotTaken = new Promise<void>((resolve) => (inSnapshot = resolve));
  const result = auditOffThread(filename, signal ? { signal } : {}, { buffer, onSnapshot: inSnapshot });
  result.catch(() => undefined);
  await snapshotTaken;
  return { result, release: () => releaseAuditGate(buffer) };
}

beside('purchases made while the check reads complete, and the check answers for its snapshot', async () => {
  for (let i = 0; i < 20; i += 1) await purchase();
  const check = await heldCheck();

  // The check now holds a read transaction on its own connection; the store's writer goes on.
  for (let i = 0; i < 15; i += 1) await purchase();
  await store.ledger.post({
    kind: 'credit',
    credit: {
      mode: 'live',
      accountId: 'acct-1',
      amountKobo: kobo(5_000),
      reference: 'CR-2',
      memo: 'top-up',
      at: new Date(9_000),
    },
  });
  assert.is(
    (await store.accounts.get('acct-1'))?.balanceKobo,
    1_000_000 + 5_000 - 35 * 9_800,
    'the writes made during the check are committed',
  );

  check.release();
  const audit = await check.result;
  assert.is(audit.transactionsChecked, 20, 'the purchases of the snapshot, not those made after it');
  assert.is(audit.entriesChecked, 21, 'one credit and twenty debits');
  assert.equal(audit.violations, [], 'the snapshot adds up');

  const after = await store.wallet.audit();
  assert.is(after.transactionsChecked, 35);
  assert.is(after.entriesChecked, 37);
  assert.equal(after.violations, []);
});

beside('an abandoned check ends at once and says why', async () => {
  await purchase();
  const abandoned = new AbortController();
  const check = await heldCheck(abandoned.signal);
  abandoned.abort(new Error('the operator gave up'));
  let reason = '';
  await check.result.catch((error: Error) => (reason = error.message));
  assert.is(reason, 'the operator gave up');
  // The thread is gone (terminated while it waited): a new check runs and answers.
  assert.is((await store.wallet.audit()).transactionsChecked, 1);
});

beside('one check at a time: a second one asked for meanwhile is refused with a reason', async () => {
  let finish!: (audit: LedgerAudit) => void;
  const slow: Store['wallet'] = {
    ...store.wallet,
    audit: () => new Promise<LedgerAudit>((resolve) => (finish = resolve)),
  };
  const events: string[] = [];
  const ledgerCheck = createLedgerCheck({ wallet: slow, log: (event) => events.push(event) });
  const first = ledgerCheck.check();
  let refused: DomainError | undefined;
  await ledgerCheck.check().catch((error: DomainError) => (refused = error));
  assert.is(refused?.code, 'FAILED_PRECONDITION');
  assert.match(refused?.message ?? '', /already running/);
  finish(await store.wallet.audit());
  assert.is((await first).violationCount, 0);
  assert.ok(events.includes('ledger.checked'), 'the finished check is logged');
  // Once the first has answered, the next may run.
  const next = ledgerCheck.check();
  finish(await store.wallet.audit());
  assert.is((await next).violationCount, 0);
});

beside.run();
