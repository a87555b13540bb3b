/** `prepaid keys ...`: issue, list and revoke key pairs, and lock them to client IPs. */
import type { ApiKey } from '../gen/prepaid/v1/admin_pb.js';
import type { CommandGroup } from './command.js';
import { columns, isoTime, MODE_OPTION, modeArgument, modeName, present, SECRET_SHOWN_ONCE_WARNING } from './format.js';

/** A stored key as JSON; the core never sends secrets here. */
function keyJson(key: ApiKey): Record<string, unknown> {
  return {
    public_key: key.publicKey,
    account_id: key.accountId,
    mode: modeName(key.mode),
    allowed_ips: [...key.allowedIps],
    revoked: key.revoked,
    created_at: isoTime(key.createdAt),
  };
}

/** A listed key as JSON: with its last use (null if never, or not written yet). */
function listedKeyJson(key: ApiKey): Record<string, unknown> {
  return { ...keyJson(key), last_used_at: isoTime(key.lastUsedAt) ?? null };
}

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
      options: { mode: MODE_OPTION },
      async run({ args, options }, core) {
        const key = present(
          (await core().createApiKey({ accountId: args[0], mode: modeArgument(options['mode']) })).issuedKey,
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
          k.revoked ? 'revoked' : 'active',
          lockText(k),
          isoTime(k.createdAt) ?? '-',
          isoTime(k.lastUsedAt) ?? 'never',
        ]);
        return {
          json: { account_id: args[0], keys: keys.map(listedKeyJson) },
          text:
            keys.length === 0
              ? [`Account ${args[0]} has no keys.`]
              : columns([['PUBLIC KEY', 'MODE', 'STATE', 'ALLOWED IPS', 'CREATED', 'LAST USED'], ...rows]),
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
