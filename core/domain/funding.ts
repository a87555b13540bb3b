/**
 * Money in: wallet funding by bank transfer to an account's own virtual accounts. The pure
 * rules live here: the providers' names, the records of virtual accounts and inflows, the
 * fee (integer kobo, rounded in the holder's favour), the identity numbers (11 digits, kept
 * only as their last four digits and a keyed hash) and the low-balance crossing.
 *
 * A provider's notification is only a hint. The core re-queries the provider, records the
 * inflow under a unique (provider, provider reference), and credits it in one store
 * transaction with its ledger entry and its `wallet.credited` event (core/funding/).
 */
import { invalid } from './errors.js';
import type { Mode } from './mode.js';
import { type Kobo, kobo } from './money.js';
import { randomChars } from './random.js';

export const FUNDING_PROVIDERS = ['sandbox', 'paystack', 'monnify'] as const;
export type FundingProviderName = (typeof FUNDING_PROVIDERS)[number];

export function isFundingProvider(value: unknown): value is FundingProviderName {
  return typeof value === 'string' && (FUNDING_PROVIDERS as readonly string[]).includes(value);
}

/** Which identity number stands behind a virtual account (the central bank requires one). */
export type KycKind = 'bvn' | 'nin';

/** One bank account number a provider reserved for one wallet (account and mode). */
export interface VirtualAccountRecord {
  provider: FundingProviderName;
  /** The NUBAN payers send to; unique per provider. */
  accountNumber: string;
  accountId: string;
  mode: Mode;
  bankName: string;
  bankCode: string;
  accountName: string;
  /** The provider's key for the customer (Paystack customer code, Monnify accountReference). */
  providerCustomerRef: string;
  /** active until closed; a transfer to a closed number is unmatched. */
  status: 'active' | 'closed';
  kycKind: KycKind;
  /** The last four digits of the BVN or NIN: all of it the platform keeps in the clear. */
  kycLast4: string;
  /** HMAC-SHA256 of the number under the core's KYC key, hex (core/funding/kyc.ts). */
  kycHash: string;
  createdAt: Date;
}

/**
 * An opening a provider answers later (Paystack's identification step): whose wallet the
 * provider's customer is and the identity's last four digits and keyed hash, taken from the
 * request that started it (the number itself is not kept), so the account opened by the later
 * event carries them as one opened directly does. Its status is the store's decision of who
 * opens: `pending` until one caller claims it (`opening`), `opened` once its account is saved.
 */
export interface FundingOpeningRecord {
  provider: FundingProviderName;
  /** The provider's customer key (Paystack customer code). */
  customerRef: string;
  accountId: string;
  mode: Mode;
  kycKind: KycKind;
  kycLast4: string;
  /** "" when the opening was learnt from the provider's event alone (started before this was kept). */
  kycHash: string;
  status: 'pending' | 'opening' | 'opened';
  /** When the current claim was taken; a claim older than its lease may be taken over. */
  claimedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewFundingOpening = Omit<FundingOpeningRecord, 'status' | 'claimedAt' | 'updatedAt'>;

/**
 * What happened to a transfer the platform heard of: `verified` (the provider confirmed it
 * and it is about to be credited: a crash leaves it here for the sweeper), `credited`,
 * `unmatched` (waiting for a person) or `rejected` (a person decided it is not ours).
 */
export type InflowStatus = 'verified' | 'credited' | 'unmatched' | 'rejected';

export interface InflowRecord {
  /** inf_... */
  inflowId: string;
  provider: FundingProviderName;
  /** The provider's transaction reference: unique per provider, the exactly-once key. */
  providerReference: string;
  /** The virtual account number paid, as the provider said; "" when it did not say. */
  accountNumber: string;
  /** The wallet it belongs to; null while unmatched without a known account. */
  accountId: string | null;
  mode: Mode;
  amountPaidKobo: Kobo;
  /** Our funding fee; set when credited. */
  feeKobo: Kobo;
  /** What reached the wallet (amount paid less the fee); 0 until credited. */
  creditedKobo: Kobo;
  payerName: string;
  status: InflowStatus;
  /** Why it is unmatched or rejected; "" otherwise. */
  reason: string;
  /** The provider's answer to the re-query, as JSON text, for the person who decides. */
  raw: string;
  /** The ledger reference of the credit (the inflow id); "" until credited. */
  creditReference: string;
  createdAt: Date;
  updatedAt: Date;
}

/** An inflow about to be recorded. */
export type NewInflow = Omit<InflowRecord, 'feeKobo' | 'creditedKobo' | 'creditReference' | 'updatedAt'>;

/** Where a credit of an inflow goes, and what fee it bears. */
export interface InflowCredit {
  accountId: string;
  mode: Mode;
  feeKobo: Kobo;
  at: Date;
}

/**
 * The funding fee: `basisPoints` of the amount paid (100 = 1%), at most `capKobo` (null: no
 * cap). Rounded down, so the holder never pays a fraction of a kobo more than the rate says.
 */
export interface FundingFee {
  basisPoints: number;
  capKobo: Kobo | null;
}

/** A fee must leave something to credit: below 100%, and whole basis points. */
const MAX_FEE_BASIS_POINTS = 9_999;

export function fundingFeeKobo(amountPaidKobo: Kobo, fee: FundingFee): Kobo {
  // Integer arithmetic: amounts are below 2^37 and basis points below 2^14, so the product
  // stays far inside the safe integer range.
  const raw = Math.floor((amountPaidKobo * fee.basisPoints) / 10_000);
  return kobo(fee.capKobo === null ? raw : Math.min(raw, fee.capKobo));
}

/**
 * Parses FUNDING_FEE_PERCENT ("0", "1", "1.5", "0.75") into whole basis points. More than two
 * decimals, or 100% and above, is refused: a fee that takes everything is a typo.
 */
export function parseFeePercent(text: string): number | null {
  const match = /^(\d{1,2})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (match === null) return null;
  const basisPoints = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return basisPoints <= MAX_FEE_BASIS_POINTS ? basisPoints : null;
}

/** A BVN and a NIN are both 11 digits. */
const IDENTITY_NUMBER = /^\d{11}$/;

/** The identity a holder gives for their virtual accounts, checked field by field. */
export interface KycInput {
  kind: KycKind;
  number: string;
  firstName: string;
  lastName: string;
  phone: string;
  email: string;
  /** Paystack's identification step asks for a bank account linked to the BVN; "" when not given. */
  bankCode: string;
  bankAccount: string;
}

const NAME = /^[\p{L}][\p{L} .'-]{0,49}$/u;
const PHONE = /^(?:\+234|0)\d{10}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,63}$/;

/** Throws a field error for the first thing wrong; the identity number is never echoed. */
export function validateKyc(input: KycInput): KycInput {
  if (!IDENTITY_NUMBER.test(input.number))
    throw invalid(input.kind, `must be the 11 digits of your ${input.kind.toUpperCase()}`);
  if (!NAME.test(input.firstName.trim())) throw invalid('first_name', 'must be a name of 1 to 50 letters');
  if (!NAME.test(input.lastName.trim())) throw invalid('last_name', 'must be a name of 1 to 50 letters');
  if (!PHONE.test(input.phone.trim())) throw invalid('phone', 'must be a Nigerian phone number such as 08031234567');
  if (!EMAIL.test(input.email.trim())) throw invalid('email', 'must be an email address');
  if (input.bankCode !== '' && !/^\d{3,6}$/.test(input.bankCode)) throw invalid('bank_code', 'must be 3 to 6 digits');
  if (input.bankAccount !== '' && !/^\d{10}$/.test(input.bankAccount))
    throw invalid('bank_account', 'must be a 10-digit account number');
  // Paystack's identification needs both; one alone would silently skip it.
  if (input.bankCode === '' && input.bankAccount !== '')
    throw invalid('bank_code', 'must be given with the bank account number');
  if (input.bankAccount === '' && input.bankCode !== '')
    throw invalid('bank_account', 'must be given with the bank code');
  return {
    ...input,
    firstName: input.firstName.trim(),
    lastName: input.lastName.trim(),
    phone: input.phone.trim(),
    email: input.email.trim().toLowerCase(),
  };
}

/**
 * Low balance: a debit that takes the balance from at or above the threshold to below it
 * announces it once; the next announcement needs the balance back at or above it first,
 * which a debit crossing downwards proves by itself. No threshold (null): never.
 */
export function crossesLowBalance(
  balanceBeforeKobo: number,
  balanceAfterKobo: number,
  thresholdKobo: number | null,
): boolean {
  return (
    thresholdKobo !== null &&
    thresholdKobo > 0 &&
    balanceBeforeKobo >= thresholdKobo &&
    balanceAfterKobo < thresholdKobo
  );
}

const INFLOW_ID_ALPHABET = '0123456789abcdefghijklmnopqrstuv';

/** An inflow id: "inf_" and 20 random characters (100 bits). */
/**
 * The account an inflow just recorded is credited to in the same store operation, or null
 * when it is not to be credited there: recorded before (its first recording decided), not
 * verified (unmatched waits for a person), or matched to no account. Both store adapters ask.
 */
export function creditNowTo(recorded: { created: boolean; inflow: InflowRecord }): string | null {
  const { created, inflow } = recorded;
  return created && inflow.status === 'verified' ? inflow.accountId : null;
}

export function newInflowId(): string {
  return `inf_${randomChars(INFLOW_ID_ALPHABET, 20)}`;
}

export function isInflowId(value: string): boolean {
  return /^inf_[0-9a-v]{20}$/.test(value);
}
