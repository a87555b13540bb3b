/**
 * The audit of the admin token's calls: every call its service's table (`core/rpc/policies.ts`)
 * marks `row` appends a row with actor `cli` once it succeeded: the RPC, what it was done to,
 * and the request's few plain fields (never a secret: admin requests carry none but these are
 * named one by one anyway).
 */
import type { GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { type AuditTrail, CLI_ACTOR } from '../staff/audit.js';
import type { Handlers } from './grpc.js';
import type { AuditTable } from './policies.js';

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
  return <S extends GenServiceMethods>(policy: AuditTable<S>, handlers: Handlers<S>): Handlers<S> => {
    const wrapped = {} as Handlers<S>;
    for (const name of Object.keys(handlers) as (keyof S & string)[]) {
      const handler = handlers[name];
      if (policy[name] !== 'row') {
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
