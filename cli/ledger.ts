/** `prepaid ledger check`: proves every kobo adds up, and exits 1 when it does not. */
import type { CommandGroup } from './command.js';
import { modeName } from './format.js';

/**
 * The check reads the whole ledger, about a second or two per million entries on a small
 * machine (README, Performance), beside the running service; ten minutes leaves room for a
 * very large ledger. The core stops the check when this command goes away (deadline, Ctrl-C).
 */
const LEDGER_CHECK_TIMEOUT_MS = 10 * 60_000;

/** The ledger command group. */
export const ledgerGroup: CommandGroup = {
  name: 'ledger',
  summary: 'Check the books.',
  commands: [
    {
      name: 'check',
      summary: 'Check every wallet against its ledger and every purchase against its entries; exit 1 on any violation.',
      args: [],
      async run(_input, core) {
        const report = await core().checkLedger({}, { timeoutMs: LEDGER_CHECK_TIMEOUT_MS });
        const violations = report.violations.map((v) => ({
          kind: v.kind,
          account_id: v.accountId,
          mode: modeName(v.mode),
          reference: v.reference,
          detail: v.detail,
        }));
        // Each mode apart: test money is never read as live.
        const modes = Object.fromEntries(
          report.modes.map((m) => [
            modeName(m.mode),
            {
              transactions_checked: Number(m.transactionsChecked),
              entries_checked: Number(m.entriesChecked),
              pending: Number(m.pendingCount),
              needs_attention: Number(m.needsAttentionCount),
              violation_count: Number(m.violationCount),
            },
          ]),
        );
        const clean = report.violationCount === 0n;
        const summary =
          `Checked ${report.accountsChecked} accounts, ${report.transactionsChecked} transactions, ` +
          `${report.entriesChecked} ledger entries: ` +
          (clean ? 'no violation.' : `${report.violationCount} violation(s).`);
        return {
          failed: !clean,
          json: {
            ok: clean,
            accounts_checked: Number(report.accountsChecked),
            transactions_checked: Number(report.transactionsChecked),
            entries_checked: Number(report.entriesChecked),
            pending: Number(report.pendingCount),
            needs_attention: Number(report.needsAttentionCount),
            violation_count: Number(report.violationCount),
            modes,
            violations,
          },
          text: [
            summary,
            `Pending: ${report.pendingCount} (needing a person: ${report.needsAttentionCount}).`,
            ...report.modes.map(
              (m) =>
                `  ${modeName(m.mode)}: ${m.transactionsChecked} transactions, ${m.entriesChecked} ledger entries, ` +
                `${m.pendingCount} pending (${m.needsAttentionCount} needing a person), ${m.violationCount} ` +
                `violation(s).`,
            ),
            ...violations.map((v) => `  ${v.kind}  ${v.mode}  ${v.account_id}  ${v.reference || '-'}  ${v.detail}`),
            ...(report.violationCount > BigInt(violations.length)
              ? [`  ... and ${report.violationCount - BigInt(violations.length)} more`]
              : []),
          ],
        };
      },
    },
  ],
};
