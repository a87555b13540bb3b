/**
 * The provider port: one provider per product family, each able to make a purchase and
 * to re-query one by our reference. Adapters translate their upstream's answers into
 * exactly three outcomes; anything they cannot classify with certainty is `unknown`,
 * because an unknown outcome is never refunded.
 */
import type { Mode } from '../domain/mode.js';
import type { Kobo } from '../domain/money.js';
import type { CableProvider, DeliveryResult, Network, ProductName, PurchaseDetails } from '../domain/products.js';
import type { CustomerQuery } from '../domain/verification.js';

/** What happened on one purchase call, as far as delivery is concerned. */
export type CallEvidence =
  /** The request was provably never written: refused, the name did not resolve, TLS failed. */
  | { kind: 'not_sent'; cause: 'refused' | 'dns' | 'tls' }
  /** No answer, and the request may have been written. */
  | { kind: 'no_answer'; cause: 'timeout' | 'reset' | 'other' }
  /**
   * An answer. `json` is whether the body was a JSON object; `code` the upstream's code
   * (VTpass `code`, ClubKonnect `statuscode`) and `status` its status word (VTpass
   * transaction status, ClubKonnect `status`, the ported-number family's `Status`),
   * each null when absent.
   */
  | { kind: 'answer'; httpStatus: number; json: boolean; code: string | null; status: string | null };

export type { CustomerQuery };

export interface ProviderRequest {
  /** Our transaction reference; the upstream's request id, so a re-query can find it. */
  reference: string;
  product: ProductName;
  service: string;
  recipient: string;
  /** Face value in kobo (what the upstream delivers), not what the wallet paid. */
  faceValueKobo: Kobo;
  details: PurchaseDetails;
  /**
   * On a re-query: the upstream's own id of the purchase, when an earlier answer gave one
   * (kept on the attempt). An upstream that looks purchases up by its own id asks by it.
   */
  upstreamReference?: string;
  /**
   * On a re-query for the daily match (docs/reconciliation.md): look for every charge under our
   * reference, where the upstream lists them (the ported-number family's history), even when its
   * own id of the purchase is known; `upstreamCharge.charges` then says how many it shows.
   */
  everyCharge?: boolean;
}

/**
 * What an upstream's answer about one purchase says about our wallet there, each field only
 * where the answer carries it, read no looser than the upstream documents it: what it charged
 * for the purchase, our balance there just before and just after it, and how many charges it
 * shows under our reference (only where it lists them; absent: one).
 */
export interface UpstreamCharge {
  chargedKobo?: Kobo;
  balanceBeforeKobo?: Kobo;
  balanceAfterKobo?: Kobo;
  charges?: number;
}

/**
 * `evidence` is set on the answer to a purchase call that reached the network (or provably
 * did not): what the failover rules (failover-rules.ts) read for a routed purchase's calls.
 */
export type ProviderOutcome =
  /** `costKobo`: what the upstream says it charged us, where it says so (recorded for the operator). */
  (
    | { kind: 'delivered'; result: DeliveryResult; costKobo?: Kobo }
    /** Definitive failure: nothing was delivered and the upstream did not charge. */
    | { kind: 'failed'; reason: string; evidence?: CallEvidence }
    /**
     * No certain answer (timeout, network error, still processing, unexpected body).
     * `upstreamReference`: the upstream's own id of the purchase, when the answer gave one.
     */
    | {
        kind: 'unknown';
        reason: string;
        evidence?: CallEvidence;
        upstreamReference?: string;
        /** The upstream answered that it has no record of the purchase (yet): not a failure by itself. */
        noRecord?: true;
      }
    /**
     * The upstream undid the purchase and returned the money to us (a reversal). For a
     * pending transaction it is a failure like any other (refunded once); for one already
     * settled it turns `success` into `reversed`, with one refund.
     */
    | { kind: 'reversed'; reason: string }
  ) & {
    /** The upstream's answer as it came (no header), when there was one; cleaned before it is stored. */
    raw?: RawAnswer;
    /** What the answer says about our wallet at the upstream for this purchase, where it says. */
    upstreamCharge?: UpstreamCharge;
  };

/** An upstream's answer body, uncleaned (core/domain/raw-answers.ts cleans it). */
interface RawAnswer {
  httpStatus?: number;
  body: string;
}

export interface ProductProvider {
  /** Name for logs and metrics, for example "sandbox". */
  readonly name: string;
  purchase(request: ProviderRequest, signal: AbortSignal): Promise<ProviderOutcome>;
  /** Asks for the outcome of an earlier purchase with the same request. */
  query(request: ProviderRequest, signal: AbortSignal): Promise<ProviderOutcome>;
}

/** A single SMS the platform sends on its own account, such as an electricity receipt. */
export interface NotificationSms {
  to: string;
  text: string;
  /** The purchase it belongs to. */
  reference: string;
}

export interface SmsProvider extends ProductProvider {
  /** Sends a platform message; never charged to a wallet. Resolves to whether it was accepted. */
  notify(message: NotificationSms, signal: AbortSignal): Promise<boolean>;
}

/** What the upstream tells about a customer; every field but the name only when it told it. */
export interface CustomerDetails {
  customerName: string;
  address?: string;
  /** The meter type the disco has on record, as it wrote it. */
  meterType?: string;
  /** The smallest purchase the disco accepts for this meter. */
  minimumAmountKobo?: Kobo;
  /** Debt on the meter that a purchase may pay down first. */
  arrearsKobo?: Kobo;
  /** The cable bouquet the card is on now, as the upstream names it. */
  currentBouquet?: string;
  /** The upstream's code of that bouquet, when it tells one. */
  currentBouquetCode?: string;
  /** When the current cable subscription runs out, as the upstream wrote it. */
  dueDate?: string;
  /** What renewing the current cable bouquet costs. */
  renewalAmountKobo?: Kobo;
}

export type VerifyOutcome =
  | { kind: 'found'; customer: CustomerDetails }
  /** The upstream says there is no such meter or card. */
  | { kind: 'not_found'; reason: string }
  /** No usable answer (timeout, outage, unexpected body); asking again later may work. */
  | { kind: 'unavailable'; reason: string };

/** A provider that can look a customer up before a purchase, without charging anything. */
export interface CustomerVerifier {
  verify(query: CustomerQuery, signal: AbortSignal): Promise<VerifyOutcome>;
}

/** One data plan as the upstream sells it. */
export interface UpstreamPlan {
  /** The upstream's code, our plan's providerCode. */
  code: string;
  /** The upstream's name for it, for example "MTN N1000 1.5GB - 30 days". */
  name: string;
  /** What the upstream charges for it. */
  amountKobo: Kobo;
}

/** A data provider whose upstream publishes its plans, so the catalog can follow it. */
export interface PlanSource {
  /** Every plan the upstream sells for a network now; rejects when it cannot tell. */
  listPlans(network: Network, signal: AbortSignal): Promise<UpstreamPlan[]>;
}

/**
 * A cable provider whose upstream publishes its bouquets and their prices (VTpass's
 * service-variations for dstv, gotv, startimes), so the catalog can follow its pushes.
 */
export interface PackageSource {
  /** Every bouquet the upstream sells for a cable provider now; rejects when it cannot tell. */
  listPackages(provider: CableProvider, signal: AbortSignal): Promise<UpstreamPlan[]>;
}

export interface Providers {
  airtime: ProductProvider;
  /** A data provider may publish its plans (`prepaid plans sync`); the sandbox does not. */
  data: ProductProvider & Partial<PlanSource>;
  electricity: ProductProvider & CustomerVerifier;
  cable: ProductProvider & CustomerVerifier & Partial<PackageSource>;
  bulksms: SmsProvider;
}

/**
 * The providers of each mode: live purchases go where each family is routed, test purchases
 * always to the sandbox, so that no test purchase can ever reach a real upstream.
 */
export type ProvidersByMode = Readonly<Record<Mode, Providers>>;
