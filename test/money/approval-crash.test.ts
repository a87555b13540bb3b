/**
 * A staff approval is one transaction: the decision, the move, its postings, the mark applied
 * and the audit row are written together or not at all. To stop it at each of those writes,
 * the test adds a trigger to the core's SQLite file that refuses that one write (the state a
 * crash there leaves is the transaction's rollback, which is what SQLite's WAL recovery keeps
 * after a kill -9: a test of that recovery is test/money/crash.test.ts). After each refusal the
 * core is stopped, the trigger removed, and a new core started on the same file: the proposal
 * is still pending, no money moved, nothing was audited; approving it then moves the money
 * once, and the ledger check (which proves every applied proposal is booked and audited)
 * finds nothing. The same for a top-up proposal's approval: its entry and postings, the mark
 * applied and the audit row are all there after a restart or none of them are.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { consoleClients, signedInStaff, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

const test = suite('money: a staff approval stopped at each of its writes');

/** Each write of an approval, and a trigger that refuses it. */
const STEPS: Record<string, string> = {
  decision: `BEFORE UPDATE OF status ON proposals WHEN NEW.status = 'approved'`,
  'wallet entry': `BEFORE INSERT ON ledger_entries WHEN NEW.kind = 'credit' AND NEW.memo = 'Manual credit'`,
  postings: `BEFORE INSERT ON journal WHEN NEW.kind = 'credit'`,
  event: `BEFORE INSERT ON events WHEN NEW.type = 'wallet.credited'`,
  'mark applied': 'BEFORE UPDATE OF applied_at ON proposals',
  'audit row': `BEFORE INSERT ON audit_log WHEN NEW.action = 'proposal.approve'`,
};

test('stopped at any write, the approval left nothing; approved again after a restart, it moves once', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'prepaid-approval-crash-'));
  const storeFile = path.join(dir, 'prepaid.sqlite');
  const clock = new TestClock();
  let core: TestCore = await startCore({ clock: clock.now, storeFile });
  try {
    const ada = await signedInStaff(core, clock, 'finance');
    const bola = await signedInStaff(core, clock, 'finance');
    const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
    let expected = 10_000_00n;
    for (const [step, trigger] of Object.entries(STEPS)) {
      const { console } = consoleClients(core);
      const proposed = await console.proposeMoneyMove({
        sessionToken: ada.token,
        clientAddress: '127.0.0.1',
        kind: 'credit',
        accountId,
        amountKobo: 500_00n,
        note: `goodwill after the ${step} outage`,
      });
      const proposalId = proposed.proposal!.proposalId;
      const db = new Database(storeFile, { timeout: 5_000 });
      db.exec(`CREATE TRIGGER stop_here ${trigger} BEGIN SELECT RAISE(ABORT, 'stopped at the ${step}'); END`);
      db.close();
      const approve = () =>
        consoleClients(core).console.decideProposal({
          sessionToken: bola.token,
          clientAddress: '127.0.0.1',
          proposalId,
          approve: true,
          note: '',
        });
      let refused = '';
      await approve().catch((error: Error) => (refused = error.message));
      assert.ok(refused !== '', `the approval stopped at the ${step}`);

      // The core goes away with the write refused, and a new one opens the same file.
      await core.close();
      const fix = new Database(storeFile, { timeout: 5_000 });
      fix.exec('DROP TRIGGER stop_here');
      const left = fix.prepare('SELECT status, applied_at FROM proposals WHERE proposal_id = ?').get(proposalId);
      const audited = fix.prepare('SELECT COUNT(*) AS n FROM audit_log WHERE target = ? AND action LIKE ?');
      assert.equal(left, { status: 'pending', applied_at: null }, `after the ${step}: still pending`);
      assert.is((audited.get(proposalId, 'proposal.approve') as { n: number }).n, 0, 'no approval audited');
      fix.close();
      core = await startCore({ clock: clock.now, storeFile });
      const balance = async () => (await core.admin.getAccount({ accountId })).account!.balanceKobo;
      assert.is(await balance(), expected, `after the ${step}: no money moved`);

      const approved = await approve();
      expected += 500_00n;
      assert.ok(approved.proposal?.applied, 'approved again: applied');
      assert.is(await balance(), expected, 'the credit moved once');
      await approve().catch(() => undefined);
      assert.is(await balance(), expected, 'a third approval moves nothing');
    }
    const check = await core.admin.checkLedger({});
    assert.is(check.violationCount, 0n, 'the books hold every applied proposal, audited');
  } finally {
    await core.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Each write of a top-up's approval: the decision, its entry, the mark applied, the audit row. */
const TOP_UP_STEPS: Record<string, string> = {
  decision: `BEFORE UPDATE OF status ON proposals WHEN NEW.status = 'approved'`,
  postings: `BEFORE INSERT ON postings WHEN NEW.account = 'upstream:sandbox:float'`,
  entry: `BEFORE INSERT ON journal WHEN NEW.kind = 'upstream_funded'`,
  'mark applied': 'BEFORE UPDATE OF applied_at ON proposals',
  'audit row': `BEFORE INSERT ON audit_log WHEN NEW.action = 'proposal.approve'`,
};

test('a top-up approval stopped at any write is absent after a restart; approved again it is booked once', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'prepaid-approval-crash-'));
  const storeFile = path.join(dir, 'prepaid.sqlite');
  const clock = new TestClock();
  let core: TestCore = await startCore({ clock: clock.now, storeFile });
  try {
    const ada = await signedInStaff(core, clock, 'finance');
    const bola = await signedInStaff(core, clock, 'admin');
    const float = async () => {
      const { modes } = await core.admin.getTrialBalance({ atDate: '' });
      const line = modes[0]!.lines.find((l) => l.account === 'upstream:sandbox:float');
      return line === undefined ? 0n : line.debitKobo - line.creditKobo;
    };
    let expected = 0n;
    for (const [step, trigger] of Object.entries(TOP_UP_STEPS)) {
      const reference = `GTB-${step.replace(/ /g, '-')}`;
      const proposed = await consoleClients(core).console.proposeMoneyMove({
        sessionToken: ada.token,
        clientAddress: '127.0.0.1',
        kind: 'upstream_topup',
        target: 'sandbox',
        amountKobo: 2_000_00n,
        reference,
        note: `float top-up stopped at the ${step}`,
      });
      const proposalId = proposed.proposal!.proposalId;
      const db = new Database(storeFile, { timeout: 5_000 });
      db.exec(`CREATE TRIGGER stop_here ${trigger} BEGIN SELECT RAISE(ABORT, 'stopped at the ${step}'); END`);
      db.close();
      const approve = () =>
        consoleClients(core).console.decideProposal({
          sessionToken: bola.token,
          clientAddress: '127.0.0.1',
          proposalId,
          approve: true,
          note: '',
        });
      let refused = '';
      await approve().catch((error: Error) => (refused = error.message));
      assert.ok(refused !== '', `the approval stopped at the ${step}`);

      await core.close();
      const fix = new Database(storeFile, { timeout: 5_000 });
      fix.exec('DROP TRIGGER stop_here');
      const left = fix.prepare('SELECT status, applied_at FROM proposals WHERE proposal_id = ?').get(proposalId);
      assert.equal(left, { status: 'pending', applied_at: null }, `after the ${step}: still pending`);
      const entries = fix.prepare('SELECT COUNT(*) AS n FROM journal WHERE reference = ?').get(reference);
      assert.equal(entries, { n: 0 }, `after the ${step}: no entry, no postings`);
      const audited = fix.prepare(
        "SELECT COUNT(*) AS n FROM audit_log WHERE target = ? AND action = 'proposal.approve'",
      );
      assert.equal(audited.get(proposalId), { n: 0 }, 'no approval audited');
      fix.close();
      core = await startCore({ clock: clock.now, storeFile });
      assert.is(await float(), expected, `after the ${step}: nothing booked`);

      const approved = await approve();
      expected += 2_000_00n;
      assert.ok(approved.proposal?.applied, 'approved again: applied');
      assert.is(await float(), expected, 'the top-up is booked once');
      await approve().catch(() => undefined);
      assert.is(await float(), expected, 'a third approval books nothing');
    }
    const check = await core.admin.checkLedger({});
    assert.is(check.violationCount, 0n, 'the books hold every applied top-up, audited');
  } finally {
    await core.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
