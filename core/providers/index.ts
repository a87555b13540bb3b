/**
 * Builds the platform's providers from configuration: each product family goes to the
 * sandbox or to VTpass, independently (PROVIDER_AIRTIME=vtpass, ...), the sandbox by
 * default. core/config.ts reads and checks the variables; this file only assembles.
 *
 * Switching a family while purchases of it are pending sends their re-queries to the new
 * provider, which does not know them: switch when `prepaid pending list` is empty.
 */
import { PRODUCTS, type ProductName } from '../domain/products.js';
import type { Providers } from './port.js';
import { createSandbox, type Sandbox } from './sandbox/index.js';
import { createVtpassProviders, type VtpassCatalog, type VtpassOptions } from './vtpass/index.js';
import { createVtpassSmsProvider, type VtpassSmsOptions } from './vtpass/sms.js';

/** The upstreams a product family can be routed to. */
export const PROVIDER_KINDS = ['sandbox', 'vtpass'] as const;
/** One of PROVIDER_KINDS. */
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** Which provider serves each product family. */
export type ProviderRouting = Readonly<Record<ProductName, ProviderKind>>;

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

/** VTpass's bills API as configured; secrets included, so never logged whole. */
type VtpassSettings = Pick<VtpassOptions, 'baseUrl' | 'apiKey' | 'publicKey' | 'secretKey' | 'fallbackPhone'>;
/** VTpass's messaging API as configured. */
type VtpassSmsSettings = Pick<VtpassSmsOptions, 'url' | 'token' | 'secret' | 'receiptSender'>;

/** Everything createProviders needs, as core/config.ts read it. */
export interface ProvidersConfig {
  routing: ProviderRouting;
  sandboxDelayMs: number;
  /** Set when any of airtime, data, electricity or cable goes to VTpass. */
  vtpass: VtpassSettings | null;
  /** Set when bulk SMS goes to VTpass. */
  vtpassSms: VtpassSmsSettings | null;
}

/** The routed providers, and the sandbox behind the families it serves. */
export interface BuiltProviders {
  providers: Providers;
  /** The sandbox, whichever families it serves (it keeps no records here). */
  sandbox: Sandbox;
}

/** Every family on the sandbox: the default, and what tests start from. */
export const ALL_SANDBOX: ProviderRouting = Object.freeze(
  Object.fromEntries(PRODUCTS.map((p) => [p, 'sandbox'])) as Record<ProductName, ProviderKind>,
);

/**
 * The providers of a configuration. A family routed to VTpass without its settings is a
 * programming error here (core/config.ts refuses such a configuration at start).
 */
export function createProviders(
  config: ProvidersConfig,
  deps: { catalog: VtpassCatalog; log?: (event: string, fields: Record<string, unknown>) => void; clock?: () => Date },
): BuiltProviders {
  const sandbox = createSandbox({ delayMs: config.sandboxDelayMs, record: false });
  const wantsBills = VTPASS_BILL_FAMILIES.some((family) => config.routing[family] === 'vtpass');
  if (wantsBills && config.vtpass === null) throw new Error('VTpass is routed but not configured');
  if (config.routing.bulksms === 'vtpass' && config.vtpassSms === null)
    throw new Error('VTpass SMS is routed but not configured');
  const common = { ...(deps.log ? { log: deps.log } : {}), ...(deps.clock ? { clock: deps.clock } : {}) };
  const vtpass =
    wantsBills && config.vtpass ? createVtpassProviders({ ...config.vtpass, ...common }, deps.catalog) : null;
  const vtpassSms =
    config.routing.bulksms === 'vtpass' && config.vtpassSms
      ? createVtpassSmsProvider({ ...config.vtpassSms, ...(deps.log ? { log: deps.log } : {}) })
      : null;
  const routed = (family: ProductName) => config.routing[family] === 'vtpass' && vtpass !== null;
  return {
    providers: {
      airtime: routed('airtime') ? vtpass!.airtime : sandbox.airtime,
      data: routed('data') ? vtpass!.data : sandbox.data,
      electricity: routed('electricity') ? vtpass!.electricity : sandbox.electricity,
      cable: routed('cable') ? vtpass!.cable : sandbox.cable,
      bulksms: vtpassSms ?? sandbox.bulksms,
    },
    sandbox,
  };
}

/** "airtime=vtpass,data=vtpass,electricity=sandbox,..." for the start-up log line. */
export function describeRouting(routing: ProviderRouting): string {
  return PRODUCTS.map((family) => `${family}=${routing[family]}`).join(',');
}
