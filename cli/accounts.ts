/** `prepaid accounts ...`: create an account, show one, move one to another tier. */
import type { Account, IssuedKey } from '../gen/prepaid/v1/admin_pb.js';
import { StaffAdminService } from '../gen/prepaid/v1/console_pb.js';
import type { CommandGroup, CommandResult } from './command.js';
import { isoTime, kobo, moneyFields, nairaText, present, SECRET_SHOWN_ONCE_WARNING } from './format.js';

/** The account fields every accounts command prints. */
function accountJson(account: Account): Record<string, unknown> {
  return {
    account_id: account.accountId,
    name: account.name,
    tier: account.tierId,
    ...moneyFields('balance', account.balanceKobo),
    ...moneyFields('test_balance', account.testBalanceKobo),
    created_at: isoTime(account.createdAt),
    suspended: account.suspension !== undefined,
    ...(account.suspension
      ? {
          suspended_at: isoTime(account.suspension.suspendedAt),
          suspended_by: account.suspension.suspendedBy,
          suspension_note: account.suspension.note,
        }
      : {}),
  };
}

/** Adds a newly issued key pair to a result, with the shown-once warning. */
function withIssuedKey(result: CommandResult, key: IssuedKey | undefined): CommandResult {
  if (!key) return result;
  return {
    json: { ...result.json, public_key: key.publicKey, secret_key: key.secretKey },
    text: [...result.text, `Public key: ${key.publicKey}`, `Secret key: ${key.secretKey}`],
    warnings: [SECRET_SHOWN_ONCE_WARNING],
  };
}

/** The accounts command group. */
export const accountsGroup: CommandGroup = {
  name: 'accounts',
  summary: 'Account holders and their tiers.',
  commands: [
    {
      name: 'create',
      summary: 'Create an account; on a tier with API access its first key pair is issued and shown once.',
      args: [],
      options: {
        name: { placeholder: 'NAME', summary: 'Display name, 1 to 100 characters.', required: true },
        tier: { placeholder: 'TIER', summary: 'Tier id (see `prepaid tiers list`); default: the default tier.' },
      },
      async run({ options }, core) {
        const response = await core().createAccount({ name: options['name'] ?? '', tierId: options['tier'] ?? '' });
        const account = present(response.account, 'account');
        return withIssuedKey(
          {
            json: accountJson(account),
            text: [`Created account ${account.accountId} (${account.name}) on tier ${account.tierId}.`],
          },
          response.issuedKey,
        );
      },
    },
    {
      name: 'get',
      summary: 'Show an account: name, tier, wallet balance and test wallet balance.',
      args: ['ACCOUNT_ID'],
      async run({ args }, core) {
        const account = present((await core().getAccount({ accountId: args[0] })).account, 'account');
        return {
          json: accountJson(account),
          text: [
            `Account:  ${account.accountId}`,
            `Name:     ${account.name}`,
            `Tier:     ${account.tierId}`,
            `Balance:  ${nairaText(kobo(account.balanceKobo))}`,
            `Test balance: ${nairaText(kobo(account.testBalanceKobo))} (test money, for test keys only)`,
            `Created:  ${isoTime(account.createdAt) ?? '-'}`,
            ...(account.suspension
              ? [
                  `SUSPENDED since ${isoTime(account.suspension.suspendedAt) ?? '-'} by ` +
                    `${account.suspension.suspendedBy}: ${account.suspension.note}`,
                ]
              : []),
          ],
        };
      },
    },
    {
      name: 'set-tier',
      summary: 'Move an account to another tier; moving to the API tier issues its first key pair, shown once.',
      args: ['ACCOUNT_ID', 'TIER'],
      async run({ args }, core) {
        const response = await core().setAccountTier({ accountId: args[0], tierId: args[1] });
        const account = present(response.account, 'account');
        return withIssuedKey(
          { json: accountJson(account), text: [`Account ${account.accountId} is now on tier ${account.tierId}.`] },
          response.issuedKey,
        );
      },
    },
    {
      name: 'suspend',
      summary: 'Suspend an account: its keys answer 401 on every action and its developer area is read-only (audited).',
      args: ['ACCOUNT_ID'],
      options: {
        reason: { placeholder: 'TEXT', summary: 'Why, for the record (1 to 500 characters).', required: true },
      },
      async run({ args, options }, _core, clients) {
        const { account } = await clients(StaffAdminService).suspendAccountByAdmin({
          accountId: args[0],
          note: options['reason'] ?? '',
        });
        const suspended = present(account, 'account');
        return {
          json: accountJson(suspended),
          text: [`Suspended account ${suspended.accountId} (${suspended.name}); its keys answer 401 from now on.`],
        };
      },
    },
    {
      name: 'resume',
      summary: 'Resume a suspended account: its keys and developer area work again (audited).',
      args: ['ACCOUNT_ID'],
      options: { reason: { placeholder: 'TEXT', summary: 'Why, for the record; default: "Resumed from the CLI".' } },
      async run({ args, options }, _core, clients) {
        const { account } = await clients(StaffAdminService).resumeAccountByAdmin({
          accountId: args[0],
          note: options['reason'] || 'Resumed from the CLI',
        });
        const resumed = present(account, 'account');
        return {
          json: accountJson(resumed),
          text: [`Resumed account ${resumed.accountId} (${resumed.name}).`],
        };
      },
    },
  ],
};
