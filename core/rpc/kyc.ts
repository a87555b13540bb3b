/**
 * Identity levels over gRPC (proto/prepaid/v1/kyc.proto): the developer area's view and request,
 * the operator's limits and decisions, the console's queue and decisions. No rule lives here:
 * core/accounts/levels.ts has them.
 */
import type { KycAdminService, KycConsoleService, KycService } from '../../gen/prepaid/v1/kyc_pb.js';
import type { Levels } from '../accounts/levels.js';
import { type HoldRecord, type LevelLimits, type LevelRequestRecord, maskedNumber } from '../domain/levels.js';
import type { PeopleService } from '../people/service.js';
import { CLI_ACTOR } from '../staff/audit.js';
import type { StaffRealm } from '../staff/realm.js';
import { timestampInit } from './convert.js';
import type { Handlers } from './grpc.js';
import { KYC_CONSOLE_POWERS } from './policies.js';
import { staffGuarded } from './staff-guard.js';

function limitsMessage(limits: LevelLimits) {
  const opt = (value: number | null) => (value === null ? undefined : BigInt(value));
  return {
    level: limits.level,
    maxBalanceKobo: opt(limits.maxBalanceKobo),
    maxInflowKobo: opt(limits.maxInflowKobo),
    maxDailySpendKobo: opt(limits.maxDailySpendKobo),
  };
}

function requestMessage(request: LevelRequestRecord) {
  return {
    requestId: request.requestId,
    accountId: request.accountId,
    level: request.level,
    kind: request.kind,
    maskedNumber: maskedNumber(request.kind, request.numberLast4),
    documentReference: request.documentReference,
    requestedBy: request.requestedBy,
    status: request.status,
    createdAt: timestampInit(request.createdAt),
    ...(request.decidedAt === null ? {} : { decidedAt: timestampInit(request.decidedAt) }),
    decidedBy: request.decidedBy ?? '',
    note: request.note,
  };
}

function heldMessage(hold: HoldRecord) {
  return {
    inflowId: hold.inflowId,
    accountId: hold.accountId,
    provider: hold.provider,
    amountKobo: BigInt(hold.amountKobo),
    status: hold.status,
    createdAt: timestampInit(hold.createdAt),
  };
}

/** A limit read from the wire: unset is no limit. */
const limitIn = (value: bigint | undefined) => (value === undefined ? null : Number(value));

async function queue(levels: Levels) {
  return { requests: (await levels.pending()).map(requestMessage), held: (await levels.held()).map(heldMessage) };
}

type Changed = Awaited<ReturnType<Levels['approve']>>;

function changeMessage(changed: Changed) {
  return {
    before: changed.before,
    level: changed.level.level,
    ...(changed.request === null ? {} : { request: requestMessage(changed.request) }),
    released: changed.released.map(heldMessage),
  };
}

export function kycHandlers(people: PeopleService, levels: Levels): Handlers<(typeof KycService)['method']> {
  return {
    async getLevel(req) {
      const context = await people.authenticate(req.sessionToken);
      const standing = await levels.standing(context.account.accountId);
      return {
        level: standing.level,
        inflowKobo: BigInt(standing.inflowKobo),
        limits: limitsMessage(standing.limits),
        ...(standing.nextLimits === null ? {} : { nextLimits: limitsMessage(standing.nextLimits) }),
        ...(standing.open === null ? {} : { open: requestMessage(standing.open) }),
        ...(standing.last === null ? {} : { last: requestMessage(standing.last) }),
        held: standing.held.map(heldMessage),
      };
    },
    async requestLevel(req) {
      const context = await people.authenticate(req.sessionToken);
      people.requireFormAccount(context, req.formAccountId);
      people.requireOwner(context);
      const filed = await levels.request(context.account.accountId, context.user.email, {
        kind: req.kind,
        number: req.number,
        documentReference: req.documentReference,
      });
      return { request: requestMessage(filed.request), opened: filed.opened };
    },
  };
}

export function kycAdminHandlers(levels: Levels): Handlers<(typeof KycAdminService)['method']> {
  return {
    async listLevels() {
      return { levels: (await levels.levels()).map(limitsMessage) };
    },
    async setLevelLimits(req) {
      const limits = req.limits;
      const set = await levels.setLimits(
        limits?.level ?? 0,
        {
          maxBalanceKobo: limitIn(limits?.maxBalanceKobo),
          maxInflowKobo: limitIn(limits?.maxInflowKobo),
          maxDailySpendKobo: limitIn(limits?.maxDailySpendKobo),
        },
        CLI_ACTOR,
      );
      return { limits: limitsMessage(set) };
    },
    listLevelRequests: () => queue(levels),
    async approveLevel(req) {
      return { change: changeMessage(await levels.approve(req.accountId, req.level, req.note, CLI_ACTOR)) };
    },
    async refuseLevel(req) {
      return { request: requestMessage(await levels.refuse(req.accountId, req.reason, CLI_ACTOR)) };
    },
  };
}

export function kycConsoleHandlers(
  realm: Pick<StaffRealm, 'require'>,
  levels: Levels,
): Handlers<(typeof KycConsoleService)['method']> {
  return staffGuarded(realm, KYC_CONSOLE_POWERS, {
    listLevelQueue: () => queue(levels),
    async approveLevelAsStaff(req, { who }) {
      return { change: changeMessage(await levels.approve(req.accountId, req.level, req.note, who)) };
    },
    async refuseLevelAsStaff(req, { who }) {
      return { request: requestMessage(await levels.refuse(req.accountId, req.reason, who)) };
    },
  });
}
