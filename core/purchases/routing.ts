/**
 * Routing a purchase to its upstreams: the route table in the store (most specific
 * row first, else the family's PROVIDER_<FAMILY> default), then what each upstream can take
 * now: one that does not sell the purchase (a data plan it has no code for) is left out; one
 * whose circuit is open or whose float is under its alert is left out while the route has
 * another choice. The flow tries the rest in order and moves on only on proven non-delivery.
 */
import { keptFresh } from '../../runtime/kept-fresh.js';
import { canonicalNetwork, type ProductName } from '../domain/products.js';
import type { RouteRecord, UpstreamSettingsRecord } from '../domain/records.js';
import type { ProviderRequest } from '../providers/port.js';
import type { Supply, Upstream } from '../providers/supply.js';
import type { Store } from '../store/port.js';
import type { HealthSkip, UpstreamHealth } from './upstream-health.js';

/**
 * How long a core keeps the route table and upstream settings it read: another core's change
 * is in force here within this time; this core's own changes at once (reload).
 */
const ROUTES_REFRESH_MS = 5_000;

/** What a route is chosen by: the purchase's product, network, disco and data plan type. */
interface RouteQuery {
  product: ProductName;
  /** The network (airtime, data), the disco (electricity) or the cable provider. */
  service: string;
  /** The data plan's type ("sme", "gifting", ...), "" when unknown. */
  planType: string;
}

/**
 * Why an upstream of the route was left out of a purchase's candidates; `below_cost`: the
 * sale's price is below its cost there, and a later upstream of the route covers it.
 */
export type SkipReason = 'not_sold' | 'circuit_open' | 'float_low' | 'not_configured' | 'below_cost';

export interface RoutingDecision {
  /** The upstreams to try, in order. */
  candidates: Upstream[];
  /** The route's names in order, as the table or the default gave them. */
  route: readonly string[];
  skipped: { upstream: string; reason: SkipReason }[];
}

export interface Router {
  readonly supply: Supply;
  /**
   * The upstreams of one purchase, in order; none when no configured upstream sells it.
   * `belowCost`: upstreams the margin guard left out (the purchase service decided it).
   */
  decide(request: ProviderRequest, planType: string, belowCost?: readonly string[]): Promise<RoutingDecision>;
  /** The route a purchase of this kind takes now, before what each upstream can take. */
  routeOf(query: RouteQuery): Promise<readonly string[]>;
  /** Reads the route table and settings again (after this core changed them). */
  reload(): Promise<void>;
  /** Each upstream's settings as last read. */
  settings(): Promise<ReadonlyMap<string, UpstreamSettingsRecord>>;
}

/** Which key of a route the purchase's service fills. */
function serviceKey(product: ProductName): 'network' | 'disco' {
  return product === 'electricity' || product === 'cable' ? 'disco' : 'network';
}

/** Whether a route's network or disco names the purchase's: t2 is 9mobile, whichever name either uses. */
function sameService(key: 'network' | 'disco', routed: string, asked: string): boolean {
  if (key === 'disco') return routed === asked;
  return (canonicalNetwork(routed) ?? routed) === (canonicalNetwork(asked) ?? asked);
}

/** The most specific route row that applies: every set key must match, and more set keys win. */
function matchRoute(rows: readonly RouteRecord[], query: RouteQuery): RouteRecord | undefined {
  const key = serviceKey(query.product);
  let best: RouteRecord | undefined;
  let bestScore = -1;
  for (const row of rows) {
    if (row.product !== query.product) continue;
    const service = key === 'network' ? row.network : row.disco;
    if (service !== '' && !sameService(key, service, query.service)) continue;
    if (row.planType !== '' && row.planType !== query.planType) continue;
    // A network or disco is more specific than a plan type (a plan type is within a network).
    const score = (service !== '' ? 2 : 0) + (row.planType !== '' ? 1 : 0);
    if (score > bestScore) {
      best = row;
      bestScore = score;
    }
  }
  return best;
}

export function createRouter(deps: {
  supply: Supply;
  store: Pick<Store, 'supply'>;
  health: UpstreamHealth;
  clock: () => Date;
}): Router {
  const table = keptFresh({
    read: async () => {
      const [routes, upstreamSettings] = await Promise.all([
        deps.store.supply.listRoutes(),
        deps.store.supply.listUpstreamSettings(),
      ]);
      return { routes, settings: new Map(upstreamSettings.map((s) => [s.upstream, s])) };
    },
    freshMs: ROUTES_REFRESH_MS,
    clock: deps.clock,
  });

  async function routeOf(query: RouteQuery): Promise<readonly string[]> {
    return matchRoute((await table.get()).routes, query)?.upstreams ?? deps.supply.defaults[query.product];
  }

  return {
    supply: deps.supply,
    routeOf,
    async reload() {
      await table.reload();
    },
    async settings() {
      return (await table.get()).settings;
    },
    async decide(request, planType, belowCost = []) {
      const route = await routeOf({ product: request.product, service: request.service, planType });
      const { settings } = await table.get();
      const skipped: RoutingDecision['skipped'] = [];
      const selling: Upstream[] = [];
      for (const name of route) {
        const upstream = deps.supply.upstreams.get(name);
        if (upstream?.products[request.product] === undefined) {
          skipped.push({ upstream: name, reason: 'not_configured' });
          continue;
        }
        if (belowCost.includes(name)) {
          skipped.push({ upstream: name, reason: 'below_cost' });
          continue;
        }
        if (upstream.sells !== undefined && !(await upstream.sells(request))) {
          skipped.push({ upstream: name, reason: 'not_sold' });
          continue;
        }
        selling.push(upstream);
      }
      // Health only narrows a choice: with every upstream down, the route is tried as it is
      // (a refused connection still moves on; the first that answers gets the purchase).
      const now = deps.clock();
      const unhealthy: { upstream: string; reason: HealthSkip }[] = [];
      const healthy = selling.filter((upstream) => {
        const status = deps.health.status(upstream.name, settings.get(upstream.name)?.floatAlertKobo ?? null, now);
        if (status !== 'ok') unhealthy.push({ upstream: upstream.name, reason: status });
        return status === 'ok';
      });
      if (healthy.length === 0) return { candidates: selling, route, skipped };
      for (const skip of unhealthy) deps.health.skipped(skip.upstream, skip.reason);
      return { candidates: healthy, route, skipped: [...skipped, ...unhealthy] };
    },
  };
}
