/**
 * prepaid.v1.ApiAccessService (the developer area, per session) and ApiAccessAdminService
 * (the operator). The handlers only translate; the rules are in core/people/upgrades.ts.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  type ApiAccessAdminService as AdminDesc,
  type ApiAccessRequestSchema,
  ApiAccessStatus,
  type ApiAccessService as HolderDesc,
} from '../../gen/prepaid/v1/access_pb.js';
import type { UpgradeRequestRecord } from '../domain/records.js';
import type { PeopleService } from '../people/service.js';
import type { Upgrades } from '../people/upgrades.js';
import { MODE_TO_PROTO } from './convert.js';
import type { Handlers } from './grpc.js';

const STATUS: Readonly<Record<UpgradeRequestRecord['status'], ApiAccessStatus>> = {
  pending: ApiAccessStatus.PENDING,
  approved: ApiAccessStatus.APPROVED,
  refused: ApiAccessStatus.REFUSED,
};

function requestMessage(record: UpgradeRequestRecord): MessageInitShape<typeof ApiAccessRequestSchema> {
  return {
    accountId: record.accountId,
    status: STATUS[record.status],
    requestedBy: record.requestedBy,
    note: record.note,
    createdAt: timestampFromDate(record.createdAt),
    ...(record.decidedAt ? { decidedAt: timestampFromDate(record.decidedAt) } : {}),
    keyIssued: record.keyIssuedAt !== null,
  };
}

export function apiAccessHandlers(people: PeopleService, upgrades: Upgrades): Handlers<(typeof HolderDesc)['method']> {
  const owner = async (token: string, formAccountId: string) => {
    const context = await people.authenticate(token);
    people.requireFormAccount(context, formAccountId);
    people.requireOwner(context);
    return context;
  };
  return {
    async requestApiAccess(req) {
      return {
        request: requestMessage(await upgrades.request(await owner(req.sessionToken, req.formAccountId), req.note)),
      };
    },
    async getApiAccessRequest(req) {
      const found = await upgrades.status(await people.authenticate(req.sessionToken));
      return found === null ? {} : { request: requestMessage(found) };
    },
    async claimFirstKey(req) {
      const context = await people.authenticate(req.sessionToken);
      people.requireFormAccount(context, req.formAccountId);
      people.requireOwnerRole(context);
      const issued = await upgrades.claimFirstKey(context);
      return issued === null
        ? {}
        : { issuedKey: { publicKey: issued.publicKey, secretKey: issued.secretKey, mode: MODE_TO_PROTO[issued.mode] } };
    },
  };
}

export function apiAccessAdminHandlers(upgrades: Upgrades): Handlers<(typeof AdminDesc)['method']> {
  return {
    async listApiAccessRequests() {
      return { requests: (await upgrades.listPending()).map(requestMessage) };
    },
    async approveApiAccess(req) {
      return { request: requestMessage(await upgrades.approve(req.accountId, req.tierId)) };
    },
    async refuseApiAccess(req) {
      return { request: requestMessage(await upgrades.refuse(req.accountId)) };
    },
  };
}
