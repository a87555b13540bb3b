/**
 * Money in, the use cases: open a wallet's virtual accounts, take a provider's notification
 * (a hint: re-query, then credit only what the provider confirms), sweep for inflows no
 * notification brought and finish credits a crash interrupted, and the operator's and
 * holder's reads and decisions (unmatched inflows, assign, reject, low-balance threshold).
 *
 * Exactly once: every inflow is one store row per (provider, provider reference) under a
 * unique constraint, and its credit is one store transaction with the ledger entry and the
 * `wallet.credited` event, conditional on the row's status (core/store/port.ts FundingStore).
 */

import { DomainError, invalid, notFound } from '../domain/errors.js';
import {
  type FundingFee,
  type FundingProviderName,
  fundingFeeKobo,
  type InflowRecord,
  isFundingProvider,
  isInflowId,
  type KycInput,
  newInflowId,
  type VirtualAccountRecord,
  validateKyc,
} from '../domain/funding.js';
import type { Mode } from '../domain/mode.js';
import { type Kobo, MAX_AMOUNT_KOBO } from '../domain/money.js';
import { refuseUnverifiedLive } from '../domain/sign-up.js';
import type { InflowCreditMove } from '../store/moves.js';
import type { CreditInflowResult, Store } from '../store/port.js';
import { kycHash, kycLast4, withoutIdentityNumbers } from './kyc.js';
import type {
  AccountEvent,
  ConfirmedInflow,
  FundingBank,
  FundingProvider,
  InflowHint,
  OpeningAdmission,
  OpeningOutcome,
} from './port.js';
import type { SandboxFunding } from './sandbox.js';
import { testTransfers } from './test-transfer.js';

/** How long one provider call may take before its answer counts as unknown. */
const FUNDING_PROVIDER_TIMEOUT_MS = 15_000;
/**
 * How far back the sweeper asks each provider for inflows: a day covers Paystack's and Monnify's retry windows
 * of a lost notification's first hours; the providers' own resend covers the rest.
 */
const SWEEP_LOOKBACK_MS = 24 * 60 * 60 * 1000;
/** Verified inflows the sweeper finishes per run, and unmatched ones a list shows. */
export const MAX_INFLOWS_PER_RUN = 500;
/** The audit action of a provider's refusal to open a wallet's account (shown to its owner). */
const OPENING_FAILED = 'funding.opening_failed';
/**
 * How long a core's claim on an opening holds before another core may take it over: far longer
 * than the provider calls of one opening take (two of FUNDING_PROVIDER_TIMEOUT_MS), so only a
 * claimer that died loses it; shorter than Paystack's live retry interval of 3 minutes.
 */
const OPENING_CLAIM_LEASE_MS = 2 * 60 * 1000;
/** How long a provider's bank list is kept: banks join and leave Paystack's list rarely. */
const BANK_LIST_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a failed bank list read is remembered, so a provider outage is not asked on every page view. */
const BANK_LIST_RETRY_MS = 5 * 60 * 1000;
/** Funding credits the Fund wallet page and `funding accounts` show. */
const RECENT_CREDITS = 20;

type NotifyOutcome =
  | 'credited'
  | 'already_credited'
  | 'unmatched'
  | 'not_paid'
  /** The provider gave no certain answer; nothing recorded, the sweeper or a retry tries again. */
  | 'unknown'
  | 'rejected';

export interface FundingObserver {
  inflow(provider: FundingProviderName, outcome: NotifyOutcome, creditedKobo: number): void;
  sweep(ok: boolean, at: Date): void;
}

export interface FundingDeps {
  store: Pick<Store, 'accounts' | 'funding' | 'ledger' | 'auditLog' | 'kyc'>;
  /** The providers each mode opens accounts with; test mode has only the sandbox. */
  providers: { live: FundingProvider[]; test: FundingProvider[] };
  /** The sandbox, which `simulateTransfer` drives. */
  sandbox: SandboxFunding;
  fee: FundingFee;
  /** The key of the identity numbers' keyed hash (core/funding/kyc.ts). */
  kycKey: string;
  clock: () => Date;
  log: (event: string, fields: Record<string, unknown>) => void;
  observer?: FundingObserver;
}

interface FundingOverview {
  accounts: VirtualAccountRecord[];
  fee: FundingFee;
  lowBalanceThresholdKobo: Kobo | null;
  recentCredits: InflowRecord[];
  /** Each provider's latest refusal to open an account for this wallet, unless it opened one since. */
  refusals: OpeningRefusal[];
  /** A provider of this mode asks for a bank account linked to the BVN when opening. */
  bankAccountAsked: boolean;
  /** Some provider takes bank transfers for this mode; false: a live wallet without one has no account to show. */
  transfersOpen: boolean;
}

/** A provider's refusal to open a wallet's account: at once (the identity) or later (Paystack's identification). */
export interface OpeningRefusal {
  provider: FundingProviderName;
  at: Date;
  /** The provider's reason, identity numbers withheld (withoutIdentityNumbers). */
  reason: string;
  /** `open` (refused when asked), `identification` or `assignment` (a later answer). */
  step: string;
}

/** A provider's refusal of the identity itself, as its adapter throws it: a field error. */
/** FUNDING_SANDBOX_LIVE=on: the sandbox bank is among the live providers, so its transfers may credit live wallets. */
function sandboxServesLive(deps: FundingDeps): boolean {
  return deps.providers.live.some((p) => p.name === 'sandbox');
}

/** Opening an account for a mode no funding provider serves (live, without Paystack or Monnify). */
function noProvider(mode: Mode): DomainError {
  return new DomainError(
    'FAILED_PRECONDITION',
    `No funding provider takes bank transfers for ${mode} wallets on this platform yet; ` +
      'ask the operator to fund the wallet another way.',
  );
}

function isRefusal(error: unknown): error is DomainError {
  return error instanceof DomainError && error.code === 'INVALID_PARAMETER';
}

function signal(): AbortSignal {
  return AbortSignal.timeout(FUNDING_PROVIDER_TIMEOUT_MS);
}

/** A provider's refusal, kept in the audit log (actor `system`) for the owner and the operator to read. */
async function recordRefusal(
  { store, clock }: Pick<FundingDeps, 'store' | 'clock'>,
  provider: FundingProviderName,
  accountId: string,
  mode: Mode,
  step: string,
  reason: string,
): Promise<OpeningRefusal> {
  const refusal = { provider, at: clock(), reason: withoutIdentityNumbers(reason), step };
  await store.auditLog.append({
    at: refusal.at,
    actor: 'system',
    action: OPENING_FAILED,
    target: accountId,
    before: null,
    after: JSON.stringify({ provider, mode, step }),
    address: null,
    note: refusal.reason,
  });
  return refusal;
}

/** Each provider's latest refusal of an opening for this wallet, unless that provider opened an account after it. */
async function openingRefusals(
  store: FundingDeps['store'],
  accountId: string,
  mode: Mode,
  accounts: VirtualAccountRecord[],
): Promise<OpeningRefusal[]> {
  const entries = await store.auditLog.list({ action: OPENING_FAILED, target: accountId, limit: 20 });
  const latest = new Map<string, OpeningRefusal>();
  for (const entry of entries.sort((a, b) => b.at.getTime() - a.at.getTime())) {
    const after = JSON.parse(entry.after ?? '{}') as { provider?: string; mode?: string; step?: string };
    if (after.mode !== mode || !isFundingProvider(after.provider ?? '') || latest.has(after.provider!)) continue;
    latest.set(after.provider!, {
      provider: after.provider as FundingProviderName,
      at: entry.at,
      // Refusals kept before their reasons were cleaned are cleaned as they are read.
      reason: withoutIdentityNumbers(entry.note),
      step: after.step ?? '',
    });
  }
  return [...latest.values()].filter(
    (refusal) =>
      !accounts.some((a) => a.provider === refusal.provider && a.status === 'active' && a.createdAt >= refusal.at),
  );
}

/**
 * Paystack and Monnify open a dedicated account only for an identity they can stand behind, so a
 * live wallet gets one from identity level 2 (docs/kyc.md); the sandbox bank, when it serves live
 * wallets (FUNDING_SANDBOX_LIVE), opens at level 1, so every limit can be tried end to end.
 */
/** The identity level from which Paystack and Monnify open a live wallet's dedicated account. */
const ACCOUNT_OPENING_LEVEL = 2;

async function refuseBelowAccountLevel(deps: FundingDeps, accountId: string, mode: Mode): Promise<void> {
  if (mode !== 'live' || deps.providers.live.every((p) => p.name === deps.sandbox.name)) return;
  const standing = await deps.store.kyc.levelOf(accountId);
  if (standing === null || standing.level >= ACCOUNT_OPENING_LEVEL) return;
  throw new DomainError(
    'VERIFICATION_REQUIRED',
    `A bank account for transfers opens at identity level ${ACCOUNT_OPENING_LEVEL}: ask for it with your BVN or NIN ` +
      '(the developer area, Verify). Once it is approved, this page opens the account.',
  );
}

/**
 * Opens the wallet's accounts with one provider. A refusal of the identity (the adapter's
 * field error: Monnify refusing the BVN, Paystack's identification refused at once) is kept
 * for the Fund wallet page and `funding accounts`, and the other providers are still asked.
 */
async function openWith(
  deps: FundingDeps,
  provider: FundingProvider,
  accountId: string,
  mode: Mode,
  kyc: ReturnType<typeof validateKyc>,
  accountsSaved: AccountsSaved,
): Promise<
  { kind: 'opened' } | { kind: 'pending'; reason: string } | { kind: 'refused'; refusal: OpeningRefusal; field: string }
> {
  const { store, clock, log } = deps;
  const identity = {
    kycKind: kyc.kind,
    kycLast4: kycLast4(kyc.number),
    kycHash: kycHash(deps.kycKey, kyc.kind, kyc.number),
  };
  // Kept before the provider is asked for a step it answers later, so the answer finds it.
  const beforeLaterAnswer = (customerRef: string) =>
    store.funding.saveOpening({
      provider: provider.name,
      customerRef,
      accountId,
      mode,
      ...identity,
      createdAt: clock(),
    });
  let result: Awaited<ReturnType<FundingProvider['open']>>;
  try {
    result = await provider.open({ accountId, mode, kyc, beforeLaterAnswer }, signal());
  } catch (error) {
    if (!isRefusal(error)) throw error;
    log('funding.opening_failed', { level: 'warn', provider: provider.name, account_id: accountId, step: 'open' });
    const refusal = await recordRefusal(deps, provider.name, accountId, mode, 'open', error.message);
    return { kind: 'refused', refusal, field: error.violations[0]?.field ?? kyc.kind };
  }
  if (result.kind === 'pending') return result;
  for (const opened of result.accounts) {
    await store.funding.saveVirtualAccount({
      provider: provider.name,
      ...opened,
      accountId,
      mode,
      status: 'active',
      ...identity,
      createdAt: clock(),
    });
  }
  log('funding.accounts_opened', {
    account_id: accountId,
    mode,
    provider: provider.name,
    count: result.accounts.length,
  });
  await accountsSaved(
    provider.name,
    result.accounts.map((a) => a.accountNumber),
  );
  return { kind: 'opened' };
}

/** Told of virtual accounts just saved, so inflows that came before them are matched (createFundingService). */
type AccountsSaved = (provider: FundingProviderName, accountNumbers: readonly string[]) => Promise<void>;

/** A notification's outcome, counted, and an unmatched inflow warned about. */
function told(
  deps: FundingDeps,
  provider: FundingProviderName,
  outcome: NotifyOutcome,
  inflow: InflowRecord | null,
): NotifyOutcome {
  deps.observer?.inflow(provider, outcome, outcome === 'credited' && inflow !== null ? inflow.creditedKobo : 0);
  if (outcome === 'unmatched' && inflow !== null) {
    // Warn: money arrived that no wallet received; a person must assign or reject it.
    deps.log('funding.unmatched', {
      level: 'warn',
      inflow_id: inflow.inflowId,
      provider,
      provider_reference: inflow.providerReference,
      reason: inflow.reason,
    });
  }
  return outcome;
}

/** The provider's customer key of a virtual account (Paystack's carries `#<dedicated account id>` after it). */
function customerOf(account: VirtualAccountRecord): string {
  return account.providerCustomerRef.split('#')[0] ?? '';
}

/** Why an unmatched inflow whose account number no wallet had then was kept; the one reason an assignment ends. */
const NO_ACCOUNT = 'no virtual account has this number';
/**
 * Reasons a later look cannot end: the notification contradicted the provider, and only a person can say which
 * was right. Every other reason is found again whenever the inflow is seen again.
 */
const DISAGREEMENTS: ReadonlySet<string> = new Set([
  'the notification and the provider disagree on the amount',
  'the notification and the provider disagree on the account',
]);

/** Why a confirmed inflow cannot be credited to the account it names, or '' when it can. */
function inflowRefusal(
  confirmed: ConfirmedInflow,
  hint: InflowHint | null,
  account: VirtualAccountRecord | null,
): string {
  let reason = '';
  if (hint !== null && hint.amountPaidKobo !== confirmed.amountPaidKobo)
    reason = 'the notification and the provider disagree on the amount';
  else if (
    hint !== null &&
    hint.accountNumber !== '' &&
    confirmed.accountNumber !== '' &&
    hint.accountNumber !== confirmed.accountNumber
  )
    reason = 'the notification and the provider disagree on the account';
  else if (account === null) reason = NO_ACCOUNT;
  else if (account.status !== 'active') reason = 'the virtual account is closed';
  else if (confirmed.customerRef !== '' && customerOf(account) !== confirmed.customerRef)
    reason = 'the provider says another customer was paid';
  else if (confirmed.amountPaidKobo < 1 || confirmed.amountPaidKobo > MAX_AMOUNT_KOBO)
    reason = 'the amount is outside what a wallet takes';
  return reason;
}

/** What a credit of a verified inflow came to, logged and counted (the journal tells the webhook worker). */
function afterCredit(deps: FundingDeps, inflow: InflowRecord, result: CreditInflowResult): NotifyOutcome {
  switch (result.outcome) {
    case 'credited':
      deps.log('funding.credited', {
        inflow_id: result.inflow.inflowId,
        account_id: result.inflow.accountId,
        mode: result.inflow.mode,
        provider: result.inflow.provider,
        provider_reference: result.inflow.providerReference,
        credited_kobo: result.inflow.creditedKobo,
        fee_kobo: result.inflow.feeKobo,
      });
      return told(deps, inflow.provider, 'credited', result.inflow);
    case 'already_credited':
      return told(deps, inflow.provider, 'already_credited', result.inflow);
    default:
      return told(deps, inflow.provider, 'unmatched', null);
  }
}

/**
 * An unmatched inflow seen again (the provider's retry, the sweeper, its account assigned since): its reason
 * found again from what the provider confirmed now and the virtual accounts now kept, so a transfer that came
 * before its account's assignment is credited once the account is there, and the reason shown stays true.
 * A disagreement between the notification and the provider stays for a person to settle.
 */
async function reconsider(
  deps: FundingDeps,
  inflow: InflowRecord,
  confirmed: ConfirmedInflow,
  hint: InflowHint | null,
): Promise<NotifyOutcome> {
  const { store, clock, log } = deps;
  const accountNumber = confirmed.accountNumber || hint?.accountNumber || inflow.accountNumber;
  if (DISAGREEMENTS.has(inflow.reason) || (inflow.accountNumber !== '' && accountNumber !== inflow.accountNumber))
    return told(deps, inflow.provider, 'unmatched', null);
  const account = accountNumber === '' ? null : await store.funding.findVirtualAccount(inflow.provider, accountNumber);
  const reason = inflowRefusal(confirmed, hint, account);
  if (reason === '') {
    const result = await store.ledger.post({
      kind: 'inflow_credit',
      inflowId: inflow.inflowId,
      credit: {
        accountId: account!.accountId,
        mode: account!.mode,
        feeKobo: fundingFeeKobo(inflow.amountPaidKobo, deps.fee),
        at: clock(),
      },
      from: 'unmatched',
    });
    if (result.outcome === 'credited')
      log('funding.matched_later', { inflow_id: inflow.inflowId, account_id: account!.accountId });
    return afterCredit(deps, inflow, result);
  }
  if (reason === inflow.reason) return told(deps, inflow.provider, 'unmatched', null);
  const changed = await store.funding.reconsiderInflow(inflow.inflowId, reason, clock());
  return told(deps, inflow.provider, 'unmatched', changed?.status === 'unmatched' ? changed : null);
}

/**
 * Looks again at unmatched inflows into these account numbers (or, with none given, at those kept because no
 * wallet had their number, wherever one has it now): each re-queried first, never credited on the record alone.
 */
async function reexamine(
  deps: FundingDeps,
  byName: ReadonlyMap<FundingProviderName, FundingProvider>,
  take: (provider: FundingProviderName, confirmed: ConfirmedInflow, hint: null) => Promise<NotifyOutcome>,
  provider: FundingProviderName | null,
  accountNumbers: readonly string[] | null,
): Promise<number> {
  const { store } = deps;
  let credited = 0;
  for (const inflow of await store.funding.listInflows('unmatched', MAX_INFLOWS_PER_RUN)) {
    if (provider !== null && inflow.provider !== provider) continue;
    if (accountNumbers !== null ? !accountNumbers.includes(inflow.accountNumber) : inflow.reason !== NO_ACCOUNT)
      continue;
    if (DISAGREEMENTS.has(inflow.reason) || inflow.accountNumber === '') continue;
    if (
      accountNumbers === null &&
      (await store.funding.findVirtualAccount(inflow.provider, inflow.accountNumber)) === null
    )
      continue;
    const source = byName.get(inflow.provider);
    if (source === undefined) continue;
    const verified = await source.verify(inflow.providerReference, signal());
    if (verified.kind !== 'paid' || verified.inflow.providerReference !== inflow.providerReference) continue;
    if ((await take(inflow.provider, verified.inflow, null)) === 'credited') credited++;
  }
  return credited;
}

/** Inflows in: a notification re-queried, a confirmed inflow recorded and credited when it is ours. */
function createIntake(
  deps: FundingDeps,
  byName: ReadonlyMap<FundingProviderName, FundingProvider>,
  providerOf: (name: FundingProviderName) => FundingProvider,
) {
  const { store, clock, log } = deps;

  /** Records a confirmed inflow (or finds it recorded) and credits it when it is ours and agrees. */
  async function take(
    provider: FundingProviderName,
    confirmed: ConfirmedInflow,
    hint: InflowHint | null,
  ): Promise<NotifyOutcome> {
    // Monnify's re-query names the customer paid but not which of their NUBANs: the signed
    // notification names it, and the customer it belongs to must be the one the provider names.
    const accountNumber = confirmed.accountNumber || hint?.accountNumber || '';
    const account = accountNumber === '' ? null : await store.funding.findVirtualAccount(provider, accountNumber);
    const reason = inflowRefusal(confirmed, hint, account);
    const now = clock();
    // A new verified inflow is recorded and credited in one store operation (one commit).
    const { inflow, created, credit } = await store.ledger.post({
      kind: 'inflow_record',
      inflow: {
        inflowId: newInflowId(),
        provider,
        providerReference: confirmed.providerReference,
        accountNumber,
        accountId: reason === '' ? account!.accountId : null,
        mode: account?.mode ?? 'live',
        amountPaidKobo: confirmed.amountPaidKobo,
        payerName: confirmed.payerName.slice(0, 200),
        status: reason === '' ? 'verified' : 'unmatched',
        reason,
        raw: confirmed.raw.slice(0, 16_000),
        createdAt: now,
      },
      credit: { feeKobo: fundingFeeKobo(confirmed.amountPaidKobo, deps.fee), at: now },
    });
    if (credit !== null) return afterCredit(deps, inflow, credit);
    if (!created && inflow.amountPaidKobo !== confirmed.amountPaidKobo) {
      // The same reference with another amount: the first record stands and nothing moves.
      log('funding.reference_amount_differs', {
        level: 'warn',
        inflow_id: inflow.inflowId,
        provider,
        provider_reference: inflow.providerReference,
      });
      return told(deps, provider, 'unmatched', null);
    }
    if (inflow.status === 'credited') return told(deps, provider, 'already_credited', inflow);
    if (inflow.status === 'rejected') return told(deps, provider, 'rejected', inflow);
    if (inflow.status === 'unmatched')
      return created ? told(deps, provider, 'unmatched', inflow) : reconsider(deps, inflow, confirmed, hint);
    return creditVerified(inflow);
  }

  async function creditVerified(inflow: InflowRecord): Promise<NotifyOutcome> {
    const feeKobo = fundingFeeKobo(inflow.amountPaidKobo, deps.fee);
    const result = await store.ledger.post({
      kind: 'inflow_credit',
      inflowId: inflow.inflowId,
      credit: { accountId: inflow.accountId!, mode: inflow.mode, feeKobo, at: clock() },
      from: 'verified',
    });
    return afterCredit(deps, inflow, result);
  }

  /** A provider's notification, its signature already checked: re-query, then credit what the provider confirms. */
  async function notify(providerName: FundingProviderName, hint: InflowHint): Promise<NotifyOutcome> {
    const provider = providerOf(providerName);
    const known = await store.funding.findInflow(providerName, hint.providerReference);
    if (known?.status === 'credited') return told(deps, providerName, 'already_credited', known);
    const verified = await provider.verify(hint.providerReference, signal());
    if (verified.kind !== 'paid') {
      log('funding.not_confirmed', {
        provider: providerName,
        provider_reference: hint.providerReference,
        kind: verified.kind,
        reason: verified.reason,
      });
      return told(deps, providerName, verified.kind === 'unknown' ? 'unknown' : 'not_paid', null);
    }
    if (verified.inflow.providerReference !== hint.providerReference) {
      return told(deps, providerName, 'not_paid', null);
    }
    return take(providerName, verified.inflow, hint);
  }

  return {
    take,
    creditVerified,
    notify,
    reexamine: (provider: FundingProviderName | null, accountNumbers: readonly string[] | null) =>
      reexamine(deps, byName, take, provider, accountNumbers),
  };
}

/** The accounts of an opening the provider finished, saved with the identity the opening kept. */
async function saveOpened(
  deps: FundingDeps,
  provider: FundingProviderName,
  customerRef: string,
  outcome: Extract<OpeningOutcome, { kind: 'opened' }>,
): Promise<void> {
  const { store, clock } = deps;
  // The identity as the request that started the opening kept it (last four digits and
  // keyed hash); an opening started before it was kept has the provider's copy of the
  // last four digits only.
  const kept = await store.funding.getOpening(provider, customerRef);
  const identity =
    kept !== null && kept.accountId === outcome.accountId && kept.mode === outcome.mode
      ? { kycKind: kept.kycKind, kycLast4: kept.kycLast4, kycHash: kept.kycHash }
      : { kycKind: outcome.kycKind, kycLast4: outcome.kycLast4, kycHash: '' };
  for (const opened of outcome.accounts) {
    // A number recorded already (by a copy that read the same account back, or closed by
    // us) is left as it is: an event never reopens or moves an account.
    if ((await store.funding.findVirtualAccount(provider, opened.accountNumber)) !== null) continue;
    await store.funding.saveVirtualAccount({
      provider,
      ...opened,
      accountId: outcome.accountId,
      mode: outcome.mode,
      status: 'active',
      ...identity,
      createdAt: clock(),
    });
  }
}

/** A provider's later answers to openings, one per customer at a time in this core. */
function createAccountEvents(deps: FundingDeps, accountsSaved: AccountsSaved) {
  const { store, clock, log } = deps;
  /** Account events in progress, by provider and customer (accountEvent). */
  const openings = new Map<string, Promise<void>>();

  /**
   * A provider's later answer to an opening (Paystack's identification and assignment events):
   * the accounts it opened are saved, a refusal is kept in the audit log for the owner to read
   * on the Fund wallet page, and a repeated event changes nothing.
   */
  function accountEvent(provider: FundingProvider, event: AccountEvent): Promise<'account_event' | 'unknown'> {
    // One event per customer at a time in this core, so its copies wait for each other instead
    // of all asking the store; across cores the store's claim on the opening decides.
    const key = `${provider.name}:${event.customerRef}`;
    const previous = openings.get(key) ?? Promise.resolve();
    const run = previous.then(
      () => applyAccountEvent(provider, event),
      () => applyAccountEvent(provider, event),
    );
    const settled = run.then(
      () => {},
      () => {},
    );
    openings.set(key, settled);
    void settled.then(() => {
      if (openings.get(key) === settled) openings.delete(key);
    });
    return run;
  }

  async function applyAccountEvent(
    provider: FundingProvider,
    event: AccountEvent,
  ): Promise<'account_event' | 'unknown'> {
    if (provider.completeOpening === undefined) return 'account_event';
    let claimed = false;
    // The store decides who opens: copies of the event at several cores sharing one store each
    // ask, and only the one whose claim the store grants asks the provider for an account.
    const admit: OpeningAdmission = async (owner, creates) => {
      const accounts = await store.funding.listVirtualAccounts(owner.accountId, owner.mode);
      if (accounts.some((a) => a.provider === provider.name && a.status === 'active')) return false;
      if (!creates) return true;
      const now = clock();
      const claim = await store.funding.claimOpening(
        { provider: provider.name, customerRef: event.customerRef, ...owner, kycHash: '', createdAt: now },
        now,
        new Date(now.getTime() - OPENING_CLAIM_LEASE_MS),
      );
      claimed = claim !== null;
      return claimed;
    };
    let outcome: OpeningOutcome;
    try {
      outcome = await provider.completeOpening(event, admit, signal());
    } catch (error) {
      if (claimed) await store.funding.finishOpening(provider.name, event.customerRef, 'pending', clock());
      throw error;
    }
    if (claimed && outcome.kind !== 'opened')
      await store.funding.finishOpening(provider.name, event.customerRef, 'pending', clock());
    switch (outcome.kind) {
      case 'unknown':
        log('funding.opening_unconfirmed', { level: 'warn', provider: provider.name, reason: outcome.reason });
        return 'unknown';
      case 'not_ours':
      case 'already_open':
        return 'account_event';
      case 'failed':
        log('funding.opening_failed', {
          level: 'warn',
          provider: provider.name,
          account_id: outcome.accountId,
          step: event.step,
        });
        await recordRefusal(deps, provider.name, outcome.accountId, outcome.mode, event.step, outcome.reason);
        return 'account_event';
      case 'opened': {
        await saveOpened(deps, provider.name, event.customerRef, outcome);
        await accountsSaved(
          provider.name,
          outcome.accounts.map((a) => a.accountNumber),
        );
        if (claimed) await store.funding.finishOpening(provider.name, event.customerRef, 'opened', clock());
        log('funding.accounts_opened', {
          account_id: outcome.accountId,
          mode: outcome.mode,
          provider: provider.name,
          count: outcome.accounts.length,
          step: event.step,
        });
        return 'account_event';
      }
    }
  }

  return accountEvent;
}

/** Each provider's bank list, kept for BANK_LIST_TTL_MS; one read at a time however many pages ask. */
function createBankLists(deps: FundingDeps): (provider: FundingProvider) => Promise<FundingBank[]> {
  const { clock, log } = deps;
  const bankLists = new Map<FundingProviderName, { until: number; banks: Promise<FundingBank[]> }>();

  function banksOf(provider: FundingProvider): Promise<FundingBank[]> {
    const now = clock().getTime();
    const kept = bankLists.get(provider.name);
    if (kept !== undefined && kept.until > now) return kept.banks;
    const entry = {
      until: now + BANK_LIST_TTL_MS,
      banks: (provider.listBanks?.(signal()) ?? Promise.resolve([])).catch((error: unknown) => {
        log('funding.bank_list_failed', {
          level: 'warn',
          provider: provider.name,
          reason: error instanceof Error ? error.message : String(error),
        });
        entry.until = clock().getTime() + BANK_LIST_RETRY_MS;
        return [] as FundingBank[];
      }),
    };
    bankLists.set(provider.name, entry);
    return entry.banks;
  }

  return banksOf;
}

type RequireAccount = (accountId: string) => Promise<void>;

/** The holder's side: opening accounts, the Fund wallet page's reads, the low-balance threshold. */
function holderFunding(deps: FundingDeps, requireAccount: RequireAccount, accountsSaved: AccountsSaved) {
  const { store } = deps;
  const banksOf = createBankLists(deps);
  return {
    /**
     * Opens the wallet's virtual accounts with every provider of its mode that has none yet.
     * The identity number goes to the providers and, as last four digits and keyed hash, to
     * the store; never to a log.
     */
    async openAccounts(
      accountId: string,
      mode: Mode,
      input: KycInput,
    ): Promise<{ accounts: VirtualAccountRecord[]; pending: string[]; refused: OpeningRefusal[] }> {
      const kyc = validateKyc(input);
      const account = await store.accounts.get(accountId);
      if (account === null) throw notFound(`Account ${accountId}`);
      // A signed-up account opens live accounts once its owner's email and phone are proven.
      refuseUnverifiedLive(account, mode);
      if (deps.providers[mode].length === 0) throw noProvider(mode);
      await refuseBelowAccountLevel(deps, accountId, mode);
      const existing = await store.funding.listVirtualAccounts(accountId, mode);
      const pending: string[] = [];
      const refused: { refusal: OpeningRefusal; field: string }[] = [];
      let opened = 0;
      for (const provider of deps.providers[mode]) {
        if (existing.some((a) => a.provider === provider.name && a.status === 'active')) continue;
        const result = await openWith(deps, provider, accountId, mode, kyc, accountsSaved);
        if (result.kind === 'pending') pending.push(`${provider.name}: ${result.reason}`);
        else if (result.kind === 'refused') refused.push(result);
        else opened++;
      }
      // Every provider asked refused the identity: the form says so, each provider in its words.
      if (refused.length > 0 && opened === 0 && pending.length === 0) {
        const [first] = refused;
        throw invalid(first!.field, refused.map((r) => r.refusal.reason).join(' '));
      }
      return {
        accounts: await store.funding.listVirtualAccounts(accountId, mode),
        pending,
        refused: refused.map((r) => r.refusal),
      };
    },

    async overview(accountId: string, mode: Mode): Promise<FundingOverview> {
      await requireAccount(accountId);
      const [accounts, lowBalanceThresholdKobo, inflows] = await Promise.all([
        store.funding.listVirtualAccounts(accountId, mode),
        store.funding.getLowBalanceThreshold(accountId, mode),
        store.funding.listAccountInflows(accountId, mode, RECENT_CREDITS),
      ]);
      // Only the accounts of a provider serving this mode now: a Sandbox Bank number opened for a
      // live wallet while FUNDING_SANDBOX_LIVE was on is not shown to be paid with real money.
      const served = accounts.filter((a) => deps.providers[mode].some((p) => p.name === a.provider));
      return {
        accounts: served,
        transfersOpen: deps.providers[mode].length > 0,
        fee: deps.fee,
        lowBalanceThresholdKobo,
        recentCredits: inflows.filter((i) => i.status === 'credited'),
        refusals: await openingRefusals(store, accountId, mode, accounts),
        bankAccountAsked: deps.providers[mode].some((p) => p.asksBankAccount === true),
      };
    },

    /**
     * The banks the identity form offers for a bank account linked to the BVN, when a provider of the mode
     * asks for one.
     */
    async identificationBanks(mode: Mode): Promise<FundingBank[]> {
      const provider = deps.providers[mode].find((p) => p.asksBankAccount === true && p.listBanks !== undefined);
      return provider === undefined ? [] : banksOf(provider);
    },

    async setLowBalanceThreshold(accountId: string, mode: Mode, thresholdKobo: Kobo | null): Promise<void> {
      if (thresholdKobo !== null && (thresholdKobo < 1 || thresholdKobo > MAX_AMOUNT_KOBO)) {
        throw invalid('threshold', 'threshold must be from 0.01 to 100,000,000 Naira, or 0 for none.');
      }
      if (!(await store.funding.setLowBalanceThreshold(accountId, mode, thresholdKobo)))
        throw notFound(`Account ${accountId}`);
    },
  };
}

/** Money arriving: notifications, sandbox transfers and the sweeper, all through the same intake. */
function moneyIn(
  deps: FundingDeps,
  byName: ReadonlyMap<FundingProviderName, FundingProvider>,
  intake: ReturnType<typeof createIntake>,
  accountsSaved: AccountsSaved,
) {
  const { store, clock } = deps;
  const { take, creditVerified, notify, reexamine } = intake;
  const accountEvent = createAccountEvents(deps, accountsSaved);
  return {
    notify,

    /** A notification as the gateway received it: signature, then what it claims, then the re-query. */
    async applyNotification(
      providerName: string,
      rawBody: Buffer,
      signature: string | undefined,
    ): Promise<NotifyOutcome | 'ignored' | 'bad_signature' | 'bad_body' | 'account_event'> {
      const provider = isFundingProvider(providerName) ? byName.get(providerName) : undefined;
      // A provider not configured here has no secret to check with: nothing it sends is believed.
      if (provider?.readNotification === undefined) return 'bad_signature';
      const read = provider.readNotification(rawBody, signature);
      if (typeof read === 'string') return read;
      if ('kind' in read) return accountEvent(provider, read);
      return notify(provider.name, read);
    },

    /** `funding simulate-transfer`: a transfer into a sandbox account, through the same path as a real one. */
    async simulateTransfer(
      accountNumber: string,
      amountKobo: Kobo,
      reference: string,
      payerName: string,
    ): Promise<{ outcome: NotifyOutcome; inflow: InflowRecord | null }> {
      if (amountKobo < 1 || amountKobo > MAX_AMOUNT_KOBO)
        throw invalid('amount', 'amount must be from 0.01 to 100,000,000 Naira.');
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(reference))
        throw invalid('reference', 'reference must be 1 to 64 letters, digits, dots, dashes or underscores.');
      // A made-up transfer never reaches live money unless the sandbox serves live wallets
      // (FUNDING_SANDBOX_LIVE=on): it must name a test wallet's account, since one to an unknown
      // number would wait as a live unmatched inflow that `funding assign` could credit.
      const target = await store.funding.findVirtualAccount('sandbox', accountNumber);
      if (!sandboxServesLive(deps) && target?.mode !== 'test')
        throw new DomainError(
          'FAILED_PRECONDITION',
          `${target === null ? 'No test wallet has' : 'A live wallet has'} Sandbox Bank account ${accountNumber}; ` +
            'sandbox transfers credit test wallets only (FUNDING_SANDBOX_LIVE is off), and nothing was recorded.',
        );
      const hint = deps.sandbox.transfer(
        accountNumber,
        amountKobo,
        reference,
        payerName.slice(0, 100) || 'SANDBOX PAYER',
        clock(),
      );
      const outcome = await notify('sandbox', hint);
      return { outcome, inflow: await store.funding.findInflow('sandbox', reference) };
    },

    /**
     * One sweeper run: finish verified inflows a crash left uncredited, then ask each provider
     * for the recent inflows of every virtual account and take any not yet recorded. Returns
     * how many it credited.
     */
    async sweep(accountsToSweep: VirtualAccountRecord[]): Promise<number> {
      let credited = 0;
      try {
        for (const inflow of await store.funding.listInflows('verified', MAX_INFLOWS_PER_RUN)) {
          if ((await creditVerified(inflow)) === 'credited') credited++;
        }
        const since = new Date(clock().getTime() - SWEEP_LOOKBACK_MS);
        for (const account of accountsToSweep) {
          if (account.status !== 'active') continue;
          const provider = byName.get(account.provider);
          if (provider === undefined) continue;
          for (const confirmed of await provider.recentInflows(account, since, signal())) {
            const known = await store.funding.findInflow(account.provider, confirmed.providerReference);
            // Known and settled, or waiting with nothing new to learn: an unmatched one is looked at again.
            if (known !== null && known.status !== 'unmatched') continue;
            // The list answer is the provider's own; the account it names must still be ours.
            if (
              (await take(
                account.provider,
                { ...confirmed, accountNumber: confirmed.accountNumber || account.accountNumber },
                null,
              )) === 'credited'
            )
              credited++;
          }
        }
        // Unmatched because no wallet had the number, older than the look-back or missed when the account came.
        credited += await reexamine(null, null);
        deps.observer?.sweep(true, clock());
        return credited;
      } catch (error) {
        deps.observer?.sweep(false, clock());
        throw error;
      }
    },
  };
}

/** The operator's desk: unmatched inflows listed, assigned to a wallet or rejected. */
function inflowDesk(deps: FundingDeps, requireAccount: RequireAccount) {
  const { store, clock, log } = deps;
  return {
    async listInflows(status: 'unmatched' | 'verified' | 'credited' | 'rejected'): Promise<InflowRecord[]> {
      return store.funding.listInflows(status, MAX_INFLOWS_PER_RUN);
    },

    /** `funding assign`: an unmatched inflow credited to the named account's wallet of the inflow's mode, once. */
    /**
     * The move that assigns an unmatched inflow to an account's wallet of the inflow's mode, less
     * the fee, checked (a staff approval posts it with its decision; `assign` posts it alone).
     */
    async assignment(inflowId: string, accountId: string): Promise<InflowCreditMove> {
      if (!isInflowId(inflowId)) throw invalid('inflow_id', 'inflow_id must look like inf_ followed by 20 characters.');
      await requireAccount(accountId);
      const inflow = await store.funding.getInflow(inflowId);
      if (inflow === null) throw notFound(`Inflow ${inflowId}`);
      if (inflow.provider === 'sandbox' && inflow.mode === 'live' && !sandboxServesLive(deps))
        throw new DomainError(
          'FAILED_PRECONDITION',
          `Inflow ${inflowId} is a sandbox transfer: it never credits a live wallet (FUNDING_SANDBOX_LIVE is off).`,
        );
      const feeKobo = fundingFeeKobo(inflow.amountPaidKobo, deps.fee);
      const credit = { accountId, mode: inflow.mode, feeKobo, at: clock() };
      return { kind: 'inflow_credit', inflowId, credit, from: 'unmatched' };
    },

    async assign(inflowId: string, accountId: string): Promise<InflowRecord> {
      const move = await this.assignment(inflowId, accountId);
      const result = await store.ledger.post(move);
      if (result.outcome === 'credited') {
        log('funding.assigned', {
          inflow_id: inflowId,
          account_id: accountId,
          credited_kobo: result.inflow.creditedKobo,
        });
        deps.observer?.inflow(result.inflow.provider, 'credited', result.inflow.creditedKobo);
        return result.inflow;
      }
      if (result.outcome === 'already_credited') return result.inflow;
      if (result.outcome === 'wrong_status')
        throw new DomainError('FAILED_PRECONDITION', `Inflow ${inflowId} is ${result.inflow.status}, not unmatched.`);
      throw notFound(result.outcome === 'no_account' ? `Account ${accountId}` : `Inflow ${inflowId}`);
    },

    async reject(inflowId: string, reason: string): Promise<InflowRecord> {
      if (!isInflowId(inflowId)) throw invalid('inflow_id', 'inflow_id must look like inf_ followed by 20 characters.');
      const text = reason.trim();
      if (text.length < 1 || text.length > 200) throw invalid('reason', 'reason must be 1 to 200 characters.');
      const inflow = await store.ledger.post({ kind: 'inflow_reject', inflowId, reason: text, at: clock() });
      if (inflow === null) throw notFound(`Inflow ${inflowId}`);
      if (inflow.status !== 'rejected')
        throw new DomainError(
          'FAILED_PRECONDITION',
          `Inflow ${inflowId} is ${inflow.status}; only an unmatched one can be rejected.`,
        );
      log('funding.rejected', { inflow_id: inflowId });
      return inflow;
    },
  };
}

export function createFundingService(deps: FundingDeps) {
  const { store } = deps;
  const byName = new Map<FundingProviderName, FundingProvider>();
  for (const provider of [...deps.providers.live, ...deps.providers.test]) byName.set(provider.name, provider);

  async function requireAccount(accountId: string): Promise<void> {
    if ((await store.accounts.get(accountId)) === null) throw notFound(`Account ${accountId}`);
  }

  function providerOf(name: FundingProviderName): FundingProvider {
    const provider = byName.get(name);
    if (provider === undefined)
      throw new DomainError('FAILED_PRECONDITION', `The funding provider ${name} is not configured.`);
    return provider;
  }

  const intake = createIntake(deps, byName, providerOf);
  /** Accounts just saved: unmatched inflows into them are looked at again; a failure is left to the sweeper. */
  const accountsSaved: AccountsSaved = async (provider, accountNumbers) => {
    try {
      await intake.reexamine(provider, accountNumbers);
    } catch (error) {
      deps.log('funding.reexamine_failed', {
        level: 'warn',
        provider,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  };

  const money = moneyIn(deps, byName, intake, accountsSaved);
  return {
    fee: deps.fee,
    ...holderFunding(deps, requireAccount, accountsSaved),
    ...money,
    ...inflowDesk(deps, requireAccount),
    ...testTransfers(store, money.simulateTransfer),
  };
}

export type FundingService = ReturnType<typeof createFundingService>;
