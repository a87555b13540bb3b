/**
 * `prepaid users ...`: invite people to an account's developer area, list them, disable
 * them, reset a password or two-step sign-in. `invite` and `reset-password` print the link for
 * the operator to pass on (the core also mails it when SMTP_URL is set). A link is printed
 * here only, never logged by the core.
 */
import { type User, UserAdminService, UserRole } from '../gen/prepaid/v1/holder_pb.js';
import { type CommandGroup, UsageError } from './command.js';
import { columns, isoTime, present } from './format.js';

const ROLES: Readonly<Record<string, UserRole>> = { owner: UserRole.OWNER, viewer: UserRole.VIEWER };

function roleName(role: UserRole): string {
  return role === UserRole.OWNER ? 'owner' : role === UserRole.VIEWER ? 'viewer' : 'unknown';
}

function userJson(user: User): Record<string, unknown> {
  return {
    user_id: user.userId,
    account_id: user.accountId,
    email: user.email,
    role: roleName(user.role),
    disabled: user.disabled,
    totp_enabled: user.totpEnabled,
    created_at: isoTime(user.createdAt),
  };
}

const INVITATION_LINK_WARNING =
  'warning: the link lets whoever opens it first set a password; send it to the invitee only. It works once, ' +
  'for 72 hours.';

const RESET_LINK_WARNING =
  'warning: the link lets whoever opens it first set the password; send it to that person only. It works once, ' +
  'for one hour.';

/** The users command group. */
export const usersGroup: CommandGroup = {
  name: 'users',
  summary: "People who sign in to an account's developer area (the dashboard).",
  commands: [
    {
      name: 'invite',
      summary: 'Invite a person to an account; prints the invitation link (single use, valid 72 hours).',
      args: ['ACCOUNT_ID'],
      options: {
        email: { placeholder: 'EMAIL', summary: "The invitee's email; they sign in with it.", required: true },
        role: { placeholder: 'ROLE', summary: 'owner (everything, the default) or viewer (read only).' },
      },
      async run({ args, options }, _core, clients) {
        const roleText = (options['role'] ?? 'owner').toLowerCase();
        const role = ROLES[roleText];
        if (role === undefined)
          throw new UsageError(`--role must be owner or viewer; got ${JSON.stringify(options['role'])}.`);
        const { invitation } = await clients(UserAdminService).inviteUser({
          accountId: args[0],
          email: options['email'],
          role,
        });
        const made = present(invitation, 'invitation');
        return {
          json: {
            account_id: made.accountId,
            email: made.email,
            role: roleName(made.role),
            invite_url: made.inviteUrl,
            expires_at: isoTime(made.expiresAt),
          },
          text: [
            `Invited ${made.email} to ${made.accountId} as ${roleName(made.role)}.`,
            `Invitation link (valid until ${isoTime(made.expiresAt)}):`,
            made.inviteUrl,
          ],
          warnings: [INVITATION_LINK_WARNING],
        };
      },
    },
    {
      name: 'list',
      summary: "List an account's users (oldest first).",
      args: ['ACCOUNT_ID'],
      async run({ args }, _core, clients) {
        const { users } = await clients(UserAdminService).listUsers({ accountId: args[0] });
        const rows = users.map((u) => [
          u.userId,
          u.email,
          roleName(u.role),
          u.disabled ? 'disabled' : 'active',
          u.totpEnabled ? 'on' : 'off',
          isoTime(u.createdAt) ?? '-',
        ]);
        return {
          json: { account_id: args[0], users: users.map(userJson) },
          text:
            users.length === 0
              ? [`Account ${args[0]} has no users yet; invite one with prepaid users invite.`]
              : columns([['USER', 'EMAIL', 'ROLE', 'STATE', 'TOTP', 'CREATED'], ...rows]),
        };
      },
    },
    {
      name: 'disable',
      summary: 'Disable a user for good and end their sessions.',
      args: ['USER_ID'],
      async run({ args }, _core, clients) {
        const user = present((await clients(UserAdminService).disableUser({ userId: args[0] })).user, 'user');
        return { json: userJson(user), text: [`Disabled ${user.email} (${user.userId}); their sessions have ended.`] };
      },
    },
    {
      name: 'reset-password',
      summary:
        'Make a password reset link for a user (single use, valid one hour); prints it, and the core mails it ' +
        'to them when SMTP_URL is set.',
      args: ['USER_ID'],
      async run({ args }, _core, clients) {
        const answer = await clients(UserAdminService).issuePasswordReset({ userId: args[0] });
        const user = present(answer.user, 'user');
        return {
          json: {
            ...userJson(user),
            reset_url: answer.resetUrl,
            expires_at: isoTime(answer.expiresAt),
            mailed: answer.mailed,
          },
          text: [
            `Password reset link for ${user.email} (${user.userId}), valid until ${isoTime(answer.expiresAt)}:`,
            answer.resetUrl,
            answer.mailed
              ? 'It was also mailed to them.'
              : 'No mail server is set up (SMTP_URL): pass the link on yourself.',
          ],
          warnings: [RESET_LINK_WARNING],
        };
      },
    },
    {
      name: 'reset-2fa',
      summary:
        "Turn a user's two-step sign-in off (recovery codes too) and end their sessions, for someone who lost " +
        'their phone and codes.',
      args: ['USER_ID'],
      async run({ args }, _core, clients) {
        const user = present((await clients(UserAdminService).resetTwoStep({ userId: args[0] })).user, 'user');
        return {
          json: userJson(user),
          text: [
            `Two-step sign-in is off for ${user.email} (${user.userId}); their sessions have ended, the reset ` +
              `is in the audit log, and they are told by mail when SMTP_URL is set.`,
            'Make sure the request came from them; they should set two-step sign-in up again after signing in.',
          ],
        };
      },
    },
  ],
};
