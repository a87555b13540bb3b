/**
 * The catalog a fresh installation starts with, seeded once when the store is empty and
 * editable afterwards through the admin service. Prices are in kobo.
 */
import { KOBO_PER_NAIRA, kobo } from '../domain/money.js';
import { sizeMbFromName, validityDaysFromText } from '../domain/plans.js';
import type { PlanType } from '../domain/products.js';
import type { CablePackageRecord, CatalogSeed, PlanRecord, TierRecord } from '../domain/records.js';

/** The tier new accounts join unless told otherwise. */
export const DEFAULT_TIER_ID = 'basic';
/** The tier whose accounts may use the public API (the contract, 1, in docs/specification.md). */
export const API_TIER_ID = 'api';

const TIERS: TierRecord[] = [
  { tierId: 'basic', name: 'Basic', apiAccess: false, discounts: [], priceRules: [] },
  {
    tierId: 'reseller',
    name: 'Reseller',
    apiAccess: false,
    discounts: [
      { product: 'airtime', service: '', basisPoints: 200 },
      { product: 'cable', service: '', basisPoints: 50 },
    ],
    priceRules: [],
  },
  {
    tierId: API_TIER_ID,
    name: 'API Client',
    apiAccess: true,
    discounts: [
      { product: 'airtime', service: 'mtn', basisPoints: 300 },
      { product: 'airtime', service: 'glo', basisPoints: 500 },
      { product: 'airtime', service: 'airtel', basisPoints: 300 },
      { product: 'airtime', service: '9mobile', basisPoints: 400 },
      { product: 'data', service: '', basisPoints: 300 },
      { product: 'electricity', service: '', basisPoints: 50 },
      { product: 'cable', service: '', basisPoints: 100 },
    ],
    priceRules: [],
  },
];

/** [planId, network, label, validity, type, face value in Naira, reseller Naira, API Naira]. */
const PLAN_ROWS: ReadonlyArray<readonly [number, string, string, string, PlanType, number, number, number]> = [
  [1, 'mtn', '500MB', '7 days', 'sme', 500, 490, 470],
  [2, 'mtn', '1GB', '1 day', 'awoof', 500, 490, 475],
  [3, 'mtn', '2GB', '30 days', 'sme', 1_500, 1_470, 1_420],
  [4, 'mtn', '3.5GB', '30 days', 'direct', 2_500, 2_450, 2_380],
  [5, 'mtn', '7GB', '30 days', 'direct', 3_500, 3_430, 3_330],
  [6, 'mtn', '10GB', '30 days', 'cg', 4_500, 4_410, 4_280],
  [7, 'mtn', '20GB', '30 days', 'direct', 7_500, 7_350, 7_130],
  [101, 'glo', '1GB', '1 day', 'awoof', 350, 340, 330],
  [102, 'glo', '2.6GB', '30 days', 'gifting', 1_000, 980, 950],
  [103, 'glo', '5GB', '30 days', 'cg', 1_500, 1_470, 1_420],
  [104, 'glo', '10GB', '30 days', 'gifting', 3_000, 2_940, 2_850],
  [105, 'glo', '18GB', '30 days', 'direct', 5_000, 4_900, 4_750],
  [201, 'airtel', '1GB', '2 days', 'awoof', 500, 490, 475],
  [202, 'airtel', '2GB', '30 days', 'cg', 1_500, 1_470, 1_425],
  [203, 'airtel', '4GB', '30 days', 'direct', 2_500, 2_450, 2_375],
  [204, 'airtel', '10GB', '30 days', 'cg', 4_000, 3_920, 3_800],
  [205, 'airtel', '18GB', '30 days', 'direct', 6_000, 5_880, 5_700],
  [301, '9mobile', '1GB', '30 days', 'gifting', 1_000, 980, 950],
  [302, '9mobile', '2.5GB', '30 days', 'direct', 2_000, 1_960, 1_900],
  [303, '9mobile', '4.5GB', '30 days', 'direct', 3_000, 2_940, 2_850],
  [304, '9mobile', '11GB', '30 days', 'direct', 6_000, 5_880, 5_700],
];

const PLANS: PlanRecord[] = PLAN_ROWS.map(([planId, network, label, validity, type, face, reseller, api]) => ({
  planId,
  network,
  label,
  validity,
  type,
  sizeMb: sizeMbFromName(label),
  validityDays: validityDaysFromText(validity),
  faceValueKobo: kobo(face * KOBO_PER_NAIRA),
  tierPricesKobo: { reseller: kobo(reseller * KOBO_PER_NAIRA), [API_TIER_ID]: kobo(api * KOBO_PER_NAIRA) },
  // Learnt from the upstream: `prepaid plans sync`, its pushes and its answers.
  costsKobo: {},
  active: true,
  // Filled by `prepaid plans sync` from the upstream's catalog.
  providerCode: '',
}));

/** The contract, 4.7 (docs/specification.md): common package codes and monthly prices in Naira. */
const CABLE_ROWS: ReadonlyArray<readonly [string, string, string, number]> = [
  ['dstv', 'DSTV PADI', 'DStv Padi', 2_500],
  ['dstv', 'DSTV YANGA', 'DStv Yanga', 3_500],
  ['dstv', 'DSTV CONFAM', 'DStv Confam', 9_000],
  ['dstv', 'DSTV COMPACT', 'DStv Compact', 15_700],
  ['dstv', 'DSTV PREMIUM', 'DStv Premium', 29_500],
  ['gotv', 'GOTV SMALLIE', 'GOtv Smallie', 1_575],
  ['gotv', 'GOTV JINJA', 'GOtv Jinja', 2_715],
  ['gotv', 'GOTV JOLLI', 'GOtv Jolli', 4_085],
  ['gotv', 'GOTV MAX', 'GOtv Max', 5_500],
  ['startimes', 'nova', 'StarTimes Nova', 1_200],
  ['startimes', 'basic', 'StarTimes Basic', 2_200],
  ['startimes', 'smart', 'StarTimes Smart', 3_000],
  ['startimes', 'classic', 'StarTimes Classic', 5_200],
];

const CABLE_PACKAGES: CablePackageRecord[] = CABLE_ROWS.map(([provider, packageCode, name, naira]) => ({
  provider,
  packageCode,
  name,
  priceKobo: kobo(naira * KOBO_PER_NAIRA),
  active: true,
  providerCode: '',
}));

/** 3.50 Naira per page per recipient, a common bulk SMS rate in Nigeria. */
const SMS_RATE_KOBO = kobo(350);

export function defaultCatalog(): CatalogSeed {
  // Copies, so that nobody can change the defaults through a seeded record.
  return structuredClone({ tiers: TIERS, plans: PLANS, cablePackages: CABLE_PACKAGES, smsRateKobo: SMS_RATE_KOBO });
}
