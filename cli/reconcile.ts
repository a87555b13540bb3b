/**
 * `prepaid books reconcile --date YYYY-MM-DD [--upstream NAME]`: one Lagos day matched with the
 * upstreams (docs/reconciliation.md). Its own file in the `books` group (main.ts joins the
 * groups of one name), so the group's other commands live beside it.
 */
import { DomainError } from '../core/domain/errors.js';
import type { Kobo } from '../core/domain/money.js';
import { parseLagosDate } from '../core/domain/people.js';
import type { ReconciledUpstream, ReconcileFinding } from '../gen/prepaid/v1/admin_pb.js';
import { type CommandGroup, UsageError } from './command.js';
import { isoTime, nairaText } from './format.js';

/** Every purchase of the day is re-queried, a few at a time, each in at most 15 s: a long day takes minutes. */
const RECONCILE_TIMEOUT_MS = 60 * 60_000;

/** A signed amount as text: "-NGN 97.00" is the platform's loss. */
function signedNaira(value: bigint): string {
  const n = Number(value);
  return `${n < 0 ? '-' : ''}${nairaText(Math.abs(n) as Kobo)}`;
}

function findingJson(f: ReconcileFinding) {
  return {
    date: f.date,
    upstream: f.upstream,
    reference: f.reference,
    class: f.class,
    at_stake_kobo: Number(f.atStakeKobo),
    our_cost_kobo: f.ourCostKobo === undefined ? null : Number(f.ourCostKobo),
    their_charged_kobo: f.theirChargedKobo === undefined ? null : Number(f.theirChargedKobo),
    outcome: f.outcome,
    their_status: f.theirStatus,
    their_charges: f.theirCharges === 0 ? null : f.theirCharges,
    reason: f.reason || null,
    evidence: f.evidence || null,
    found_at: isoTime(f.foundAt),
  };
}

function upstreamJson(u: ReconciledUpstream) {
  return {
    upstream: u.upstream,
    date: u.date,
    purchases: u.purchases,
    added: u.added,
    drift_kobo: u.driftKobo === undefined ? null : Number(u.driftKobo),
    between: u.between,
    current_reported_kobo: u.currentReportedKobo === undefined ? null : Number(u.currentReportedKobo),
    current_expected_kobo: u.currentExpectedKobo === undefined ? null : Number(u.currentExpectedKobo),
    current_error: u.currentError || null,
    findings: u.findings.map(findingJson),
  };
}

function upstreamText(u: ReconciledUpstream): string[] {
  const drift = u.driftKobo === undefined ? 'no balance told' : `drift ${signedNaira(u.driftKobo)}`;
  const now =
    u.currentReportedKobo !== undefined && u.currentExpectedKobo !== undefined
      ? `; now ${signedNaira(u.currentReportedKobo)} there, ${signedNaira(u.currentExpectedKobo)} in our books`
      : u.currentError === ''
        ? ''
        : `; balance now unread: ${u.currentError}`;
  return [
    `${u.upstream} ${u.date}: ${u.purchases} purchases, ${u.findings.length} mismatches (${u.added} new), ${drift}${now}`,
    ...(u.between.length === 0 ? [] : [`  the drift began between: ${u.between.join(', ')}`]),
    ...u.findings.map((f) => `  ${f.class}  ${f.reference}  ${signedNaira(f.atStakeKobo)}  (there: ${f.theirStatus})`),
  ];
}

/** The `books` group's reconciliation command. */
export const booksReconcileGroup: CommandGroup = {
  name: 'books',
  summary: 'The books: reconciliation with the upstreams.',
  commands: [
    {
      name: 'reconcile',
      summary:
        "Match one Lagos day's live purchases with each upstream; mismatches go to the console's queue, nothing is corrected.",
      args: [],
      options: {
        date: { placeholder: 'YYYY-MM-DD', summary: 'The Lagos day to reconcile.', required: true },
        upstream: { placeholder: 'NAME', summary: 'Only this upstream; default every upstream.' },
      },
      async run({ options }, core) {
        const date = options['date'] ?? '';
        try {
          parseLagosDate('date', date);
        } catch (error) {
          if (error instanceof DomainError) throw new UsageError(`--date: ${error.message}`);
          throw error;
        }
        const reply = await core().reconcile(
          { date, upstream: options['upstream'] ?? '' },
          { timeoutMs: RECONCILE_TIMEOUT_MS },
        );
        const upstreams = reply.upstreams;
        return {
          json: { date, upstreams: upstreams.map(upstreamJson) },
          text:
            upstreams.length === 0
              ? [`${date}: no upstream to reconcile (UPSTREAMS names none).`]
              : [
                  ...upstreams.flatMap(upstreamText),
                  'Nothing was corrected: a correction is a proposal (refund, pending_failed, credit) a second person approves.',
                ],
        };
      },
    },
  ],
};
