/**
 * The audit of the admin token's calls: every call of an admin service that changes something
 * (anything but a List, Get or Check) appends a row with actor `cli` once it succeeded: the
 * RPC, what it was done to, and the request's few plain fields (never a secret: admin requests
 * carry none but these are named one by one anyway).
 */
import type { GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { type AuditTrail, CLI_ACTOR } from '../staff/audit.js';
import type { Handlers } from './grpc.js';

/** Reads: nothing changes, nothing is audited. */
const READ = /^(list|get|check)/;
/**
 * Calls whose use case writes its own, fuller row with the state before and after (the two-step
 * reset and the reset link in core/people, routes and float alerts in core/purchases/supply-admin.ts,
 * plan codes in core/catalog/plan-codes.ts, plan types, costs and price rules in core/catalog/changes.ts,
 * commissions in core/catalog/costs.ts, tiers and the SMS rate in core/catalog/service.ts, the books' own
 * entries in core/ledger/own-money.ts, in the entry's transaction): audited there,
 * not twice.
 */
const AUDITED_BY_USE_CASE = new Set([
  'upsertTier',
  'setSmsRate',
  'resetTwoStep',
  'issuePasswordReset',
  'setRoute',
  'clearRoute',
  'setUpstreamFloatAlert',
  'setPlanTypeEnabled',
  'setPlanCost',
  'setPriceRule',
  'setPlanCode',
  'clearPlanCode',
  'syncUpstreamPlans',
  'setCostRule',
  'fundUpstream',
  'recordSettlement',
]);
/**
 * Where a request names what it acts on, in order of preference (`value`: a blocked number,
 * the target of a block of the platform's list, which names no account).
 */
const TARGET_FIELDS = ['accountId', 'publicKey', 'userId', 'email', 'inflowId', 'reference', 'value'] as const;
/** The plain fields kept in the row's `after` (`value`: only the recipient controls' requests have one). */
const KEPT_FIELDS = ['amountKobo', 'memo', 'reference', 'tierId', 'role', 'url', 'mode', 'reason', 'value'] as const;

function kept(request: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of KEPT_FIELDS) {
    const value = request[field];
    if (value !== undefined && value !== '' && (typeof value !== 'object' || value === null)) out[field] = value;
  }
  return out;
}

export function auditedCalls(audit: AuditTrail) {
  return <S extends GenServiceMethods>(handlers: Handlers<S>): Handlers<S> => {
    const wrapped = {} as Handlers<S>;
    for (const name of Object.keys(handlers) as (keyof S & string)[]) {
      const handler = handlers[name];
      if (READ.test(name) || AUDITED_BY_USE_CASE.has(name)) {
        wrapped[name] = handler;
        continue;
      }
      wrapped[name] = (async (request, call) => {
        const response = await handler(request, call);
        const fields = request as unknown as Record<string, unknown>;
        // A creation names its target only in the answer (the new account's id).
        const created = (response as { account?: { accountId?: unknown } }).account?.accountId;
        const target = [...TARGET_FIELDS.map((field) => fields[field]), created].find(
          (v) => typeof v === 'string' && v !== '',
        );
        await audit(CLI_ACTOR, {
          action: `admin.${name}`,
          target: (target as string | undefined) ?? '',
          after: kept(fields),
        });
        return response;
      }) as Handlers<S>[typeof name];
    }
    return wrapped;
  };
}
