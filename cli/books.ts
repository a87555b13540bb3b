/**
 * `prepaid books`: the platform's own books (docs/money.md, The books). `trial-balance` prints
 * every account's balance per mode on its debit or credit side with the totals, which are equal;
 * `settle` records a funding provider's settlement to our bank. An upstream's top-up is
 * `prepaid upstreams fund` (cli/upstreams.ts); both print the entry they booked, or under
 * CLI_MONEY_MOVES=proposals the proposal they made (`bookedOutput`).
 */
import { formatNaira } from '../core/domain/money.js';
import type { BookEntry } from '../gen/prepaid/v1/admin_pb.js';
import { type CommandGroup, UsageError } from './command.js';
import { columns, isoTime, kobo, modeName, nairaArgument, nairaText, present } from './format.js';

/** A required --reference, as a usage error when missing or empty (the core checks its characters). */
export function referenceOption(value: string | undefined): string {
  const reference = (value ?? '').trim();
  if (reference === '') throw new UsageError('--reference REF is required: your bank’s reference for this money.');
  return reference;
}

/**
 * What `upstreams fund` and `books settle` print: under CLI_MONEY_MOVES=proposals the proposal
 * it became (or, replayed, the one made before under the reference), nothing booked; otherwise
 * the entry's lines, or that it was booked before.
 */
export function bookedOutput(
  what: string,
  response: { entry?: BookEntry | undefined; replayed: boolean; proposalId: string; proposalStatus: string },
) {
  if (response.proposalId !== '') {
    const said = response.replayed
      ? `Already proposed: ${what} is ${response.proposalId} (${response.proposalStatus}); ` +
        'no second proposal was made, and approving it books it once.'
      : `Proposed ${what} as ${response.proposalId}; nothing is booked until a finance or admin member ` +
        'approves it in the console (within 24 hours).';
    return {
      json: { proposal_id: response.proposalId, proposal_status: response.proposalStatus, replayed: response.replayed },
      text: [said],
    };
  }
  const entry = present(response.entry, 'entry');
  const postings = entry.postings.map((p) => ({ account: p.account, amount_kobo: Number(p.amountKobo) }));
  return {
    json: {
      entry_id: entry.entryId,
      kind: entry.kind,
      mode: modeName(entry.mode),
      reference: entry.reference,
      at: isoTime(entry.at),
      postings,
      replayed: response.replayed,
    },
    text: [
      response.replayed
        ? `Already booked: ${what} under reference ${entry.reference}; nothing new was written.`
        : `Booked ${what} (reference ${entry.reference}).`,
      ...columns([
        ['ACCOUNT', 'DEBIT', 'CREDIT'],
        ...entry.postings.map((p) => {
          const amount = formatNaira(kobo(p.amountKobo < 0n ? -p.amountKobo : p.amountKobo));
          return [p.account, p.amountKobo > 0n ? amount : '', p.amountKobo < 0n ? amount : ''];
        }),
      ]),
    ],
  };
}

export const booksGroup: CommandGroup = {
  name: 'books',
  summary: 'The platform’s books: the trial balance, providers’ settlements to our bank.',
  commands: [
    {
      name: 'trial-balance',
      summary: 'Every account’s balance per mode, debit or credit, with the totals (equal when the books balance).',
      args: [],
      options: {
        at: { placeholder: 'YYYY-MM-DD', summary: 'The balances at the end of this Lagos day (default: now).' },
      },
      async run({ options }, core) {
        const atDate = (options['at'] ?? '').trim();
        if (options['at'] !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(atDate))
          throw new UsageError(`--at must be a date written YYYY-MM-DD; got ${JSON.stringify(options['at'])}.`);
        const { modes, until } = await core().getTrialBalance({ atDate });
        const text: string[] = [
          until === undefined ? 'The books now.' : `The books at ${isoTime(until)} (end of ${atDate}, Lagos).`,
        ];
        for (const of of modes) {
          const balanced = of.debitTotalKobo === of.creditTotalKobo;
          text.push(
            '',
            `${modeName(of.mode)}:`,
            ...columns([
              ['ACCOUNT', 'KIND', 'DEBIT', 'CREDIT'],
              ...of.lines.map((line) => [
                line.account,
                line.kind,
                line.debitKobo > 0n ? formatNaira(kobo(line.debitKobo)) : '',
                line.creditKobo > 0n ? formatNaira(kobo(line.creditKobo)) : '',
              ]),
              ['TOTAL', '', formatNaira(kobo(of.debitTotalKobo)), formatNaira(kobo(of.creditTotalKobo))],
            ]),
            balanced ? 'Debits equal credits.' : 'DEBITS AND CREDITS DIFFER: the books do not balance.',
          );
        }
        return {
          json: {
            until: isoTime(until),
            modes: modes.map((of) => ({
              mode: modeName(of.mode),
              accounts: of.lines.map((line) => ({
                account: line.account,
                kind: line.kind,
                debit_kobo: Number(line.debitKobo),
                credit_kobo: Number(line.creditKobo),
              })),
              debit_total_kobo: Number(of.debitTotalKobo),
              credit_total_kobo: Number(of.creditTotalKobo),
            })),
          },
          text,
          failed: modes.some((of) => of.debitTotalKobo !== of.creditTotalKobo),
        };
      },
    },
    {
      name: 'settle',
      summary: 'Record a funding provider’s settlement to our bank: AMOUNT_NAIRA received, --fee what it kept.',
      args: ['PROVIDER', 'AMOUNT_NAIRA'],
      options: {
        reference: {
          placeholder: 'REF',
          required: true,
          summary: 'Your bank’s reference: a retry with it books once.',
        },
        fee: { placeholder: 'NAIRA', summary: 'What the provider kept of the money it received for us (default 0).' },
      },
      async run({ args, options }, core) {
        const provider = args[0] ?? '';
        const amountKobo = nairaArgument('AMOUNT_NAIRA', args[1] ?? '');
        const fee = options['fee'];
        const feeKobo = fee === undefined || /^0+(\.0{1,2})?$/.test(fee.trim()) ? 0 : nairaArgument('--fee', fee);
        const reference = referenceOption(options['reference']);
        const response = await core().recordSettlement({
          provider,
          amountKobo: BigInt(amountKobo),
          feeKobo: BigInt(feeKobo),
          reference,
        });
        const kept = feeKobo === 0 ? '' : ` less ${nairaText(feeKobo)} kept`;
        return bookedOutput(`${provider}'s settlement of ${nairaText(amountKobo)}${kept}`, response);
      },
    },
  ],
};
