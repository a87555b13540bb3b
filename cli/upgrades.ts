/**
 * `prepaid upgrades ...`: account holders' requests for API access, made from the developer
 * area's API keys page. Approving moves the account to an API tier; its first live key pair
 * is then shown to the account's owner in the developer area, once, and never printed here.
 */
import { ApiAccessAdminService, type ApiAccessRequest, ApiAccessStatus } from '../gen/prepaid/v1/access_pb.js';
import type { CommandGroup } from './command.js';
import { columns, isoTime, present } from './format.js';

const STATUS_NAMES: Readonly<Record<ApiAccessStatus, string>> = {
  [ApiAccessStatus.UNSPECIFIED]: 'unknown',
  [ApiAccessStatus.PENDING]: 'pending',
  [ApiAccessStatus.APPROVED]: 'approved',
  [ApiAccessStatus.REFUSED]: 'refused',
};

function requestJson(request: ApiAccessRequest): Record<string, unknown> {
  return {
    account_id: request.accountId,
    status: STATUS_NAMES[request.status],
    requested_by: request.requestedBy,
    note: request.note,
    created_at: isoTime(request.createdAt),
    decided_at: isoTime(request.decidedAt),
  };
}

/** The upgrades command group. */
export const upgradesGroup: CommandGroup = {
  name: 'upgrades',
  summary: 'Requests for API access from the developer area: list, approve, refuse.',
  commands: [
    {
      name: 'list',
      summary: 'List the pending requests, oldest first.',
      args: [],
      async run(_input, _core, clients) {
        const { requests } = await clients(ApiAccessAdminService).listApiAccessRequests({});
        const rows = requests.map((r) => [
          r.accountId,
          r.requestedBy,
          isoTime(r.createdAt) ?? '-',
          r.note.replace(/\s+/g, ' ').slice(0, 60) || '-',
        ]);
        return {
          json: { requests: requests.map(requestJson) },
          text:
            requests.length === 0
              ? ['No pending requests for API access.']
              : columns([['ACCOUNT', 'ASKED BY', 'ASKED AT', 'NOTE'], ...rows]),
        };
      },
    },
    {
      name: 'approve',
      summary:
        "Approve an account's request: moves it to an API tier; its owner sees the first key pair once in the " +
        'developer area.',
      args: ['ACCOUNT_ID'],
      options: { tier: { placeholder: 'TIER', summary: 'The API tier to move the account to; default the api tier.' } },
      async run({ args, options }, _core, clients) {
        const { request } = await clients(ApiAccessAdminService).approveApiAccess({
          accountId: args[0],
          tierId: options['tier'] ?? '',
        });
        const approved = present(request, 'request');
        return {
          json: requestJson(approved),
          text: [
            `Approved API access for ${approved.accountId}.`,
            'Its first key pair is shown to an owner of the account the next time they open the developer ' +
              'area; it is not printed here.',
          ],
        };
      },
    },
    {
      name: 'refuse',
      summary: "Refuse an account's request; the account may ask again.",
      args: ['ACCOUNT_ID'],
      async run({ args }, _core, clients) {
        const refused = present(
          (await clients(ApiAccessAdminService).refuseApiAccess({ accountId: args[0] })).request,
          'request',
        );
        return { json: requestJson(refused), text: [`Refused the request for API access of ${refused.accountId}.`] };
      },
    },
  ],
};
