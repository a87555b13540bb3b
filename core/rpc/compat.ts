/**
 * Compatible tokens and plan aliases (docs/compat.md) over gRPC: the gateway's token check
 * (AuthService), the operator's commands (AdminService) and the developer area's keys page
 * (HolderService, for the session's own account). Requests in, use case, messages out.
 */
import type { AdminService as AdminServiceDesc } from '../../gen/prepaid/v1/admin_pb.js';
import type { AuthService as AuthServiceDesc } from '../../gen/prepaid/v1/auth_pb.js';
import type { HolderService as HolderServiceDesc } from '../../gen/prepaid/v1/holder_pb.js';
import type { CompatService, VerifiedCompatToken } from '../accounts/compat.js';
import { invalid } from '../domain/errors.js';
import type { CompatTokenRecord, PlanAliasRecord } from '../domain/records.js';
import type { PeopleService } from '../people/service.js';
import { MODE_TO_PROTO, modeIn, timestampInit } from './convert.js';
import type { Handlers } from './grpc.js';
import { gates } from './holder.js';

/** The AdminService methods this file implements. */
export type CompatAdminMethods =
  | 'createCompatToken'
  | 'listCompatTokens'
  | 'revokeCompatToken'
  | 'setPlanAlias'
  | 'listPlanAliases'
  | 'clearPlanAlias'
  | 'setCompatCallback';
/** The HolderService methods this file implements. */
export type CompatHolderMethods = 'listCompatTokens' | 'createCompatToken' | 'revokeCompatToken';

function tokenMessage(record: CompatTokenRecord) {
  return {
    tokenId: record.tokenId,
    accountId: record.accountId,
    publicKey: record.publicKey,
    dialect: record.dialect,
    inFlight: record.inFlight,
    lastFour: record.lastFour,
    mode: MODE_TO_PROTO[record.mode],
    createdAt: timestampInit(record.createdAt),
    ...(record.revokedAt === undefined ? {} : { revokedAt: timestampInit(record.revokedAt) }),
  };
}

function aliasMessage(alias: PlanAliasRecord) {
  return {
    accountId: alias.accountId,
    dialect: alias.dialect,
    aliasId: alias.aliasId,
    planId: BigInt(alias.planId),
    updatedAt: timestampInit(alias.updatedAt),
  };
}

function planIdIn(value: bigint): number {
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id <= 0) throw invalid('plan_id', 'plan_id must be a plan id.');
  return id;
}

function verifiedMessage(verified: VerifiedCompatToken) {
  return {
    key: {
      accountId: verified.accountId,
      tierId: verified.tierId,
      mode: MODE_TO_PROTO[verified.mode],
      scopes: [...verified.scopes],
      spendCapped: verified.spendCapped,
    },
    publicKey: verified.publicKey,
    inFlight: verified.inFlight,
    planAliases: Object.fromEntries([...verified.planAliases].map(([alias, planId]) => [alias, BigInt(planId)])),
  };
}

/** AuthService.VerifyCompatToken. */
export function compatAuthHandlers(
  compat: CompatService,
): Pick<Handlers<(typeof AuthServiceDesc)['method']>, 'verifyCompatToken'> {
  return {
    async verifyCompatToken(req) {
      return verifiedMessage(await compat.verifyToken(req.dialect, req.token, req.clientIp));
    },
  };
}

/** The operator's token and alias commands (`prepaid keys compat`, `prepaid plans alias`). */
export function compatAdminHandlers(
  compat: CompatService,
): Pick<Handlers<(typeof AdminServiceDesc)['method']>, CompatAdminMethods> {
  return {
    async createCompatToken(req) {
      const { token, record } = await compat.createToken(req.publicKey, req.dialect, req.inFlight);
      return { token, record: tokenMessage(record) };
    },
    async listCompatTokens(req) {
      return { tokens: (await compat.listTokens(req.accountId)).map(tokenMessage) };
    },
    async revokeCompatToken(req) {
      return { token: tokenMessage(await compat.revokeToken(req.tokenId)) };
    },
    async setPlanAlias(req) {
      const { alias, previous } = await compat.setAlias(req.accountId, req.dialect, req.aliasId, planIdIn(req.planId));
      return { alias: aliasMessage(alias), previousPlanId: BigInt(previous?.planId ?? 0) };
    },
    async listPlanAliases(req) {
      return { aliases: (await compat.listAliases(req.accountId, req.dialect)).map(aliasMessage) };
    },
    async clearPlanAlias(req) {
      return { removed: await compat.clearAliases(req.accountId, req.dialect, req.aliasId) };
    },
    async setCompatCallback(req) {
      const { callback, previous } = await compat.setCallback(req.accountId, req.dialect, req.url);
      return {
        accountId: req.accountId,
        dialect: req.dialect,
        url: callback?.url ?? '',
        previousUrl: previous?.url ?? '',
      };
    },
  };
}

/** The keys page's tokens, for the session's own account: listed by anyone, made and revoked by an owner. */
export function compatHolderHandlers(
  people: PeopleService,
  compat: CompatService,
): Pick<Handlers<(typeof HolderServiceDesc)['method']>, CompatHolderMethods> {
  const { signedIn, owner } = gates(people);
  return {
    async listCompatTokens(req) {
      const context = await signedIn(req.sessionToken);
      const accountId = context.account.accountId;
      const tokens = await compat.listTokens(accountId, modeIn(req.mode));
      const aliases = await compat.listAliases(accountId, '');
      return { tokens: tokens.map(tokenMessage), aliases: aliases.map(aliasMessage) };
    },
    async createCompatToken(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      await people.requireFreshCode(context, req.totpCode);
      const made = await compat.createToken(req.publicKey, req.dialect, req.inFlight, context.account.accountId);
      return { token: made.token, record: tokenMessage(made.record) };
    },
    async revokeCompatToken(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      return { token: tokenMessage(await compat.revokeToken(req.tokenId, context.account.accountId)) };
    },
  };
}
