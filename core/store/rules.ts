/**
 * What every store adapter writes the same way, once: the ledger's memo texts, the names
 * of settings, and the rule that decides whether the default catalog is written.
 */
import type { CatalogSeed, NewTransaction } from '../domain/records.js';
import { requireAmount } from './bounds.js';

/** The setting that holds the price of one SMS page, in kobo. */
export const SMS_RATE_SETTING = 'sms_rate_kobo';

/**
 * Selling SMS at a made-up price is worse than failing the request: the catalog is seeded
 * on first start, so a missing rate means a broken setup.
 */
export function smsRateMissing(): Error {
  return new Error('store: the SMS rate is not set; seed the catalog first');
}

/** The ledger memo of a purchase's debit, for people reading a statement. */
export function purchaseMemo(tx: Pick<NewTransaction, 'product' | 'service' | 'recipient'>): string {
  return [tx.product, tx.service, tx.recipient].filter((part) => part !== '').join(' ');
}

/** The ledger memo of a failed purchase's refund. */
export function refundMemo(reason: string): string {
  return `refund: ${reason}`;
}

/** The ledger memo of the refund that undoes a delivered purchase the provider reversed. */
export function reversalMemo(reason: string): string {
  return `reversal: ${reason}`;
}

/**
 * Whether the default catalog is still to be written. The tiers are the marker: a catalog
 * without tiers has never been set up, while an operator's later edits (even removing
 * every plan) must survive restarts.
 */
export function catalogNeedsSeed(tierCount: number): boolean {
  return tierCount === 0;
}

/** Checks a whole seed before anything is written, so a bad seed fails without a partial write. */
export function requireSeed(seed: CatalogSeed): void {
  for (const plan of seed.plans) requirePlanAmounts(plan);
  for (const pkg of seed.cablePackages) requireAmount('priceKobo', pkg.priceKobo, 0);
  requireAmount('smsRateKobo', seed.smsRateKobo, 0);
}

/** A plan's id and every price are non-negative safe integers (planId 0 asks for a new id). */
export function requirePlanAmounts(plan: CatalogSeed['plans'][number]): void {
  requireAmount('planId', plan.planId, 0);
  requireAmount('faceValueKobo', plan.faceValueKobo, 0);
  for (const [tierId, priceKobo] of Object.entries(plan.tierPricesKobo)) {
    requireAmount(`tierPricesKobo.${tierId}`, priceKobo, 0);
  }
  for (const [upstream, costKobo] of Object.entries(plan.costsKobo))
    requireAmount(`costsKobo.${upstream}`, costKobo, 0);
  requireAmount('sizeMb', plan.sizeMb, 0);
  requireAmount('validityDays', plan.validityDays, 0);
}

/** A commission is whole basis points, 0 to 100%: anything else is a caller's bug. */
export function requireCommission(basisPoints: number): void {
  if (!Number.isSafeInteger(basisPoints) || basisPoints < 0 || basisPoints > 10_000)
    throw new Error(`store: commissionBasisPoints must be an integer from 0 to 10000, got ${basisPoints}`);
}
