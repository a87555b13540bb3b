/** `prepaid keys ...`: issue, list and revoke key pairs, set their scopes and caps, and lock them to client IPs. */
import { KEY_SCOPES } from '../core/domain/key-controls.js';
import { parseNaira } from '../core/domain/money.js';
import type { ApiKey } from '../gen/prepaid/v1/admin_pb.js';
import { type CommandGroup, type OptionSpec, UsageError } from './command.js';
import {
  columns,
  isoTime,
  kobo,
  MODE_OPTION,
  modeArgument,
  modeName,
  moneyFields,
  nairaText,
  present,
  SECRET_SHOWN_ONCE_WARNING,
} from './format.js';

/** A stored key as JSON; the core never sends secrets here. */
function keyJson(key: ApiKey): Record<string, unknown> {
  return {
    public_key: key.publicKey,
    account_id: key.accountId,
    mode: modeName(key.mode),
    allowed_ips: [...key.allowedIps],
    revoked: key.revoked,
    created_at: isoTime(key.createdAt),
    scopes: [...(key.limits?.scopes ?? [])],
    ...moneyFields('cap_per_purchase', key.limits?.capPerPurchaseKobo ?? 0n),
    ...moneyFields('cap_per_day', key.limits?.capPerDayKobo ?? 0n),
    expires_at: isoTime(key.expiresAt) ?? null,
    frozen_at: isoTime(key.frozenAt) ?? null,
    frozen_reason: key.frozenAt === undefined ? null : key.frozenReason,
  };
}

/** A listed key as JSON: with its last use (null if never, or not written yet) and today's spend. */
function listedKeyJson(key: ApiKey): Record<string, unknown> {
  return {
    ...keyJson(key),
    last_used_at: isoTime(key.lastUsedAt) ?? null,
    ...moneyFields('spent_today', key.spentTodayKobo),
  };
}

/** A cap for text output: "none" for 0. */
function capText(value: bigint | undefined): string {
  return value === undefined || value === 0n ? 'none' : nairaText(kobo(value));
}

function limitsText(key: ApiKey): string {
  const scopes = (key.limits?.scopes ?? []).join(',') || 'all';
  return `scopes ${scopes}; per purchase ${capText(key.limits?.capPerPurchaseKobo)}; per day ${capText(key.limits?.capPerDayKobo)}`;
}

/** A cap option in Naira: 0 (none) or a positive amount with at most two decimals. */
function capOption(name: string, text: string | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  const parsed = parseNaira(text);
  if (!parsed.ok) throw new UsageError(`${name} ${parsed.reason}; got ${JSON.stringify(text)}.`);
  return BigInt(parsed.kobo);
}

const LIMIT_OPTIONS: Record<string, OptionSpec> = {
  scopes: {
    placeholder: 'SCOPES',
    summary: `Comma-separated scopes the key may use (all, the default; or any of ${KEY_SCOPES.filter((s) => s !== 'all').join(', ')}).`,
  },
  'cap-per-purchase': { placeholder: 'NAIRA', summary: 'The most one purchase may charge; 0: no cap.' },
  'cap-per-day': {
    placeholder: 'NAIRA',
    summary: "The most the key's purchases may charge in one Africa/Lagos day, refunds given back; 0: no cap.",
  },
};

function lockText(key: ApiKey): string {
  return key.allowedIps.length === 0 ? 'any IP' : key.allowedIps.join(', ');
}

/** The keys command group. */
export const keysGroup: CommandGroup = {
  name: 'keys',
  summary: 'API key pairs of accounts on a tier with API access.',
  commands: [
    {
      name: 'create',
      summary:
        'Issue a new key pair for an account on a tier with API access (--mode test: a pk_test_/sk_test_ ' +
        'pair); the secret is shown once.',
      args: ['ACCOUNT_ID'],
      options: { mode: MODE_OPTION, ...LIMIT_OPTIONS },
      async run({ args, options }, core) {
        const limits = {
          scopes: (options['scopes'] ?? '').split(',').filter((s) => s.trim() !== ''),
          capPerPurchaseKobo: capOption('--cap-per-purchase', options['cap-per-purchase']) ?? 0n,
          capPerDayKobo: capOption('--cap-per-day', options['cap-per-day']) ?? 0n,
        };
        const key = present(
          (await core().createApiKey({ accountId: args[0], mode: modeArgument(options['mode']), limits })).issuedKey,
          'issued_key',
        );
        const mode = modeName(key.mode);
        return {
          json: { account_id: args[0], public_key: key.publicKey, secret_key: key.secretKey, mode },
          text: [
            `Issued a ${mode} key pair for ${args[0]}.`,
            `Public key: ${key.publicKey}`,
            `Secret key: ${key.secretKey}`,
          ],
          warnings: [SECRET_SHOWN_ONCE_WARNING],
        };
      },
    },
    {
      name: 'list',
      summary:
        "List an account's key pairs (newest first), without secrets, with when each last authenticated a request.",
      args: ['ACCOUNT_ID'],
      async run({ args }, core) {
        const { keys } = await core().listApiKeys({ accountId: args[0] });
        const rows = keys.map((k) => [
          k.publicKey,
          modeName(k.mode),
          k.revoked ? 'revoked' : k.frozenAt !== undefined ? 'frozen' : 'active',
          lockText(k),
          (k.limits?.scopes ?? []).join(',') || 'all',
          capText(k.limits?.capPerPurchaseKobo),
          capText(k.limits?.capPerDayKobo),
          nairaText(kobo(k.spentTodayKobo)),
          isoTime(k.createdAt) ?? '-',
          isoTime(k.lastUsedAt) ?? 'never',
        ]);
        return {
          json: { account_id: args[0], keys: keys.map(listedKeyJson) },
          text:
            keys.length === 0
              ? [`Account ${args[0]} has no keys.`]
              : columns([
                  [
                    'PUBLIC KEY',
                    'MODE',
                    'STATE',
                    'ALLOWED IPS',
                    'SCOPES',
                    'PER PURCHASE',
                    'PER DAY',
                    'SPENT TODAY',
                    'CREATED',
                    'LAST USED',
                  ],
                  ...rows,
                ]),
        };
      },
    },
    {
      name: 'revoke',
      summary: 'Revoke a key pair for good.',
      args: ['PUBLIC_KEY'],
      async run({ args }, core) {
        const key = present((await core().revokeApiKey({ publicKey: args[0] })).key, 'key');
        return { json: keyJson(key), text: [`Revoked ${key.publicKey} (account ${key.accountId}).`] };
      },
    },
    {
      name: 'roll',
      summary:
        'Issue a new pair in place of PUBLIC_KEY (same mode, IP lock, scopes and caps; the secret is shown once) ' +
        'and keep the old one working for --grace-hours (default 24, 0: ended at once).',
      args: ['PUBLIC_KEY'],
      options: { 'grace-hours': { placeholder: 'N', summary: 'Hours the old pair keeps working, 0 to 168.' } },
      async run({ args, options }, core) {
        const text = options['grace-hours'];
        if (text !== undefined && !/^\d{1,3}$/.test(text))
          throw new UsageError(`--grace-hours must be a whole number of hours; got ${JSON.stringify(text)}.`);
        const rolled = await core().rollApiKey({
          publicKey: args[0],
          ...(text === undefined ? {} : { graceHours: Number(text) }),
        });
        const key = present(rolled.issuedKey, 'issued_key');
        const old = present(rolled.oldKey, 'old_key');
        const until = isoTime(old.expiresAt) ?? 'now';
        return {
          json: {
            public_key: key.publicKey,
            secret_key: key.secretKey,
            mode: modeName(key.mode),
            old_key: keyJson(old),
          },
          text: [
            `Rolled ${old.publicKey}: it works until ${until}.`,
            `Public key: ${key.publicKey}`,
            `Secret key: ${key.secretKey}`,
          ],
          warnings: [SECRET_SHOWN_ONCE_WARNING],
        };
      },
    },
    {
      name: 'limits',
      summary:
        'Change what a key pair may do: its scopes and caps (each option given replaces that limit; the rest stay).',
      args: ['PUBLIC_KEY'],
      options: LIMIT_OPTIONS,
      async run({ args, options }, core) {
        const capPerPurchaseKobo = capOption('--cap-per-purchase', options['cap-per-purchase']);
        const capPerDayKobo = capOption('--cap-per-day', options['cap-per-day']);
        const request = {
          publicKey: args[0],
          ...(options['scopes'] === undefined ? {} : { scopes: options['scopes'] }),
          ...(capPerPurchaseKobo === undefined ? {} : { capPerPurchaseKobo }),
          ...(capPerDayKobo === undefined ? {} : { capPerDayKobo }),
        };
        const key = present((await core().setApiKeyLimits(request)).key, 'key');
        return { json: keyJson(key), text: [`${key.publicKey}: ${limitsText(key)}.`] };
      },
    },
    {
      name: 'freeze',
      summary:
        'Freeze a key pair by hand: every call with it is 403 KEY_FROZEN until it is unfrozen; the owners are ' +
        'mailed and key.frozen is sent.',
      args: ['PUBLIC_KEY'],
      options: {
        reason: { placeholder: 'TEXT', summary: 'Why (1 to 200 characters); the owners see it.', required: true },
      },
      async run({ args, options }, core) {
        const key = present(
          (await core().freezeApiKey({ publicKey: args[0], reason: options['reason'] ?? '' })).key,
          'key',
        );
        return {
          json: keyJson(key),
          text: [`${key.publicKey} is frozen since ${isoTime(key.frozenAt)}: ${key.frozenReason}.`],
        };
      },
    },
    {
      name: 'unfreeze',
      summary: 'Unfreeze a key pair frozen by the velocity brake or by hand; key.unfrozen is sent.',
      args: ['PUBLIC_KEY'],
      async run({ args }, core) {
        const key = present((await core().unfreezeApiKey({ publicKey: args[0] })).key, 'key');
        return { json: keyJson(key), text: [`${key.publicKey} is no longer frozen.`] };
      },
    },
    {
      name: 'lock-ip',
      summary: 'Lock a key to one or more client IPs (IPv4 or IPv6); replaces any earlier list.',
      args: ['PUBLIC_KEY', 'IP'],
      variadic: true,
      async run({ args }, core) {
        const [publicKey, ...ips] = args;
        const key = present((await core().setApiKeyIpLock({ publicKey, allowedIps: ips })).key, 'key');
        return { json: keyJson(key), text: [`${key.publicKey} now only works from ${lockText(key)}.`] };
      },
    },
    {
      name: 'unlock-ip',
      summary: 'Remove the IP lock of a key, so that it works from any IP.',
      args: ['PUBLIC_KEY'],
      async run({ args }, core) {
        const key = present((await core().setApiKeyIpLock({ publicKey: args[0], allowedIps: [] })).key, 'key');
        return { json: keyJson(key), text: [`${key.publicKey} works from any IP again.`] };
      },
    },
  ],
};
