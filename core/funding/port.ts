/**
 * The funding provider port: money in, beside the purchase providers. A provider opens an
 * account's virtual accounts, confirms an inflow by re-query (a notification is only a hint),
 * lists the recent inflows of one virtual account (the sweeper's backstop for a lost
 * notification) and closes an account. Anything a provider cannot confirm with certainty is
 * `unknown`, and an unknown inflow is never credited.
 */
import type { FundingProviderName, KycInput, KycKind, VirtualAccountRecord } from '../domain/funding.js';
import type { Mode } from '../domain/mode.js';
import type { Kobo } from '../domain/money.js';

export interface OpenRequest {
  accountId: string;
  mode: Mode;
  /** The identity the central bank requires; sent to the provider, never stored whole. */
  kyc: KycInput;
  /**
   * Called with the provider's customer key before a step the provider answers later (Paystack's
   * identification) is asked for, so the core keeps what the later answer needs before it can come.
   */
  beforeLaterAnswer?: (customerRef: string) => Promise<void>;
}

/** A bank in a provider's list: its code as the provider takes it, and its name. */
export interface FundingBank {
  code: string;
  name: string;
}

/** One NUBAN a provider reserved. */
export interface OpenedAccount {
  accountNumber: string;
  bankName: string;
  bankCode: string;
  accountName: string;
  /** The provider's key for the customer (Paystack customer code, Monnify accountReference). */
  providerCustomerRef: string;
}

export type OpenResult =
  | { kind: 'opened'; accounts: OpenedAccount[] }
  /** The provider took the request and answers later (Paystack's identification step). */
  | { kind: 'pending'; reason: string; customerRef: string };

/** A transfer the provider itself confirmed as paid. */
export interface ConfirmedInflow {
  providerReference: string;
  /** The virtual account number paid; "" when the provider's answer does not say. */
  accountNumber: string;
  /** The provider's customer key the payment belongs to; "" when not said. */
  customerRef: string;
  amountPaidKobo: Kobo;
  payerName: string;
  /** The provider's answer, as JSON text, kept with the inflow for a person to read. */
  raw: string;
}

export type VerifyResult =
  | { kind: 'paid'; inflow: ConfirmedInflow }
  /** The provider says it is not (or not yet) paid: nothing is credited. */
  | { kind: 'not_paid'; reason: string }
  /** No certain answer (network, unexpected body): nothing is credited; the sweeper tries later. */
  | { kind: 'unknown'; reason: string };

/** What a notification claims, before any re-query. */
export interface InflowHint {
  providerReference: string;
  /** "" when the notification does not name it. */
  accountNumber: string;
  amountPaidKobo: Kobo;
}

export interface FundingProvider {
  readonly name: FundingProviderName;
  /** The opening may need a bank account linked to the BVN (Paystack's identification step). */
  readonly asksBankAccount?: boolean;
  /** The banks that bank account may be at, as the provider lists them (code and name). */
  listBanks?(signal: AbortSignal): Promise<FundingBank[]>;
  open(request: OpenRequest, signal: AbortSignal): Promise<OpenResult>;
  verify(providerReference: string, signal: AbortSignal): Promise<VerifyResult>;
  /** Paid inflows into this virtual account since `since`, newest first, bounded by the adapter. */
  recentInflows(account: VirtualAccountRecord, since: Date, signal: AbortSignal): Promise<ConfirmedInflow[]>;
  close(account: VirtualAccountRecord, signal: AbortSignal): Promise<void>;
  /**
   * Reads a notification as received: its signature checked over the raw bytes in constant
   * time first, then what it claims. Absent for a provider that sends none (the sandbox).
   */
  readNotification?(rawBody: Buffer, signature: string | undefined): NotificationRead;
  /**
   * Finishes an opening the provider answered later (Paystack's identification and assignment
   * events): re-queries the provider for the customer the event names and, when it is one of
   * ours and `admit` lets it, returns the accounts opened for it, or why the provider refused.
   * `admit` is asked before anything is opened (`creates`: the adapter is about to ask the
   * provider for a new account, not only read one back); false means another caller has the
   * account or is opening it (`already_open`).
   */
  completeOpening?(event: AccountEvent, admit: OpeningAdmission, signal: AbortSignal): Promise<OpeningOutcome>;
}

/** A provider's news about an account it was asked to open, as its signed notification claims it. */
export interface AccountEvent {
  kind: 'account_event';
  /** identification: the BVN check; assignment: the dedicated account itself. */
  step: 'identification' | 'assignment';
  ok: boolean;
  customerRef: string;
  /** The provider's dedicated account id, when the event names one. */
  accountRef: string;
  reason: string;
}

/** Whose wallet a provider's customer is, from what the core gave the provider at creation. */
export interface OpeningOwner {
  accountId: string;
  mode: Mode;
  kycKind: KycKind;
  kycLast4: string;
}

export type OpeningAdmission = (owner: OpeningOwner, creates: boolean) => Promise<boolean>;

export type OpeningOutcome =
  | ({ kind: 'opened'; accounts: OpenedAccount[] } & OpeningOwner)
  /** The wallet has this provider's account already (a repeated event): nothing to do. */
  | { kind: 'already_open'; accountId: string }
  | { kind: 'failed'; accountId: string; mode: Mode; reason: string }
  /** Not a customer of ours, or no certain answer: nothing changes (unknown is retried by the provider). */
  | { kind: 'not_ours' | 'unknown'; reason: string };

type NotificationRead = InflowHint | AccountEvent | 'ignored' | 'bad_signature' | 'bad_body';
