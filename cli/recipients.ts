/** `prepaid recipients ...`: the platform's and accounts' blocklists, and accounts' per-recipient limits. */
import { parseNaira } from '../core/domain/money.js';
import type { RecipientBlock } from '../gen/prepaid/v1/admin_pb.js';
import { type CommandGroup, type OptionSpec, UsageError } from './command.js';
import { columns, isoTime, kobo, moneyFields, nairaText } from './format.js';

const ACCOUNT_OPTION: OptionSpec = {
  placeholder: 'ACCOUNT_ID',
  summary: "The account whose own list it is; without it, the platform's list (every account).",
};

function blockJson(block: RecipientBlock): Record<string, unknown> {
  return {
    account_id: block.accountId || null,
    value: block.value,
    reason: block.reason,
    blocked_by: block.blockedBy,
    created_at: isoTime(block.createdAt),
  };
}

const listName = (accountId: string) => (accountId === '' ? "the platform's list" : `the list of ${accountId}`);

function wholeNumber(name: string, text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^\d{1,6}$/.test(text)) throw new UsageError(`${name} must be a whole number; got ${JSON.stringify(text)}.`);
  return Number(text);
}

function nairaOrZero(name: string, text: string | undefined): bigint {
  if (text === undefined) return 0n;
  const parsed = parseNaira(text);
  if (!parsed.ok) throw new UsageError(`${name} ${parsed.reason}; got ${JSON.stringify(text)}.`);
  return BigInt(parsed.kobo);
}

/** The recipients command group. */
export const recipientsGroup: CommandGroup = {
  name: 'recipients',
  summary: 'Blocked recipients (phone, meter and smart-card numbers) and per-recipient limits.',
  commands: [
    {
      name: 'block',
      summary: "Refuse every purchase to VALUE: for the platform, or with --account for that account's purchases only.",
      args: ['VALUE'],
      options: {
        reason: { placeholder: 'TEXT', summary: 'Why (never told to the buyer).', required: true },
        account: ACCOUNT_OPTION,
      },
      async run({ args, options }, core) {
        const accountId = options['account'] ?? '';
        const { block } = await core().blockRecipient({ accountId, value: args[0], reason: options['reason'] ?? '' });
        return { json: blockJson(block!), text: [`Blocked ${block!.value} on ${listName(accountId)}.`] };
      },
    },
    {
      name: 'unblock',
      summary: "Lift a block of VALUE (the platform's, or with --account that account's).",
      args: ['VALUE'],
      options: { account: ACCOUNT_OPTION },
      async run({ args, options }, core) {
        const accountId = options['account'] ?? '';
        const { removed } = await core().unblockRecipient({ accountId, value: args[0] });
        return {
          json: { account_id: accountId || null, value: args[0], removed },
          text: [
            removed
              ? `Unblocked ${args[0]} on ${listName(accountId)}.`
              : `${args[0]} was not on ${listName(accountId)}.`,
          ],
        };
      },
    },
    {
      name: 'list',
      summary: "List the platform's blocked recipients, or with --account that account's, newest first.",
      args: [],
      options: { account: ACCOUNT_OPTION },
      async run({ options }, core) {
        const accountId = options['account'] ?? '';
        const { blocks } = await core().listRecipientBlocks({ accountId });
        return {
          json: { account_id: accountId || null, blocks: blocks.map(blockJson) },
          text:
            blocks.length === 0
              ? [`Nothing is on ${listName(accountId)}.`]
              : columns([
                  ['VALUE', 'REASON', 'BY', 'SINCE'],
                  ...blocks.map((b) => [b.value, b.reason || '-', b.blockedBy, isoTime(b.createdAt) ?? '-']),
                ]),
        };
      },
    },
    {
      name: 'limit',
      summary:
        "Set an account's limits per recipient per Africa/Lagos day (0 or absent: none) and its duplicate guard; " +
        'replaces the earlier limits.',
      args: ['ACCOUNT_ID'],
      options: {
        'per-day-count': { placeholder: 'N', summary: 'At most N purchases per recipient a day.' },
        'per-day-naira': { placeholder: 'NAIRA', summary: 'At most this much charged per recipient a day.' },
        'duplicate-guard': {
          placeholder: 'on|off',
          summary:
            'on: the same product, recipient and amount within DUPLICATE_WINDOW_S without a new request_id is refused.',
        },
      },
      async run({ args, options }, core) {
        const guard = options['duplicate-guard'];
        if (guard !== undefined && guard !== 'on' && guard !== 'off')
          throw new UsageError(`--duplicate-guard must be on or off; got ${JSON.stringify(guard)}.`);
        const set = await core().setRecipientLimits({
          accountId: args[0],
          perDayCount: wholeNumber('--per-day-count', options['per-day-count']),
          perDayKobo: nairaOrZero('--per-day-naira', options['per-day-naira']),
          duplicateGuard: guard === 'on',
        });
        const count = set.perDayCount === 0 ? 'no count limit' : `${set.perDayCount} a day`;
        const naira = set.perDayKobo === 0n ? 'no Naira limit' : `${nairaText(kobo(set.perDayKobo))} a day`;
        return {
          json: {
            account_id: set.accountId,
            per_day_count: set.perDayCount,
            ...moneyFields('per_day', set.perDayKobo),
            duplicate_guard: set.duplicateGuard,
          },
          text: [
            `${set.accountId}, per recipient: ${count}, ${naira}; duplicate guard ${set.duplicateGuard ? 'on' : 'off'}.`,
          ],
        };
      },
    },
  ],
};
