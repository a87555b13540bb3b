/** `prepaid wallet ...`: credit or debit a wallet and read its ledger. */

import type { Kobo } from '../core/domain/money.js';
import { LEDGER_PAGES } from '../core/domain/paging.js';
import type { DebitWalletResponse, LedgerEntry } from '../gen/prepaid/v1/admin_pb.js';
import type { CommandGroup, CommandResult, CommandSpec } from './command.js';
import {
  columns,
  isoTime,
  kobo,
  limitOption,
  MODE_OPTION,
  modeArgument,
  modeName,
  moneyFields,
  nairaArgument,
  nairaText,
  present,
} from './format.js';

function entryJson(entry: LedgerEntry): Record<string, unknown> {
  return {
    entry_id: Number(entry.entryId),
    mode: modeName(entry.mode),
    kind: entry.kind,
    ...moneyFields('amount', entry.amountKobo),
    ...moneyFields('balance_after', entry.balanceAfterKobo),
    reference: entry.reference,
    memo: entry.memo,
    created_at: isoTime(entry.createdAt),
  };
}

/** What `wallet credit` and `wallet debit` print as JSON for the entry written (or written before). */
function movedJson(
  accountId: string,
  amountKobo: Kobo,
  response: { balanceKobo: bigint; replayed: boolean },
  entry: LedgerEntry,
): Record<string, unknown> {
  return {
    account_id: accountId,
    mode: modeName(entry.mode),
    ...moneyFields('amount', BigInt(amountKobo)),
    ...moneyFields('balance', response.balanceKobo),
    entry_id: Number(entry.entryId),
    reference: entry.reference,
    replayed: response.replayed,
  };
}

/**
 * What a live credit or debit says under CLI_MONEY_MOVES=proposals: the proposal it became, or
 * (replayed) the one made before under the same reference, with its state; nothing moved.
 */
function proposalOutput(
  move: 'credit' | 'debit',
  accountId: string,
  amountKobo: Kobo,
  response: { balanceKobo: bigint; replayed: boolean; proposalId: string; proposalStatus: string; warning?: string },
): CommandResult {
  const warning = response.warning ?? '';
  const what = `a ${move} of ${nairaText(amountKobo)} ${move === 'credit' ? 'to' : 'from'} ${accountId}`;
  const said = response.replayed
    ? `Already proposed: ${what} is ${response.proposalId} (${response.proposalStatus}); ` +
      'no second proposal was made, and approving it moves the money once.'
    : `Proposed ${what} as ${response.proposalId}; nothing moves until a finance or admin member ` +
      'approves it in the console (within 24 hours).';
  return {
    json: {
      account_id: accountId,
      ...moneyFields('amount', BigInt(amountKobo)),
      ...moneyFields('balance', response.balanceKobo),
      proposal_id: response.proposalId,
      proposal_status: response.proposalStatus,
      replayed: response.replayed,
      ...(move === 'debit' ? { warning } : {}),
    },
    text: [said],
    ...(warning === '' ? {} : { warnings: [warning] }),
  };
}

/** What `wallet debit` says: the proposal it became, or the debit made (or made before). */
function debitOutput(accountId: string, amountKobo: Kobo, response: DebitWalletResponse): CommandResult {
  if (response.proposalId !== '') return proposalOutput('debit', accountId, amountKobo, response);
  const entry = present(response.entry, 'entry');
  const wallet = modeName(entry.mode);
  const whose = `${wallet === 'test' ? 'the test wallet of ' : ''}${accountId}`;
  return {
    json: movedJson(accountId, amountKobo, response, entry),
    text: [
      response.replayed
        ? `Already debited: ${nairaText(amountKobo)} from ${whose} under ledger reference ${entry.reference}; ` +
          'nothing new was written.'
        : `Debited ${nairaText(amountKobo)} from ${whose} (ledger reference ${entry.reference}).`,
      `${wallet === 'test' ? 'Test balance' : 'Balance'}: ${nairaText(kobo(response.balanceKobo))}`,
    ],
  };
}

const debitCommand: CommandSpec = {
  name: 'debit',
  summary:
    'Take an amount in Naira out of a wallet, with a required --reason (never below ' +
    'zero); --mode test debits test money.',
  args: ['ACCOUNT_ID', 'AMOUNT_NAIRA'],
  options: {
    reason: {
      placeholder: 'TEXT',
      required: true,
      summary: 'Why the money is taken (required): kept on the ledger entry, told in wallet.debited.',
    },
    reference: {
      placeholder: 'REF',
      summary: 'Unique per account among debits: a retry with the same REF and amount debits once.',
    },
    mode: MODE_OPTION,
  },
  async run({ args, options }, core) {
    const amountKobo = nairaArgument('AMOUNT_NAIRA', args[1] ?? '');
    const response = await core().debitWallet({
      accountId: args[0],
      amountKobo: BigInt(amountKobo),
      reason: options['reason'] ?? '',
      reference: options['reference'] ?? '',
      mode: modeArgument(options['mode']),
    });
    return debitOutput(args[0] ?? '', amountKobo, response);
  },
};

/** The wallet command group. */
export const walletGroup: CommandGroup = {
  name: 'wallet',
  summary: 'Wallet credits, debits and the ledger.',
  commands: [
    {
      name: 'credit',
      summary:
        'Credit a wallet with an amount in Naira (at most two decimals), for example ' +
        'after a bank transfer; --mode test credits test money.',
      args: ['ACCOUNT_ID', 'AMOUNT_NAIRA'],
      options: {
        memo: { placeholder: 'TEXT', summary: "Kept on the ledger entry, for example the bank transfer's reference." },
        reference: {
          placeholder: 'REF',
          summary:
            'Unique per account and mode (for example the bank transfer id): a retry with ' +
            'the same REF and amount credits once.',
        },
        mode: MODE_OPTION,
      },
      async run({ args, options }, core) {
        const amountKobo = nairaArgument('AMOUNT_NAIRA', args[1] ?? '');
        const mode = modeArgument(options['mode']);
        const response = await core().creditWallet({
          accountId: args[0],
          amountKobo: BigInt(amountKobo),
          memo: options['memo'] ?? '',
          reference: options['reference'] ?? '',
          mode,
        });
        // CLI_MONEY_MOVES=proposals on the core: nothing moved; a finance member approves in the console.
        if (response.proposalId !== '') return proposalOutput('credit', args[0]!, amountKobo, response);
        const entry = present(response.entry, 'entry');
        const wallet = modeName(entry.mode);
        const whose = `${wallet === 'test' ? 'the test wallet of ' : ''}${args[0]}`;
        const done = response.replayed
          ? `Already credited: ${nairaText(amountKobo)} to ${whose} under ledger reference ` +
            `${entry.reference}; nothing new was written.`
          : `Credited ${nairaText(amountKobo)} to ${whose} (ledger reference ${entry.reference}).`;
        return {
          json: movedJson(args[0]!, amountKobo, response, entry),
          text: [
            done,
            `${wallet === 'test' ? 'Test balance' : 'Balance'}${response.replayed ? ' after that credit' : ''}: ` +
              nairaText(kobo(response.balanceKobo)),
          ],
        };
      },
    },
    debitCommand,
    {
      name: 'ledger',
      summary:
        `Show a wallet's newest ledger entries (default ${LEDGER_PAGES.defaultSize}); ` +
        "--mode test shows the test wallet's.",
      args: ['ACCOUNT_ID'],
      options: {
        limit: { placeholder: 'N', summary: `How many entries, 1 to ${LEDGER_PAGES.maxSize}.` },
        mode: MODE_OPTION,
      },
      async run({ args, options }, core) {
        const limit = limitOption(options['limit'], LEDGER_PAGES.defaultSize, LEDGER_PAGES.maxSize);
        const mode = modeArgument(options['mode']);
        const wallet = modeName(mode);
        const page = await core().listLedgerEntries({ accountId: args[0], pageSize: limit, mode });
        const rows = page.entries.map((e) => [
          String(e.entryId),
          isoTime(e.createdAt) ?? '-',
          e.kind,
          nairaText(kobo(e.amountKobo)),
          nairaText(kobo(e.balanceAfterKobo)),
          e.reference,
          e.memo,
        ]);
        return {
          json: {
            account_id: args[0],
            mode: wallet,
            entries: page.entries.map(entryJson),
            has_more: page.nextPageToken !== '',
          },
          text:
            rows.length === 0
              ? [`The ${wallet} wallet of ${args[0]} has no ledger entries.`]
              : [
                  `The ${wallet} wallet of ${args[0]}:`,
                  ...columns([['ID', 'WHEN', 'KIND', 'AMOUNT', 'BALANCE AFTER', 'REFERENCE', 'MEMO'], ...rows]),
                  ...(page.nextPageToken
                    ? [`(older entries not shown; use --limit up to ${LEDGER_PAGES.maxSize})`]
                    : []),
                ],
        };
      },
    },
  ],
};
