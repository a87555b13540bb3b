/**
 * The provider port: one provider per product family, each able to make a purchase and
 * to re-query one by our reference. Adapters translate their upstream's answers into
 * exactly three outcomes; anything they cannot classify with certainty is `unknown`,
 * because an unknown outcome is never refunded.
 */
import type { Kobo } from '../domain/money.js';
import type { DeliveryResult, ProductName, PurchaseDetails } from '../domain/products.js';

export interface ProviderRequest {
  /** Our transaction reference; the upstream's request id, so a re-query can find it. */
  reference: string;
  product: ProductName;
  service: string;
  recipient: string;
  /** Face value in kobo (what the upstream delivers), not what the wallet paid. */
  faceValueKobo: Kobo;
  details: PurchaseDetails;
}

export type ProviderOutcome =
  | { kind: 'delivered'; result: DeliveryResult }
  /** Definitive failure: nothing was delivered and the upstream did not charge. */
  | { kind: 'failed'; reason: string }
  /** No certain answer (timeout, network error, still processing, unexpected body). */
  | { kind: 'unknown'; reason: string };

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

export interface Providers {
  airtime: ProductProvider;
  data: ProductProvider;
  electricity: ProductProvider;
  cable: ProductProvider;
  bulksms: SmsProvider;
}
