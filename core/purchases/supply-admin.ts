/**
 * The operator's side of supply: the route table (list, set, clear, each change in
 * the audit log with what it replaced) and the upstream attempts of one purchase. Partners never
 * see any of it. A route may only name configured upstreams that sell its product, so a route
 * set here can always be followed.
 */
import { DomainError, invalid } from '../domain/errors.js';
import type { Kobo } from '../domain/money.js';
import { PRODUCTS, type ProductName } from '../domain/products.js';
import type { RouteRecord, UpstreamAttemptRecord } from '../domain/records.js';
import type { Supply } from '../providers/supply.js';
import type { RouteKey, Store } from '../store/port.js';
import type { Router } from './routing.js';
import type { UpstreamHealth } from './upstream-health.js';

/** More upstreams than this in one route is a mistake (the same bound as PROVIDER_<FAMILY>). */
const MAX_ROUTE_UPSTREAMS = 8;
/** A network, plan type or disco: lower-case words joined by "-", as the catalogue writes them. */
const KEY_PART = /^[a-z0-9][a-z0-9-]{0,39}$/;

export interface SupplyAdmin {
  listRoutes(): Promise<{ routes: RouteRecord[]; defaults: { product: ProductName; upstreams: readonly string[] }[] }>;
  /** The configured upstreams, with the products each sells. */
  upstreams(): { name: string; kind: string; products: ProductName[] }[];
  /** `address`: the staff member's, for the audit log (none for the CLI). */
  setRoute(
    key: RouteKey,
    upstreams: string[],
    actor: string,
    address?: string | null,
  ): Promise<{ route: RouteRecord; before: RouteRecord | null }>;
  clearRoute(key: RouteKey, actor: string, address?: string | null): Promise<RouteRecord | null>;
  attemptsOf(reference: string): Promise<UpstreamAttemptRecord[]>;
  /** Each upstream's health as this core sees it, with the last hour's attempts from the store. */
  health(): Promise<UpstreamHealthRow[]>;
  setFloatAlert(
    name: string,
    alertKobo: Kobo | null,
    actor: string,
    address?: string | null,
  ): Promise<{ before: Kobo | null }>;
}

/** One row of `prepaid upstreams list`. */
interface UpstreamHealthRow {
  name: string;
  kind: string;
  circuit: string;
  floatKobo: Kobo | null;
  floatAlertKobo: Kobo | null;
  lastError: string | null;
  purchasesLastHour: number;
  failoversLastHour: number;
  skipped: number;
}

/** Attempts read for the last hour's counts; more is a busy hour, counted up to this. */
const MAX_HOUR_ATTEMPTS = 100_000;
const HOUR_MS = 3_600_000;

function checkKey(key: RouteKey): RouteKey {
  if (!(PRODUCTS as readonly string[]).includes(key.product)) throw invalid('product', 'product must be set.');
  for (const [field, value] of [
    ['network', key.network],
    ['plan_type', key.planType],
    ['disco', key.disco],
  ] as const) {
    if (value !== '' && !KEY_PART.test(value))
      throw invalid(field, `${field} must be empty or a lower-case name such as mtn or sme (letters, digits, "-").`);
  }
  if (key.network !== '' && key.disco !== '')
    throw invalid(
      'disco',
      'A route names a network (airtime, data) or a disco/provider (electricity, cable), not both.',
    );
  const byDisco = key.product === 'electricity' || key.product === 'cable';
  if (byDisco && key.network !== '')
    throw invalid('network', `A ${key.product} route is chosen by disco, not network.`);
  if (!byDisco && key.disco !== '') throw invalid('disco', `A ${key.product} route is chosen by network, not disco.`);
  if (key.planType !== '' && key.product !== 'data') throw invalid('plan_type', 'Only data routes take a plan type.');
  return key;
}

/** The audit log's target of a route: "data/mtn/sme/" style, every key part in place. */
function routeTarget(key: RouteKey): string {
  return `route:${key.product}/${key.network}/${key.planType}/${key.disco}`;
}

function routeJson(route: RouteRecord | null): string | null {
  return route === null ? null : JSON.stringify(route.upstreams);
}

export function createSupplyAdmin(deps: {
  store: Pick<Store, 'supply' | 'auditLog'>;
  supply: Supply | undefined;
  router: Router | undefined;
  health: UpstreamHealth | undefined;
  clock: () => Date;
}): SupplyAdmin {
  const configured = () => deps.supply?.upstreams ?? new Map();
  return {
    async listRoutes() {
      const defaults = PRODUCTS.map((product) => ({
        product,
        upstreams: deps.supply?.defaults[product] ?? ['sandbox'],
      }));
      return { routes: await deps.store.supply.listRoutes(), defaults };
    },
    upstreams() {
      return [...configured().values()].map((u) => ({
        name: u.name,
        kind: u.kind,
        products: PRODUCTS.filter((p) => u.products[p] !== undefined),
      }));
    },
    async setRoute(key, upstreams, actor, address = null) {
      checkKey(key);
      if (deps.supply === undefined)
        throw new DomainError(
          'FAILED_PRECONDITION',
          'This core routes no purchases: it was started without upstreams.',
        );
      if (upstreams.length === 0 || upstreams.length > MAX_ROUTE_UPSTREAMS)
        throw invalid('upstreams', `A route names 1 to ${MAX_ROUTE_UPSTREAMS} upstreams.`);
      if (new Set(upstreams).size !== upstreams.length) throw invalid('upstreams', 'A route names each upstream once.');
      if (key.product === 'bulksms') throw invalid('product', 'Bulk SMS has one upstream, set by PROVIDER_BULKSMS.');
      for (const name of upstreams) {
        const upstream = configured().get(name);
        if (upstream === undefined)
          throw invalid('upstreams', `${name.slice(0, 40)} is not a configured upstream (see prepaid routes list).`);
        if (upstream.products[key.product] === undefined)
          throw invalid('upstreams', `${name} (${upstream.kind}) does not sell ${key.product}.`);
      }
      const at = deps.clock();
      const route: RouteRecord = { ...key, upstreams: [...upstreams], updatedAt: at };
      const before = await deps.store.supply.setRoute(route);
      await deps.store.auditLog.append({
        at,
        actor,
        action: 'routes.set',
        target: routeTarget(key),
        before: routeJson(before),
        after: routeJson(route),
        address,
        note: '',
      });
      await deps.router?.reload();
      return { route, before };
    },
    async clearRoute(key, actor, address = null) {
      checkKey(key);
      const before = await deps.store.supply.clearRoute(key);
      if (before !== null) {
        await deps.store.auditLog.append({
          at: deps.clock(),
          actor,
          action: 'routes.clear',
          target: routeTarget(key),
          before: routeJson(before),
          after: null,
          address,
          note: '',
        });
      }
      await deps.router?.reload();
      return before;
    },
    attemptsOf(reference) {
      return deps.store.supply.attemptsOf(reference);
    },
    async health() {
      const now = deps.clock();
      const [settings, attempts] = await Promise.all([
        deps.store.supply.listUpstreamSettings(),
        deps.store.supply.attemptsBetween(new Date(now.getTime() - HOUR_MS), now, MAX_HOUR_ATTEMPTS),
      ]);
      const alerts = new Map(settings.map((s) => [s.upstream, s.floatAlertKobo]));
      return [...configured().values()].map((u) => {
        const view = deps.health?.view(u.name, now);
        const mine = attempts.filter((a) => a.upstream === u.name);
        return {
          name: u.name,
          kind: u.kind,
          circuit: view?.circuit ?? 'closed',
          floatKobo: view?.floatKobo ?? null,
          floatAlertKobo: alerts.get(u.name) ?? null,
          lastError: view?.lastError ?? null,
          purchasesLastHour: mine.length,
          failoversLastHour: mine.filter((a) => a.outcome === 'not_delivered').length,
          skipped: (view?.skippedOpen ?? 0) + (view?.skippedFloat ?? 0),
        };
      });
    },
    async setFloatAlert(name, alertKobo, actor, address = null) {
      if (!configured().has(name)) throw invalid('name', `${name.slice(0, 40)} is not a configured upstream.`);
      const at = deps.clock();
      const before = await deps.store.supply.setUpstreamSettings({
        upstream: name,
        floatAlertKobo: alertKobo,
        updatedAt: at,
      });
      const beforeKobo = before?.floatAlertKobo ?? null;
      await deps.store.auditLog.append({
        at,
        actor,
        action: 'upstreams.set_float_alert',
        target: `upstream:${name}`,
        before: beforeKobo === null ? null : JSON.stringify({ alert_kobo: String(beforeKobo) }),
        after: alertKobo === null ? null : JSON.stringify({ alert_kobo: String(alertKobo) }),
        address,
        note: '',
      });
      await deps.router?.reload();
      return { before: beforeKobo };
    },
  };
}
