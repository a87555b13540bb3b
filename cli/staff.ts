/**
 * `prepaid staff ...` and `prepaid audit list`: the platform's staff, who work in the
 * operator's console (console/), and the audit log of every staff action and admin call.
 * There is no mail server: `staff invite` prints the one-time set-up link for the operator to
 * pass on; the core never logs it.
 */
import { AUDIT_PAGES } from '../core/domain/paging.js';
import { type AuditEntry, StaffAdminService, type StaffMember } from '../gen/prepaid/v1/console_pb.js';
import { type CommandGroup, UsageError } from './command.js';
import { columns, isoTime, present } from './format.js';

const ROLES = ['admin', 'support', 'finance'];

function memberJson(member: StaffMember): Record<string, unknown> {
  return {
    staff_id: member.staffId,
    email: member.email,
    role: member.role,
    disabled: member.disabled,
    set_up: member.setUp,
    created_at: isoTime(member.createdAt),
  };
}

function entryJson(entry: AuditEntry): Record<string, unknown> {
  return {
    id: entry.id,
    at: isoTime(entry.at),
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    before: entry.before || null,
    after: entry.after || null,
    address: entry.address || null,
    note: entry.note,
  };
}

const SETUP_LINK_WARNING =
  'warning: the link lets whoever opens it first set the password and the two-step code; send it to the new ' +
  'member only. It works once, for 72 hours.';

/** The staff command group. */
export const staffGroup: CommandGroup = {
  name: 'staff',
  summary: "The platform's staff, who sign in to the operator's console: invite, list, disable.",
  commands: [
    {
      name: 'invite',
      summary: 'Invite a staff member; prints the one-time set-up link (password and two-step code).',
      args: [],
      options: {
        email: { placeholder: 'EMAIL', summary: "The member's email; they sign in with it.", required: true },
        role: { placeholder: 'ROLE', summary: 'admin, support or finance.', required: true },
      },
      async run({ options }, _core, clients) {
        const role = (options['role'] ?? '').toLowerCase();
        if (!ROLES.includes(role))
          throw new UsageError(`--role must be admin, support or finance; got ${JSON.stringify(options['role'])}.`);
        const answer = await clients(StaffAdminService).inviteStaff({ email: options['email'], role });
        const member = present(answer.member, 'member');
        if (answer.mailed)
          // A finance or admin link went by mail to the invitee alone (SMTP is configured on the core).
          return {
            json: { ...memberJson(member), setup_url: '', mailed: true },
            text: [`Invited ${member.email} as ${member.role}; their set-up link was mailed to them, and only them.`],
          };
        return {
          json: { ...memberJson(member), setup_url: answer.setupUrl, mailed: false },
          text: [`Invited ${member.email} as ${member.role}.`, 'Set-up link:', answer.setupUrl],
          warnings: [SETUP_LINK_WARNING],
        };
      },
    },
    {
      name: 'list',
      summary: 'List the staff members, oldest first.',
      args: [],
      async run(_input, _core, clients) {
        const { members } = await clients(StaffAdminService).listStaff({});
        const rows = members.map((m) => [
          m.email,
          m.role,
          m.disabled ? 'disabled' : m.setUp ? 'active' : 'invited',
          isoTime(m.createdAt) ?? '-',
        ]);
        return {
          json: { members: members.map(memberJson) },
          text: members.length === 0 ? ['No staff members.'] : columns([['EMAIL', 'ROLE', 'STATE', 'SINCE'], ...rows]),
        };
      },
    },
    {
      name: 'disable',
      summary: 'Disable a staff member and end their console sessions.',
      args: ['EMAIL'],
      async run({ args }, _core, clients) {
        const member = present((await clients(StaffAdminService).disableStaff({ email: args[0] })).member, 'member');
        return { json: memberJson(member), text: [`Disabled ${member.email}; their sessions are ended.`] };
      },
    },
  ],
};

/** The audit command group. */
export const auditGroup: CommandGroup = {
  name: 'audit',
  summary: 'The audit log: every staff action and every admin call that changed something.',
  commands: [
    {
      name: 'list',
      summary: 'List audit rows, newest first, filtered.',
      args: [],
      options: {
        actor: { placeholder: 'ACTOR', summary: 'Only this actor: cli, system or staff:<email>.' },
        action: {
          placeholder: 'ACTION',
          summary: 'An action (proposal.approve) or an area ending in a dot (proposal.).',
        },
        target: { placeholder: 'TARGET', summary: 'Only rows about this account, reference, proposal or email.' },
        before: { placeholder: 'ID', summary: 'Only rows older than this id (the next page).' },
        limit: {
          placeholder: 'N',
          summary: `Rows to show, 1 to ${AUDIT_PAGES.maxSize}; default ${AUDIT_PAGES.defaultSize}.`,
        },
      },
      async run({ options }, _core, clients) {
        const limit = Number(options['limit'] ?? AUDIT_PAGES.defaultSize);
        if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGES.maxSize)
          throw new UsageError(`--limit must be a whole number from 1 to ${AUDIT_PAGES.maxSize}.`);
        const { entries } = await clients(StaffAdminService).listAudit({
          filter: {
            actor: options['actor'] ?? '',
            action: options['action'] ?? '',
            target: options['target'] ?? '',
            beforeId: options['before'] ?? '',
            limit,
          },
        });
        const rows = entries.map((e) => [isoTime(e.at) ?? '-', e.actor, e.action, e.target || '-', e.note || '-']);
        return {
          json: { entries: entries.map(entryJson) },
          text:
            entries.length === 0
              ? ['No audit rows match.']
              : columns([['AT', 'ACTOR', 'ACTION', 'TARGET', 'NOTE'], ...rows]),
        };
      },
    },
  ],
};
