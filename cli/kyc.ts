/**
 * `prepaid kyc ...`: identity levels (docs/kyc.md). The limits of each level, the holders'
 * requests for the next level (their numbers masked), and the operator's decisions; each
 * change is audited by the core in the change's own transaction.
 */
import { parseNaira } from '../core/domain/money.js';
import { type HeldCredit, KycAdminService, type LevelLimits, type LevelRequest } from '../gen/prepaid/v1/kyc_pb.js';
import { type CommandGroup, UsageError } from './command.js';
import { columns, isoTime, kobo, nairaText, present } from './format.js';

const limitText = (value: bigint | undefined) => (value === undefined ? 'no limit' : nairaText(kobo(value)));
const limitJson = (value: bigint | undefined) => (value === undefined ? null : kobo(value));

function levelJson(limits: LevelLimits): Record<string, unknown> {
  return {
    level: limits.level,
    max_balance_kobo: limitJson(limits.maxBalanceKobo),
    max_inflow_kobo: limitJson(limits.maxInflowKobo),
    max_daily_spend_kobo: limitJson(limits.maxDailySpendKobo),
  };
}

function requestJson(request: LevelRequest): Record<string, unknown> {
  return {
    account_id: request.accountId,
    level: request.level,
    kind: request.kind,
    number: request.maskedNumber,
    document_reference: request.documentReference,
    requested_by: request.requestedBy,
    status: request.status,
    created_at: isoTime(request.createdAt),
    decided_at: isoTime(request.decidedAt),
    note: request.note,
  };
}

function heldJson(held: HeldCredit): Record<string, unknown> {
  return { inflow_id: held.inflowId, account_id: held.accountId, amount_kobo: kobo(held.amountKobo) };
}

/** A limit in Naira, or `none` for no limit; absent: the option was not given (an error: say each one). */
function limitArgument(name: string, text: string | undefined): bigint | undefined {
  if (text === undefined) throw new UsageError(`${name} is required (a Naira amount, or none).`);
  if (text.trim().toLowerCase() === 'none') return undefined;
  const parsed = parseNaira(text);
  if (!parsed.ok) throw new UsageError(`${name} ${parsed.reason}; got ${JSON.stringify(text)}.`);
  return BigInt(parsed.kobo);
}

function levelArgument(text: string, allowZero: boolean): number {
  const level = Number(text);
  if (!Number.isInteger(level) || level < (allowZero ? 0 : 1) || level > 3)
    throw new UsageError(`LEVEL must be 1, 2 or 3; got ${JSON.stringify(text)}.`);
  return level;
}

const LIMIT_OPTIONS = {
  'max-balance': { placeholder: 'NAIRA', summary: 'The most the live wallet may hold, or none.' },
  'max-inflow': { placeholder: 'NAIRA', summary: 'The most the funding providers may credit to it in all, or none.' },
  'max-daily-spend': { placeholder: 'NAIRA', summary: 'The most its purchases may charge in a Lagos day, or none.' },
} as const;

/** The kyc command group. */
export const kycGroup: CommandGroup = {
  name: 'kyc',
  summary: 'Identity levels: their limits, the holders\u2019 requests for the next level, the decisions.',
  commands: [
    {
      name: 'levels',
      summary: "List every level's limits.",
      args: [],
      async run(_input, _core, clients) {
        const { levels } = await clients(KycAdminService).listLevels({});
        const rows = levels.map((l) => [
          String(l.level),
          limitText(l.maxBalanceKobo),
          limitText(l.maxInflowKobo),
          limitText(l.maxDailySpendKobo),
        ]);
        return {
          json: { levels: levels.map(levelJson) },
          text: columns([['LEVEL', 'MAX BALANCE', 'MAX INFLOW', 'MAX DAILY SPEND'], ...rows]),
        };
      },
    },
    {
      name: 'set-level',
      summary: "Set one level's three limits (each in Naira, or none); audited with before and after.",
      args: ['LEVEL'],
      options: LIMIT_OPTIONS,
      async run({ args, options }, _core, clients) {
        const level = levelArgument(args[0]!, false);
        const limits = {
          level,
          maxBalanceKobo: limitArgument('--max-balance', options['max-balance']),
          maxInflowKobo: limitArgument('--max-inflow', options['max-inflow']),
          maxDailySpendKobo: limitArgument('--max-daily-spend', options['max-daily-spend']),
        };
        const set = present((await clients(KycAdminService).setLevelLimits({ limits })).limits, 'limits');
        return {
          json: levelJson(set),
          text: [
            `Level ${set.level}: balance ${limitText(set.maxBalanceKobo)}, inflow ${limitText(set.maxInflowKobo)}, ` +
              `daily spend ${limitText(set.maxDailySpendKobo)}.`,
          ],
        };
      },
    },
    {
      name: 'requests',
      summary: 'List the open requests for a level (oldest first, numbers masked) and the credits held.',
      args: [],
      async run(_input, _core, clients) {
        const { requests, held } = await clients(KycAdminService).listLevelRequests({});
        const rows = requests.map((r) => [
          r.accountId,
          String(r.level),
          r.maskedNumber,
          r.documentReference || '-',
          r.requestedBy,
          isoTime(r.createdAt) ?? '-',
        ]);
        const heldTotal = held.reduce((sum, h) => sum + h.amountKobo, 0n);
        return {
          json: { requests: requests.map(requestJson), held: held.map(heldJson) },
          text: [
            ...(requests.length === 0
              ? ['No open requests for a level.']
              : columns([['ACCOUNT', 'LEVEL', 'NUMBER', 'DOCUMENT', 'ASKED BY', 'ASKED AT'], ...rows])),
            `${held.length} credit(s) held over their level's limits, ${nairaText(kobo(heldTotal))} in all.`,
          ],
        };
      },
    },
    {
      name: 'approve',
      summary:
        "Set an account's level (its open request's when --level is not given), approving the request; the " +
        'credits held that the new level allows are credited in the same transaction.',
      args: ['ACCOUNT_ID'],
      options: {
        level: { placeholder: 'N', summary: "The level to set (1, 2 or 3); default the open request's." },
        note: { placeholder: 'TEXT', required: true, summary: 'What was checked (required, kept in the audit log).' },
      },
      async run({ args, options }, _core, clients) {
        const level = options['level'] === undefined ? 0 : levelArgument(options['level'], false);
        const { change } = await clients(KycAdminService).approveLevel({
          accountId: args[0],
          level,
          note: options['note'] ?? '',
        });
        const changed = present(change, 'change');
        const released = changed.released.reduce((sum, h) => sum + h.amountKobo, 0n);
        return {
          json: {
            account_id: args[0],
            before: changed.before,
            level: changed.level,
            released: changed.released.map(heldJson),
          },
          text: [
            `${args[0]} is at level ${changed.level} (was ${changed.before}).`,
            ...(changed.released.length === 0 ? [] : [`Credited ${nairaText(kobo(released))} that was held.`]),
          ],
        };
      },
    },
    {
      name: 'refuse',
      summary: "Refuse an account's open request; the reason is shown to its holder, who may ask again.",
      args: ['ACCOUNT_ID'],
      options: { reason: { placeholder: 'TEXT', required: true, summary: 'Why (required, shown to the holder).' } },
      async run({ args, options }, _core, clients) {
        const { request } = await clients(KycAdminService).refuseLevel({
          accountId: args[0],
          reason: options['reason'] ?? '',
        });
        const refused = present(request, 'request');
        return {
          json: requestJson(refused),
          text: [`Refused the level ${refused.level} request of ${refused.accountId}.`],
        };
      },
    },
  ],
};
