/**
 * `prepaid books findings [--open]` and `prepaid books findings resolve ID --note TEXT`: the
 * reconciliation's findings (docs/reconciliation.md) listed, and one given an end. Resolving
 * corrects no money: a correction is a proposal a second person approves, which `--proposal`
 * names. Its own file in the `books` group (main.ts joins the groups of one name).
 */
import type { ReconcileFinding } from '../gen/prepaid/v1/admin_pb.js';
import { type CommandGroup, UsageError } from './command.js';
import { columns, isoTime, kobo, limitOption, nairaText, present } from './format.js';

/** The most findings one listing shows (the core's bound). */
const MAX_FINDINGS = 500;

function findingRow(f: ReconcileFinding) {
  return {
    finding_id: f.findingId,
    date: f.date,
    upstream: f.upstream,
    reference: f.reference,
    class: f.class,
    at_stake_kobo: Number(f.atStakeKobo),
    their_status: f.theirStatus,
    found_at: isoTime(f.foundAt),
    resolved_at: f.resolvedAt === undefined ? null : isoTime(f.resolvedAt),
    resolved_by: f.resolvedBy || null,
    resolution: f.resolution || null,
    corrected_by: f.correctedBy || null,
  };
}

const signed = (value: bigint): string => `${value < 0n ? '-' : ''}${nairaText(kobo(value < 0n ? -value : value))}`;

export const booksFindingsGroup: CommandGroup = {
  name: 'books',
  summary: 'The books: the reconciliation’s findings.',
  commands: [
    {
      name: 'findings',
      summary:
        'List the reconciliation’s findings (newest day first), or `resolve ID --note TEXT` one: it corrects no money.',
      args: [],
      optionalArgs: ['resolve', 'ID'],
      options: {
        open: { placeholder: '', flag: true, summary: 'Only the open ones (those in the console’s queue).' },
        limit: { placeholder: 'N', summary: `At most N findings (default 100, up to ${MAX_FINDINGS}).` },
        note: { placeholder: 'TEXT', summary: 'resolve: why it needs nothing more.' },
        proposal: { placeholder: 'PROPOSAL_ID', summary: 'resolve: the approved proposal that corrected it.' },
      },
      async run({ args, options }, core) {
        if (args.length === 0) {
          const limit = limitOption(options['limit'], 0, MAX_FINDINGS);
          const { findings } = await core().listReconcileFindings({ openOnly: options['open'] === 'yes', limit });
          return {
            json: { findings: findings.map(findingRow) },
            text:
              findings.length === 0
                ? [options['open'] === 'yes' ? 'No open findings.' : 'No findings.']
                : columns([
                    ['ID', 'AT STAKE', 'THERE', 'STATE'],
                    ...findings.map((f) => [
                      f.findingId,
                      signed(f.atStakeKobo),
                      f.theirStatus,
                      f.resolvedAt === undefined ? 'open' : `resolved by ${f.resolvedBy}`,
                    ]),
                  ]),
          };
        }
        if (args[0] !== 'resolve' || args.length !== 2)
          throw new UsageError('Use `books findings [--open]` or `books findings resolve ID --note TEXT`.');
        const note = (options['note'] ?? '').trim();
        const proposalId = (options['proposal'] ?? '').trim();
        if (note === '' && proposalId === '')
          throw new UsageError('--note TEXT is required (or --proposal PROPOSAL_ID, the correction).');
        const reply = await core().resolveReconcileFinding({ findingId: args[1]!, note, proposalId });
        const finding = present(reply.finding, 'finding');
        return {
          json: findingRow(finding),
          text: [
            `Resolved ${finding.findingId}: ${finding.resolution}. It is out of the console's queue; no money moved.`,
          ],
        };
      },
    },
  ],
};
