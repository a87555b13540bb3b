/**
 * Events: what a partner is told, by signed webhook and by the events feed, each time a
 * purchase reaches a final state or a wallet is credited. The store writes an event in the
 * same transaction as the change it announces (an outbox), so there is exactly one event
 * per state change in our records; deliveries are at least once, and receivers dedupe by
 * the event id.
 *
 * An event's body is rendered here once, when it is recorded, and never again: the feed,
 * the first delivery and every retry or resend carry the very same bytes, so a signature
 * is always over what was recorded, and a later change of the purchase (a reversal) never
 * rewrites what an earlier event said.
 */
import type { Mode } from './mode.js';
import { type Kobo, koboToNaira } from './money.js';
import { networkNames, type ProductName, type TransactionStatus } from './products.js';
import { randomChars } from './random.js';
import type { PlanRecord, TransactionRecord } from './records.js';

/** Every event type, in the order the OpenAPI document (gateway/openapi.ts) lists them. */
export const EVENT_TYPES = [
  'transaction.success',
  'transaction.failed',
  'transaction.reversed',
  'wallet.credited',
  'wallet.debited',
  'wallet.low_balance',
  'ping',
  'plan.updated',
  'plan.disabled',
  'key.frozen',
  'key.unfrozen',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Live and test (core/domain/mode.ts) each have their own events and webhook URL. */
export type { Mode };

/**
 * Where an event's delivery stands: `none` when the account had no webhook URL for its
 * mode when the event was recorded (the feed still has it), `pending` until a receiver
 * takes it or the retry window closes, then `delivered` or `failed`.
 */
export type DeliveryState = 'none' | 'pending' | 'delivered' | 'failed';

/** An event about to be recorded. */
export interface NewEvent {
  eventId: string;
  accountId: string;
  mode: Mode;
  type: EventType;
  /** The purchase reference or credit reference the event is about. */
  subject: string;
  /** The JSON body exactly as delivered and as the feed shows it. */
  body: string;
  createdAt: Date;
}

/** A recorded event with its delivery state. */
export interface EventRecord extends NewEvent {
  /**
   * The event's place in its account's feed: it only grows, and a writer commits events
   * in that order (each adapter says how), so polling after a seq never skips one.
   */
  seq: number;
  delivery: DeliveryState;
  attempts: number;
  /** When the next delivery attempt is due; null unless pending. */
  nextAttemptAt: Date | null;
  /** When the current run of attempts began (recorded, or resent); the retry window counts from it. */
  queuedAt: Date;
  /** HTTP status of the last attempt; 0 when it got no answer. Null before any attempt. */
  lastStatus: number | null;
  /** Why the last attempt failed, in a short sentence that names no secret. */
  lastError: string | null;
  lastAttemptAt: Date | null;
}

const HEX_DIGITS = '0123456789abcdef';

/**
 * 24 hex digits: 11 of the time in milliseconds, then 13 random (52 bits). Ids in time order
 * keep the store's unique index on them growing at its end instead of dirtying a random page
 * of it with every purchase: the embedded store's raw reserve+settle rate went from about
 * 4,700 to 7,400 a second on the development machine (about 9,000 before events existed).
 * The random part keeps ids unguessable and distinct within a millisecond.
 */
export function newEventId(now = Date.now()): string {
  const time = now.toString(16).padStart(11, '0').slice(-11);
  return `evt_${time}${randomChars(HEX_DIGITS, 13)}`;
}

/** The event a purchase's move to `status` announces; null for a state no event is sent for. */
function transactionEventType(status: TransactionStatus): EventType | null {
  switch (status) {
    case 'success':
      return 'transaction.success';
    case 'failed':
      return 'transaction.failed';
    case 'reversed':
      return 'transaction.reversed';
    default:
      return null;
  }
}

function render(id: string, type: EventType, createdAt: Date, mode: Mode, data: unknown): string {
  return JSON.stringify({ id, type, created_at: createdAt.toISOString(), livemode: mode === 'live', data });
}

/** The event for a purchase that just reached a final state; null for a move no event announces. */
export function transactionEvent(tx: TransactionRecord, mode: Mode, at: Date, eventId = newEventId()): NewEvent | null {
  const type = transactionEventType(tx.status);
  if (type === null) return null;
  return {
    eventId,
    accountId: tx.accountId,
    mode,
    type,
    subject: tx.reference,
    body: render(eventId, type, at, mode, { transaction: publicTransaction(tx) }),
    createdAt: at,
  };
}

/** What a wallet credit tells: the credit reference, its amount and the balance after it, in Naira. */
export interface CreditFacts {
  accountId: string;
  reference: string;
  amountKobo: Kobo;
  balanceKobo: Kobo;
  memo: string;
  /** A bank transfer's facts; absent for a credit the operator made. */
  funding?: FundingFacts | undefined;
}

/** What a credit from a bank transfer adds to its event: who paid, through whom, and the fee. */
export interface FundingFacts {
  provider: string;
  providerReference: string;
  amountPaidKobo: Kobo;
  feeKobo: Kobo;
  payerName: string;
}

export function creditEvent(credit: CreditFacts, mode: Mode, at: Date, eventId = newEventId()): NewEvent {
  const base = {
    reference: credit.reference,
    amount: koboToNaira(credit.amountKobo),
    balance: koboToNaira(credit.balanceKobo),
    memo: credit.memo,
  };
  const funding = credit.funding;
  const data =
    funding === undefined
      ? { ...base, source: 'operator' }
      : {
          ...base,
          source: 'bank_transfer',
          funding: {
            provider: funding.provider,
            provider_reference: funding.providerReference,
            amount_paid: koboToNaira(funding.amountPaidKobo),
            fee: koboToNaira(funding.feeKobo),
            payer_name: funding.payerName,
          },
        };
  return {
    eventId,
    accountId: credit.accountId,
    mode,
    type: 'wallet.credited',
    subject: credit.reference,
    body: render(eventId, 'wallet.credited', at, mode, data),
    createdAt: at,
  };
}

/** What a manual debit tells: its reference, amount, the balance after it and the operator's reason. */
export interface DebitFacts {
  accountId: string;
  reference: string;
  amountKobo: Kobo;
  balanceKobo: Kobo;
  reason: string;
}

/**
 * `wallet.debited`: the operator took money out of the wallet (a manual debit, never a
 * purchase: purchases have transaction events). Written in the debit's own transaction.
 */
export function debitEvent(debit: DebitFacts, mode: Mode, at: Date, eventId = newEventId()): NewEvent {
  const data = {
    reference: debit.reference,
    amount: koboToNaira(debit.amountKobo),
    balance: koboToNaira(debit.balanceKobo),
    reason: debit.reason,
    source: 'operator',
  };
  return {
    eventId,
    accountId: debit.accountId,
    mode,
    type: 'wallet.debited',
    subject: debit.reference,
    body: render(eventId, 'wallet.debited', at, mode, data),
    createdAt: at,
  };
}

/**
 * A debit took the wallet from at or above the holder's threshold to below it (see
 * crossesLowBalance in core/domain/funding.ts); written in the debit's own transaction.
 */
export function lowBalanceEvent(
  accountId: string,
  mode: Mode,
  balanceKobo: Kobo,
  thresholdKobo: Kobo,
  subject: string,
  at: Date,
): NewEvent {
  const eventId = newEventId();
  const data = { balance: koboToNaira(balanceKobo), threshold: koboToNaira(thresholdKobo) };
  return {
    eventId,
    accountId,
    mode,
    type: 'wallet.low_balance',
    subject,
    body: render(eventId, 'wallet.low_balance', at, mode, data),
    createdAt: at,
  };
}

/**
 * `key.frozen` and `key.unfrozen`: a key pair of the account was frozen (the velocity brake,
 * or by hand) or unfrozen, written in the freeze's own transaction, in the key's mode. The
 * subject is the public key; the reason is the brake's words or the operator's.
 */
export function keyFreezeEvent(
  key: { publicKey: string; accountId: string; mode: Mode },
  change: { type: 'key.frozen'; at: Date; reason: string; by: string } | { type: 'key.unfrozen'; at: Date; by: string },
  eventId = newEventId(),
): NewEvent {
  const data: Record<string, unknown> = { public_key: key.publicKey };
  if (change.type === 'key.frozen') {
    data['reason'] = change.reason;
    // Who froze it, without a person's address: the brake, the operator or the platform's staff.
    data['frozen_by'] = change.by === 'velocity' ? 'velocity_brake' : change.by === 'cli' ? 'operator' : 'staff';
  } else {
    data['unfrozen_by'] = change.by.startsWith('owner:') ? 'owner' : change.by === 'cli' ? 'operator' : 'staff';
  }
  return {
    eventId,
    accountId: key.accountId,
    mode: key.mode,
    type: change.type,
    subject: key.publicKey,
    body: render(eventId, change.type, change.at, key.mode, data),
    createdAt: change.at,
  };
}

/**
 * A data plan exactly as `?action=plans` shows it to an account (gateway/actions/plans.ts
 * builds the same object from the core's message; test/gateway/plan-events.test.ts holds
 * the two equal): its facts and the account's tier price, under its canonical network.
 */
export function publicPlan(plan: PlanRecord, priceKobo: Kobo): Record<string, unknown> {
  return {
    plan_id: plan.planId,
    network: plan.network,
    network_names: networkNames(plan.network),
    plan: plan.label,
    validity: plan.validity,
    price: koboToNaira(priceKobo),
    type: plan.type,
    size_mb: plan.sizeMb,
    validity_days: plan.validityDays,
  };
}

/**
 * A plan's change for one account: `plan.updated` when it is on sale with new facts or a new
 * price for the account's tier (or back on sale), `plan.disabled` when it stopped being on
 * sale; `plan` is publicPlan's object. Written in the transaction of the change (an outbox).
 */
export function planEvent(
  type: 'plan.updated' | 'plan.disabled',
  accountId: string,
  plan: Record<string, unknown>,
  at: Date,
  eventId = newEventId(at.getTime()),
): NewEvent {
  return {
    eventId,
    accountId,
    mode: 'live',
    type,
    subject: `plan:${String(plan['plan_id'])}`,
    body: render(eventId, type, at, 'live', { plan }),
    createdAt: at,
  };
}

/** A test event on demand, so an operator or holder can check a receiver. */
export function pingEvent(accountId: string, mode: Mode, at: Date): NewEvent {
  const eventId = newEventId();
  return {
    eventId,
    accountId,
    mode,
    type: 'ping',
    subject: eventId,
    body: render(eventId, 'ping', at, mode, { message: 'A test event.' }),
    createdAt: at,
  };
}

/**
 * A transaction exactly as `?action=transaction` shows it (gateway/actions/views.ts builds
 * the same object from the core's message; test/webhooks/feed.test.ts holds the two
 * equal). Every key is present, null where it does not apply.
 */
function publicTransaction(tx: TransactionRecord): Record<string, unknown> {
  const product: ProductName = tx.product;
  const orNull = (text: string | undefined) => (text === undefined || text === '' ? null : text);
  return {
    reference: tx.reference,
    product,
    status: tx.status,
    service: tx.service,
    recipient: orNull(tx.recipient),
    amount: koboToNaira(tx.faceValueKobo),
    charged: koboToNaira(tx.chargedKobo),
    plan_id: product === 'data' && (tx.details.planId ?? 0) > 0 ? tx.details.planId : null,
    plan: product === 'data' ? orNull(tx.details.planLabel) : null,
    package: product === 'cable' ? orNull(tx.details.planLabel) : null,
    package_code: product === 'cable' ? orNull(tx.details.packageCode) : null,
    meter_type: orNull(tx.details.meterType),
    token: orNull(tx.result?.token),
    units: orNull(tx.result?.units),
    kct_tokens: product === 'electricity' ? [...(tx.result?.kctTokens ?? [])] : null,
    bonus_tokens: product === 'electricity' ? [...(tx.result?.bonusTokens ?? [])] : null,
    sent: product === 'bulksms' ? (tx.result?.sent ?? tx.details.recipients?.length ?? 0) : null,
    pages: product === 'bulksms' ? (tx.details.pages ?? 0) : null,
    failure_reason: orNull(tx.failureReason ?? undefined),
    request_id: orNull(tx.requestId ?? undefined),
    created_at: tx.createdAt.toISOString(),
    updated_at: tx.updatedAt.toISOString(),
    livemode: tx.mode === 'live',
  };
}

/** The retry schedule of deliveries (see `nextDeliveryAt`). */
export interface DeliverySchedule {
  /** The wait after the first failed attempt; each later wait doubles. */
  baseMs: number;
  /** No wait is longer than this. */
  maxMs: number;
  /** After this long since the event was queued, a failed attempt is the last one. */
  giveUpAfterMs: number;
}

/** An hour between attempts at most, for three days: a receiver down over a weekend still gets everything. */
export const DEFAULT_DELIVERY_SCHEDULE: DeliverySchedule = {
  baseMs: 60_000,
  maxMs: 60 * 60_000,
  giveUpAfterMs: 72 * 60 * 60_000,
};

/**
 * When to try again after failed attempt number `attempts` (1 for the first), or null when
 * the retry window since `queuedAt` is over and the event is to be marked failed.
 */
export function nextDeliveryAt(attempts: number, queuedAt: Date, now: Date, schedule: DeliverySchedule): Date | null {
  if (now.getTime() - queuedAt.getTime() >= schedule.giveUpAfterMs) return null;
  const exponent = Math.min(Math.max(attempts - 1, 0), 40);
  const waitMs = Math.min(schedule.maxMs, schedule.baseMs * 2 ** exponent);
  return new Date(now.getTime() + waitMs);
}

/**
 * Where an account's events of one mode are delivered. The signing secret is kept as it is
 * (a signature needs it, so it cannot be hashed like an API key); it is shown once, when
 * set or rotated, and never logged. During a rotation the previous secret signs too, until
 * `previousSecretUntil`.
 */
export interface WebhookEndpointRecord {
  accountId: string;
  mode: Mode;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** What one delivery attempt ended with. */
export interface AttemptOutcome {
  /** pending: it failed and is retried at nextAttemptAt. */
  delivery: 'delivered' | 'pending' | 'failed';
  /** The receiver's HTTP status; 0 when there was no answer. */
  status: number;
  error: string | null;
  at: Date;
  nextAttemptAt: Date | null;
}

/**
 * How a newly recorded event starts, the same on every store: queued for delivery at once when
 * the account has an enabled webhook for the event's mode (or the caller forces it, as a
 * test event does), else recorded for the feed only and never delivered.
 */
export function initialDelivery(
  webhookEnabled: boolean,
  forced: boolean,
  createdAt: Date,
): { delivery: 'pending' | 'none'; nextAttemptAt: Date | null } {
  return forced || webhookEnabled
    ? { delivery: 'pending', nextAttemptAt: createdAt }
    : { delivery: 'none', nextAttemptAt: null };
}

/**
 * When an event is next due after an attempt: at the retry time the worker chose (or at once
 * if it chose none) while it is still pending; never once delivered or given up.
 */
export function nextDueAfter(outcome: AttemptOutcome): Date | null {
  return outcome.delivery === 'pending' ? (outcome.nextAttemptAt ?? outcome.at) : null;
}
