/**
 * `prepaid keys compat ...` and `prepaid plans alias ...`: compatible tokens bound to a key pair
 * and each account's plan aliases per dialect (docs/compat.md).
 */
import { AVAILABLE_DIALECTS, checkDialect, checkInFlight, DIALECTS } from '../core/domain/compat.js';
import { DomainError } from '../core/domain/errors.js';
import type { CompatToken, PlanAlias } from '../gen/prepaid/v1/admin_pb.js';
import { type CommandGroup, type CommandSpec, UsageError } from './command.js';
import { columns, isoTime, modeName, present } from './format.js';

/** The token is shown once: the same warning as a secret key's, in the token's words. */
const TOKEN_SHOWN_ONCE_WARNING =
  'warning: the token is shown only this once and cannot be retrieved later; store it now.';

/** A rule of core/domain/compat.ts checked here first, so a bad word never reaches the core. */
function checked<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof DomainError) throw new UsageError(error.message);
    throw error;
  }
}

function tokenJson(token: CompatToken): Record<string, unknown> {
  return {
    token_id: token.tokenId,
    account_id: token.accountId,
    public_key: token.publicKey,
    dialect: token.dialect,
    in_flight: token.inFlight,
    last_four: token.lastFour,
    mode: modeName(token.mode),
    created_at: isoTime(token.createdAt),
    revoked_at: isoTime(token.revokedAt),
  };
}

function aliasJson(alias: PlanAlias): Record<string, unknown> {
  return {
    account_id: alias.accountId,
    dialect: alias.dialect,
    alias_id: alias.aliasId,
    plan_id: Number(alias.planId),
    updated_at: isoTime(alias.updatedAt),
  };
}

/**
 * A VTpass token's three keys, as VTpass's clients are configured with them: the core makes it
 * `api-key:public-key:secret-key` (core/accounts/compat-vtpass.ts).
 */
function vtpassParts(token: string): { api_key: string; public_key: string; secret_key: string } {
  const [apiKey = '', publicKey = '', secretKey = ''] = token.split(':');
  return { api_key: apiKey, public_key: publicKey, secret_key: secretKey };
}

const compatCommand: CommandSpec = {
  name: 'compat',
  summary:
    'Make a compatible token bound to the key pair PUBLIC_KEY (its mode, IP lock, scopes and caps), for clients ' +
    `of another site's API shape (--dialect ${AVAILABLE_DIALECTS.join('|')}); shown once.`,
  args: ['PUBLIC_KEY'],
  options: {
    dialect: { placeholder: DIALECTS.join('|'), summary: 'The API shape its clients speak.', required: true },
    'in-flight': {
      placeholder: 'pending|processing',
      summary: 'What a purchase still in flight when the wait runs out is answered (default pending).',
    },
  },
  async run({ args, options }, core) {
    const dialect = checked(() => checkDialect('--dialect', options['dialect'] ?? ''));
    const inFlight = checked(() => checkInFlight('--in-flight', options['in-flight'] ?? ''));
    const made = await core().createCompatToken({ publicKey: args[0], dialect, inFlight });
    const record = present(made.record, 'record');
    const parts = record.dialect === 'vtpass' ? vtpassParts(made.token) : undefined;
    return {
      json: { token: made.token, ...tokenJson(record), ...(parts === undefined ? {} : { vtpass: parts }) },
      text: [
        `Made a ${record.dialect} token for ${record.publicKey} (${modeName(record.mode)}, account ${record.accountId}).`,
        `Token id: ${record.tokenId}`,
        ...(parts === undefined
          ? [`Token: ${made.token}`]
          : [`api-key: ${parts.api_key}`, `public-key: ${parts.public_key}`, `secret-key: ${parts.secret_key}`]),
        `In flight: ${record.inFlight}`,
      ],
      warnings: [TOKEN_SHOWN_ONCE_WARNING],
    };
  },
};

const compatListCommand: CommandSpec = {
  name: 'compat-list',
  summary: "List an account's compatible tokens (newest first), without the tokens.",
  args: ['ACCOUNT_ID'],
  async run({ args }, core) {
    const { tokens } = await core().listCompatTokens({ accountId: args[0] });
    const rows = tokens.map((t) => [
      t.tokenId,
      t.dialect,
      `...${t.lastFour}`,
      t.publicKey,
      modeName(t.mode),
      t.inFlight,
      t.revokedAt === undefined ? 'active' : 'revoked',
      isoTime(t.createdAt) ?? '-',
    ]);
    return {
      json: { account_id: args[0], tokens: tokens.map(tokenJson) },
      text:
        rows.length === 0
          ? [`Account ${args[0]} has no compatible tokens.`]
          : columns([['TOKEN ID', 'DIALECT', 'TOKEN', 'KEY', 'MODE', 'IN FLIGHT', 'STATE', 'CREATED'], ...rows]),
    };
  },
};

const compatRevokeCommand: CommandSpec = {
  name: 'compat-revoke',
  summary: 'Revoke a compatible token for good.',
  args: ['TOKEN_ID'],
  async run({ args }, core) {
    const token = present((await core().revokeCompatToken({ tokenId: args[0] })).token, 'token');
    return { json: tokenJson(token), text: [`Revoked ${token.tokenId} (account ${token.accountId}).`] };
  },
};

const compatCallbackCommand: CommandSpec = {
  name: 'compat-callback',
  summary:
    "Set where an account's Adex clients are told each purchase's final status " +
    '(`{"status":"success"|"fail","request-id":...}`); an empty URL, or --clear, removes it.',
  args: ['ACCOUNT_ID'],
  optionalArgs: ['URL'],
  options: {
    dialect: { placeholder: 'adex', summary: 'The dialect whose callback shape is posted (adex, the default).' },
    clear: { placeholder: '', flag: true, summary: 'Remove the callback.' },
  },
  async run({ args, options }, core) {
    const dialect = checked(() => checkDialect('--dialect', options['dialect'] ?? 'adex'));
    const url = options['clear'] === undefined ? (args[1] ?? '') : '';
    if (url === '' && options['clear'] === undefined) throw new UsageError('give the URL, or --clear to remove it.');
    const set = await core().setCompatCallback({ accountId: args[0], dialect, url });
    const before = set.previousUrl === '' ? '' : ` (was ${set.previousUrl})`;
    return {
      json: {
        account_id: set.accountId,
        dialect: set.dialect,
        url: set.url || null,
        previous_url: set.previousUrl || null,
      },
      text: [
        set.url === ''
          ? `${args[0]} has no ${dialect} callback now${before}.`
          : `${args[0]}'s ${dialect} clients are told at ${set.url}${before}.`,
      ],
    };
  },
};

/** `plans alias set|list|clear`. */
const aliasCommand: CommandSpec = {
  name: 'alias',
  summary:
    "An account's plan ids in a dialect: `alias set ACCOUNT_ID DIALECT ALIAS_ID PLAN_ID`, `alias list ACCOUNT_ID " +
    '[DIALECT]`, `alias clear ACCOUNT_ID DIALECT [ALIAS_ID]` (without ALIAS_ID: all of them).',
  args: ['ACTION'],
  variadic: true,
  async run({ args }, core) {
    const [action, ...rest] = args;
    const arity = (min: number, max: number, usage: string) => {
      if (rest.length < min || rest.length > max) throw new UsageError(`usage: prepaid plans alias ${usage}`);
    };
    switch (action) {
      case 'set': {
        arity(4, 4, 'set ACCOUNT_ID DIALECT ALIAS_ID PLAN_ID');
        const [accountId, dialectWord, aliasId, planText] = rest as [string, string, string, string];
        const dialect = checked(() => checkDialect('DIALECT', dialectWord));
        if (!/^[1-9]\d{0,15}$/.test(planText))
          throw new UsageError(`PLAN_ID must be a plan id; got ${JSON.stringify(planText)}.`);
        const set = await core().setPlanAlias({ accountId, dialect, aliasId, planId: BigInt(planText) });
        const alias = present(set.alias, 'alias');
        const before = set.previousPlanId === 0n ? '' : ` (was plan ${set.previousPlanId})`;
        return {
          json: {
            ...aliasJson(alias),
            previous_plan_id: set.previousPlanId === 0n ? null : Number(set.previousPlanId),
          },
          text: [`${alias.dialect} plan ${alias.aliasId} of ${alias.accountId} buys plan ${alias.planId}${before}.`],
        };
      }
      case 'list': {
        arity(1, 2, 'list ACCOUNT_ID [DIALECT]');
        const dialect = rest[1] === undefined ? '' : checked(() => checkDialect('DIALECT', rest[1]!));
        const { aliases } = await core().listPlanAliases({ accountId: rest[0]!, dialect });
        return {
          json: { account_id: rest[0], dialect: dialect || null, aliases: aliases.map(aliasJson) },
          text:
            aliases.length === 0
              ? [`Account ${rest[0]} has no plan aliases.`]
              : columns([
                  ['DIALECT', 'ALIAS', 'PLAN', 'UPDATED'],
                  ...aliases.map((a) => [a.dialect, a.aliasId, String(a.planId), isoTime(a.updatedAt) ?? '-']),
                ]),
        };
      }
      case 'clear': {
        arity(2, 3, 'clear ACCOUNT_ID DIALECT [ALIAS_ID]');
        const dialect = checked(() => checkDialect('DIALECT', rest[1]!));
        const { removed } = await core().clearPlanAlias({ accountId: rest[0]!, dialect, aliasId: rest[2] ?? '' });
        return {
          json: { account_id: rest[0], dialect, alias_id: rest[2] ?? null, removed },
          text: [`Removed ${removed} ${dialect} plan alias${removed === 1 ? '' : 'es'} of ${rest[0]}.`],
        };
      }
      default:
        throw new UsageError(`plans alias takes set, list or clear; got ${JSON.stringify(action ?? '')}.`);
    }
  },
};

/** The compatible tokens' commands, joined into the keys group (cli/main.ts). */
export const compatKeysGroup: CommandGroup = {
  name: 'keys',
  summary: '',
  commands: [compatCommand, compatListCommand, compatRevokeCommand, compatCallbackCommand],
};

/** The plan aliases' command, joined into the plans group. */
export const compatPlansGroup: CommandGroup = { name: 'plans', summary: '', commands: [aliasCommand] };
