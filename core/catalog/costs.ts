/**
 * What an upstream charges for airtime, electricity and cable: these are sold at face value
 * less a tier's discount, and bought at face value less the upstream's commission (VTpass
 * tells its commission per service). The operator sets the commission per product, per
 * network, disco or cable provider where they differ, per upstream; the margin guard
 * (core/purchases/service.ts) refuses a sale whose price is below that cost. Every change is
 * in the audit log (`prices.commission`).
 */
import { keptFresh } from '../../runtime/kept-fresh.js';
import { type FieldViolation, throwIfViolations } from '../domain/errors.js';
import { FACE_VALUE_PRODUCTS, MAX_COMMISSION_BASIS_POINTS } from '../domain/pricing.js';
import { isOneOf } from '../domain/products.js';
import type { CostRule } from '../domain/records.js';
import type { Store } from '../store/port.js';
import type { ChangeAuthor } from './changes.js';
import { faceValueService } from './price-rules.js';

/**
 * How long a core keeps the rules it read: a change made on another core is in force here
 * within this time, one made on this core at once. The purchase path then reads no rule
 * from the store for most sales.
 */
const COST_RULES_REFRESH_MS = 5_000;
/** Upstream names as the providers give them ("vtpass", a named instance). */
const UPSTREAM_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** What the operator asks: a rule for a product (and service) at an upstream, or its removal. */
export interface CostRuleRequest {
  product: string;
  /** A network (t2 is 9mobile), a disco or a cable provider; '' for the whole product. */
  service: string;
  upstream: string;
  /** null removes the rule. */
  commissionBasisPoints: number | null;
}

export function createCostRules(deps: {
  store: Pick<Store, 'catalog' | 'auditLog'>;
  clock: () => Date;
  log: (event: string, fields: Record<string, unknown>) => void;
}) {
  const { catalog } = deps.store;
  const rules = keptFresh<readonly CostRule[]>({
    read: () => catalog.listCostRules(),
    freshMs: COST_RULES_REFRESH_MS,
    clock: deps.clock,
  });

  return {
    /** The rules in force, read again from the store at most every few seconds. */
    current: (): Promise<readonly CostRule[]> => rules.get(),

    /** Every rule, by product, service and upstream. */
    list: () => catalog.listCostRules(),

    /** Sets (or removes) one rule; audited, and in force on this core at once. */
    async set(request: CostRuleRequest, author: ChangeAuthor): Promise<{ rule: CostRule | null; changed: boolean }> {
      const violations: FieldViolation[] = [];
      let service = request.service;
      if (!isOneOf(FACE_VALUE_PRODUCTS, request.product)) {
        violations.push({
          field: 'product',
          description: `product must be one of ${FACE_VALUE_PRODUCTS.join(', ')} (data plans have costs of their own).`,
        });
      } else {
        service = faceValueService(request.product, service, 'service', violations) ?? service;
      }
      if (!UPSTREAM_NAME.test(request.upstream))
        violations.push({ field: 'upstream', description: 'upstream must be an upstream name such as "vtpass".' });
      const bp = request.commissionBasisPoints;
      if (bp !== null && (!Number.isSafeInteger(bp) || bp < 0 || bp > MAX_COMMISSION_BASIS_POINTS))
        violations.push({
          field: 'commission_basis_points',
          description:
            `the commission must be 0 to ${MAX_COMMISSION_BASIS_POINTS / 100} percent, ` +
            'in hundredths of a percent.',
        });
      throwIfViolations(violations);
      const key = { product: request.product as CostRule['product'], service, upstream: request.upstream };
      const before =
        (await catalog.listCostRules()).find(
          (r) => r.product === key.product && r.service === key.service && r.upstream === key.upstream,
        ) ?? null;
      const after: CostRule | null = bp === null ? null : { ...key, commissionBasisPoints: bp };
      if ((before?.commissionBasisPoints ?? null) === bp) return { rule: after, changed: false };
      await catalog.setCostRule(key, bp);
      await deps.store.auditLog.append({
        at: deps.clock(),
        actor: author.actor,
        action: 'prices.commission',
        target: `${key.product}/${key.service || '*'}/${key.upstream}`,
        before: before === null ? null : JSON.stringify(before),
        after: after === null ? null : JSON.stringify(after),
        address: author.address ?? null,
        note: author.note,
      });
      deps.log('catalog.cost_rule_changed', {
        product: key.product,
        service: key.service,
        upstream: key.upstream,
        commission_basis_points: bp,
        actor: author.actor,
      });
      await rules.reload();
      return { rule: after, changed: true };
    },
  };
}

/** The cost rules use case, as the RPC layer and the purchase service see it. */
export type CostRules = ReturnType<typeof createCostRules>;
