/**
 * The supply side: the upstreams this deployment buys from, as named instances,
 * each with the families it sells and its kind's failover rule. The purchase flow asks
 * `candidates` for the ordered upstreams of one purchase, records the one it calls on the
 * transaction before the call, and re-queries through `upstream(name)` only the one recorded,
 * whatever the routes say later.
 */
import type { Kobo } from '../domain/money.js';
import type { ProductName } from '../domain/products.js';
import type { FailoverRule } from './failover.js';
import { FAILOVER_RULES } from './failover-rules.js';
import type { PlanSource, ProductProvider, ProviderRequest } from './port.js';
import type { UpstreamKind } from './upstreams.js';

/** One upstream as the flow sees it. */
export interface Upstream {
  readonly name: string;
  readonly kind: UpstreamKind;
  /** The families it sells, each through its provider. */
  readonly products: Readonly<Partial<Record<ProductName, ProductProvider>>>;
  /** Proven non-delivery, by its kind's rule (failover-rules.ts). */
  readonly notDelivered: FailoverRule;
  /** Our wallet at the upstream, where it has a balance call; rejects when it cannot tell. */
  readonly balance?: (signal: AbortSignal) => Promise<Kobo>;
  /** Whether it sells this purchase (a data plan it has a code for); absent: everything of its families. */
  readonly sells?: (request: ProviderRequest) => Promise<boolean>;
  /** Its data plans, where it publishes them (`prepaid plans sync --upstream`). */
  readonly listPlans?: PlanSource['listPlans'];
}

/** Every upstream by name, and each family's ordered default route (PROVIDER_<FAMILY>). */
export interface Supply {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly defaults: Readonly<Record<ProductName, readonly string[]>>;
}

/** An upstream of a kind from the providers of the families it sells. */
export function upstreamOf(
  name: string,
  kind: UpstreamKind,
  products: Partial<Record<ProductName, ProductProvider>>,
  extras: Pick<Upstream, 'balance' | 'sells' | 'listPlans'> = {},
): Upstream {
  return { name, kind, products, notDelivered: FAILOVER_RULES[kind], ...extras };
}
