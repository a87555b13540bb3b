/** The plan codes of declared upstreams, part of prepaid.v1.AdminService: requests in, messages out. */
import type { AdminService as AdminServiceDesc } from '../../gen/prepaid/v1/admin_pb.js';
import type { PlanCodeRow, PlanCodesAdmin } from '../catalog/plan-codes.js';
import { invalid } from '../domain/errors.js';
import { timestampInit } from './convert.js';
import type { Handlers } from './grpc.js';

/** The AdminService methods this file implements. */
export type PlanCodeMethods = 'listPlanCodes' | 'setPlanCode' | 'clearPlanCode' | 'syncUpstreamPlans';

/** The admin token's actor in the audit log. */
const CLI_ACTOR = 'cli';

function planIdIn(value: bigint): number {
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id <= 0) throw invalid('plan_id', 'plan_id must be a plan id.');
  return id;
}

function planCodeMessage(row: PlanCodeRow) {
  return {
    planId: BigInt(row.planId),
    upstream: row.upstream,
    code: row.code,
    updatedAt: timestampInit(row.updatedAt),
    network: row.network,
    label: row.label,
  };
}

export function planCodeHandlers(
  planCodes: PlanCodesAdmin,
): Pick<Handlers<(typeof AdminServiceDesc)['method']>, PlanCodeMethods> {
  return {
    async listPlanCodes(req) {
      return { codes: (await planCodes.list(req.upstream)).map(planCodeMessage) };
    },
    async setPlanCode(req) {
      const { code, before } = await planCodes.set(planIdIn(req.planId), req.upstream, req.code, CLI_ACTOR);
      return { code: planCodeMessage(code), ...(before === null ? {} : { before }) };
    },
    async clearPlanCode(req) {
      const before = await planCodes.clear(planIdIn(req.planId), req.upstream, CLI_ACTOR);
      return before === null ? {} : { before };
    },
    async syncUpstreamPlans(req) {
      const report = await planCodes.sync(req.upstream, req.dryRun, CLI_ACTOR);
      return {
        upstream: report.upstream,
        dryRun: report.dryRun,
        matched: report.matched.map((m) => ({
          planId: BigInt(m.planId),
          network: m.network,
          label: m.label,
          code: m.code,
          upstreamName: m.upstreamName,
          costKobo: BigInt(m.costKobo),
          beforeCode: m.beforeCode ?? '',
          changed: m.changed,
        })),
        unmatched: report.unmatched.map((u) => ({
          network: u.network,
          code: u.code,
          upstreamName: u.upstreamName,
          reason: u.reason,
          candidatePlanIds: u.candidatePlanIds.map((id) => BigInt(id)),
        })),
        cleared: report.cleared.map(planCodeMessage),
        warnings: report.warnings,
      };
    },
  };
}
