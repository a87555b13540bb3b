/**
 * Builds the platform's providers from configuration: every upstream instance
 * (the built-in `sandbox`, `vtpass` when its keys are set, and each one UPSTREAMS declares),
 * and each product family's ordered default route (PROVIDER_AIRTIME=vtpass,datahub, ...), the
 * sandbox by default. core/config.ts reads and checks the variables; this file only assembles.
 *
 * A purchase goes to the first upstream of its route that may take it and moves on only on
 * proven non-delivery (core/purchases/flow.ts); its re-queries go to the upstream recorded on
 * it, so changing a route while purchases are pending is safe.
 */
import { PRODUCTS, type ProductName } from '../domain/products.js';
import { ckSellsBill } from './clubkonnect/bills.js';
import { createClubkonnectProviders } from './clubkonnect/index.js';
import type { ProviderRequest, Providers } from './port.js';
import { siteSellsBill } from './ported-number/bills.js';
import { createPortedNumberProviders } from './ported-number/index.js';
import { createSandbox, type Sandbox } from './sandbox/index.js';
import { type Supply, type Upstream, upstreamOf } from './supply.js';
import type { UpstreamInstance } from './upstreams.js';
import { createVtpassProviders, type VtpassCatalog, type VtpassOptions } from './vtpass/index.js';
import { createVtpassSmsProvider, type VtpassSmsOptions } from './vtpass/sms.js';

/** The built-in upstreams, which need no declaration in UPSTREAMS. */
export const SANDBOX_UPSTREAM = 'sandbox';
export const VTPASS_UPSTREAM = 'vtpass';

/** Which upstreams serve each product family, in order: the first that may take a purchase gets it. */
export type ProviderRouting = Readonly<Record<ProductName, readonly string[]>>;

/** The variable that routes each family. */
export const ROUTING_VARIABLES: Readonly<Record<ProductName, string>> = {
  airtime: 'PROVIDER_AIRTIME',
  data: 'PROVIDER_DATA',
  electricity: 'PROVIDER_ELECTRICITY',
  cable: 'PROVIDER_CABLE',
  bulksms: 'PROVIDER_BULKSMS',
};

/** The families VTpass serves through its bills API (bulk SMS goes through its messaging API). */
export const VTPASS_BILL_FAMILIES: readonly ProductName[] = ['airtime', 'data', 'electricity', 'cable'];

/** The families each kind of declared upstream sells (VTpass and the sandbox sell all). */
export const FAMILIES_OF_KIND: Readonly<Record<UpstreamInstance['kind'], readonly ProductName[]>> = {
  vtpass: VTPASS_BILL_FAMILIES,
  clubkonnect: ['airtime', 'data', 'electricity', 'cable'],
  'ported-number': ['airtime', 'data', 'electricity'],
  sandbox: PRODUCTS,
};

/** VTpass's bills API as configured; secrets included, so never logged whole. */
type VtpassSettings = Pick<VtpassOptions, 'baseUrl' | 'apiKey' | 'publicKey' | 'secretKey' | 'fallbackPhone'>;
/** VTpass's messaging API as configured. */
type VtpassSmsSettings = Pick<VtpassSmsOptions, 'url' | 'token' | 'secret' | 'receiptSender'>;

/** Everything createProviders needs, as core/config.ts read it. */
export interface ProvidersConfig {
  routing: ProviderRouting;
  /** The instances UPSTREAMS declares, besides `vtpass` (configured by `vtpass` below). */
  upstreams: readonly Exclude<UpstreamInstance, { kind: 'vtpass' }>[];
  sandboxDelayMs: number;
  /** Set when any of airtime, data, electricity or cable may go to VTpass. */
  vtpass: VtpassSettings | null;
  /** Set when bulk SMS goes to VTpass. */
  vtpassSms: VtpassSmsSettings | null;
}

/** The routed providers, and the sandbox behind the families it serves. */
export interface BuiltProviders {
  /**
   * The first upstream of each family's default route: what customer look-ups, plan syncs and
   * receipts use, and purchases when no supply is given.
   */
  providers: Providers;
  /** The sandbox, whichever families it serves (it keeps no records here). */
  sandbox: Sandbox;
  /** Every upstream by name and the default routes: what purchases and re-queries use. */
  supply: Supply;
}

/** Every family on the sandbox: the default, and what tests start from. */
export const ALL_SANDBOX: ProviderRouting = Object.freeze({
  airtime: [SANDBOX_UPSTREAM],
  data: [SANDBOX_UPSTREAM],
  electricity: [SANDBOX_UPSTREAM],
  cable: [SANDBOX_UPSTREAM],
  bulksms: [SANDBOX_UPSTREAM],
});

/** Where a declared ClubKonnect or ported-number upstream finds its code of one of our data plans. */
export type PlanCodes = (upstream: string, planId: number) => Promise<string | null>;

/**
 * The providers of a configuration. A family routed to an upstream that is not configured is
 * a programming error here (core/config.ts refuses such a configuration at start).
 */
export function createProviders(
  config: ProvidersConfig,
  deps: {
    catalog: VtpassCatalog;
    /** The plan codes of declared upstreams; none known: they sell no data. */
    planCodes?: PlanCodes;
    log?: (event: string, fields: Record<string, unknown>) => void;
    clock?: () => Date;
  },
): BuiltProviders {
  const sandbox = createSandbox({ delayMs: config.sandboxDelayMs, record: false });
  const common = { ...(deps.log ? { log: deps.log } : {}), ...(deps.clock ? { clock: deps.clock } : {}) };
  const planCodes = deps.planCodes ?? (async () => null);
  const upstreams = new Map<string, Upstream>();
  upstreams.set(SANDBOX_UPSTREAM, upstreamOf(SANDBOX_UPSTREAM, 'sandbox', sandbox));
  let vtpassBills: ReturnType<typeof createVtpassProviders> | null = null;
  if (config.vtpass !== null) {
    vtpassBills = createVtpassProviders({ ...config.vtpass, ...common }, deps.catalog);
    // A data plan without its VTpass code (no `prepaid plans sync` yet) is not sold there.
    const sells = async (request: ProviderRequest) =>
      request.product !== 'data' ||
      request.details.planId === undefined ||
      ((await deps.catalog.getPlan(request.details.planId))?.providerCode ?? '') !== '';
    const { balance, ...bills } = vtpassBills;
    upstreams.set(VTPASS_UPSTREAM, upstreamOf(VTPASS_UPSTREAM, 'vtpass', bills, { balance, sells }));
  }
  for (const instance of config.upstreams)
    upstreams.set(instance.name, declaredUpstream(instance, planCodes, config.sandboxDelayMs, deps));

  for (const family of PRODUCTS) {
    for (const name of config.routing[family]) {
      if (family === 'bulksms') continue;
      if (upstreams.get(name)?.products[family] === undefined)
        throw new Error(`${family} is routed to ${name}, which is not configured for it`);
    }
  }
  const smsRoute = config.routing.bulksms[0] ?? SANDBOX_UPSTREAM;
  if (smsRoute === VTPASS_UPSTREAM && config.vtpassSms === null)
    throw new Error('VTpass SMS is routed but not configured');
  const vtpassSms =
    smsRoute === VTPASS_UPSTREAM && config.vtpassSms
      ? createVtpassSmsProvider({ ...config.vtpassSms, ...(deps.log ? { log: deps.log } : {}) })
      : null;
  if (vtpassSms !== null) {
    // Bulk SMS has one upstream, the messaging API; the bills upstream keeps its own families.
    const bills = upstreams.get(VTPASS_UPSTREAM);
    upstreams.set(VTPASS_UPSTREAM, {
      ...(bills ?? upstreamOf(VTPASS_UPSTREAM, 'vtpass', {})),
      products: { ...(bills?.products ?? {}), bulksms: vtpassSms },
    });
  }

  const first = <F extends Exclude<ProductName, 'bulksms'>>(family: F): Providers[F] => {
    const name = config.routing[family][0] ?? SANDBOX_UPSTREAM;
    if (name === VTPASS_UPSTREAM && vtpassBills !== null) return vtpassBills[family] as Providers[F];
    if (name === SANDBOX_UPSTREAM) return sandbox[family];
    // A declared upstream serves only the families of its kind (config.ts refuses the rest).
    return (upstreams.get(name)?.products[family] ?? sandbox[family]) as Providers[F];
  };
  return {
    providers: {
      airtime: first('airtime'),
      data: first('data'),
      electricity: first('electricity'),
      cable: first('cable'),
      bulksms: vtpassSms ?? sandbox.bulksms,
    },
    sandbox,
    supply: { upstreams, defaults: config.routing },
  };
}

function declaredUpstream(
  instance: Exclude<UpstreamInstance, { kind: 'vtpass' }>,
  planCodes: PlanCodes,
  sandboxDelayMs: number,
  deps: { log?: (event: string, fields: Record<string, unknown>) => void },
): Upstream {
  const log = deps.log ? { log: deps.log } : {};
  const planCode = (planId: number) => planCodes(instance.name, planId);
  // Airtime is sold whole; a data plan only where the upstream has a code for it.
  const sells = async (request: ProviderRequest) =>
    request.product !== 'data' ||
    (request.details.planId !== undefined && (await planCode(request.details.planId)) !== null);
  switch (instance.kind) {
    case 'sandbox':
      return upstreamOf(instance.name, 'sandbox', createSandbox({ delayMs: sandboxDelayMs, record: false }));
    case 'clubkonnect': {
      const ck = createClubkonnectProviders({ ...instance, planCode, ...log });
      // A disco, package or number of months ClubKonnect has no code for is not sold there.
      const ckSells = async (request: ProviderRequest) =>
        request.product === 'electricity' || request.product === 'cable' ? ckSellsBill(request) : sells(request);
      return upstreamOf(
        instance.name,
        'clubkonnect',
        { airtime: ck.airtime, data: ck.data, electricity: ck.electricity, cable: ck.cable },
        { balance: ck.balance, sells: ckSells, listPlans: ck.data.listPlans },
      );
    }
    case 'ported-number': {
      const pn = createPortedNumberProviders({ ...instance, planCode, ...log });
      const siteSells = async (request: ProviderRequest) =>
        request.product === 'electricity' ? siteSellsBill(request) : sells(request);
      return upstreamOf(
        instance.name,
        'ported-number',
        { airtime: pn.airtime, data: pn.data, electricity: pn.electricity },
        { balance: pn.balance, sells: siteSells, listPlans: pn.data.listPlans },
      );
    }
  }
}

/** "airtime=vtpass>datahub,data=vtpass,electricity=sandbox,..." for the start-up log line. */
export function describeRouting(routing: ProviderRouting): string {
  return PRODUCTS.map((family) => `${family}=${routing[family].join('>')}`).join(',');
}
