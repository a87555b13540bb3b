/** prepaid.v1.FundingService: requests in, the funding use cases, messages out. No rule lives here. */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  FundingCallbackService as FundingCallbackServiceDesc,
  FundingKyc,
  FundingService as FundingServiceDesc,
  HolderFundingService as HolderFundingServiceDesc,
  InflowSchema,
  OpeningRefusalSchema,
  VirtualAccountSchema,
} from '../../gen/prepaid/v1/funding_pb.js';
import { invalid } from '../domain/errors.js';
import type { InflowRecord, InflowStatus, KycInput, KycKind, VirtualAccountRecord } from '../domain/funding.js';
import type { Mode } from '../domain/mode.js';
import { kobo } from '../domain/money.js';
import { randomChars } from '../domain/random.js';
import type { FundingService, OpeningRefusal } from '../funding/service.js';
import type { PeopleService } from '../people/service.js';
import { koboIn, MODE_TO_PROTO, modeIn, timestampInit } from './convert.js';
import type { Handlers } from './grpc.js';

/** A made-up sandbox reference: 16 of 32 characters (80 bits). */
const REFERENCE_ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWX';

const INFLOW_STATUSES: readonly InflowStatus[] = ['verified', 'credited', 'unmatched', 'rejected'];

function refusalMessage(refusal: OpeningRefusal): MessageInitShape<typeof OpeningRefusalSchema> {
  return { provider: refusal.provider, at: timestampInit(refusal.at), reason: refusal.reason, step: refusal.step };
}

function virtualAccountMessage(account: VirtualAccountRecord): MessageInitShape<typeof VirtualAccountSchema> {
  return {
    provider: account.provider,
    bankName: account.bankName,
    accountNumber: account.accountNumber,
    accountName: account.accountName,
    status: account.status,
    kycKind: account.kycKind,
    kycLast4: account.kycLast4,
    createdAt: timestampInit(account.createdAt),
  };
}

export function inflowMessage(inflow: InflowRecord, withRaw: boolean): MessageInitShape<typeof InflowSchema> {
  return {
    inflowId: inflow.inflowId,
    provider: inflow.provider,
    providerReference: inflow.providerReference,
    accountNumber: inflow.accountNumber,
    accountId: inflow.accountId ?? '',
    mode: MODE_TO_PROTO[inflow.mode],
    amountPaidKobo: BigInt(inflow.amountPaidKobo),
    feeKobo: BigInt(inflow.feeKobo),
    creditedKobo: BigInt(inflow.creditedKobo),
    payerName: inflow.payerName,
    status: inflow.status,
    reason: inflow.reason,
    raw: withRaw ? inflow.raw : '',
    createdAt: timestampInit(inflow.createdAt),
  };
}

function kycKind(value: string): KycKind {
  if (value === 'bvn' || value === 'nin') return value;
  throw invalid('kyc.kind', 'kind must be bvn or nin.');
}

function kycIn(k: FundingKyc | undefined): KycInput {
  if (k === undefined) throw invalid('kyc', 'kyc is required.');
  return {
    kind: kycKind(k.kind),
    number: k.number,
    firstName: k.firstName,
    lastName: k.lastName,
    phone: k.phone,
    email: k.email,
    bankCode: k.bankCode,
    bankAccount: k.bankAccount,
  };
}

function thresholdIn(thresholdKobo: bigint) {
  return thresholdKobo === 0n ? null : kobo(koboIn(thresholdKobo, 'threshold'));
}

/** Under CLI_MONEY_MOVES=proposals: an unmatched inflow's assignment made a four-eyes proposal. */
export type ProposeAssign = (inflowId: string, accountId: string) => Promise<{ proposalId: string; status: string }>;

export function fundingHandlers(
  funding: FundingService,
  proposeAssign?: ProposeAssign,
): Handlers<(typeof FundingServiceDesc)['method']> {
  return {
    async openFundingAccounts(req) {
      const opened = await funding.openAccounts(req.accountId, modeIn(req.mode), kycIn(req.kyc));
      return {
        accounts: opened.accounts.map(virtualAccountMessage),
        pending: opened.pending,
        refused: opened.refused.map(refusalMessage),
      };
    },
    async getFunding(req) {
      const overview = await funding.overview(req.accountId, modeIn(req.mode));
      return {
        accounts: overview.accounts.map(virtualAccountMessage),
        fee: { basisPoints: overview.fee.basisPoints, capKobo: BigInt(overview.fee.capKobo ?? 0) },
        lowBalanceThresholdKobo: BigInt(overview.lowBalanceThresholdKobo ?? 0),
        recentCredits: overview.recentCredits.map((i) => inflowMessage(i, false)),
        transfersOpen: overview.transfersOpen,
        refusals: overview.refusals.map(refusalMessage),
      };
    },
    async simulateTransfer(req) {
      const reference = req.reference === '' ? `SBX-${randomChars(REFERENCE_ALPHABET, 16)}` : req.reference;
      const { outcome, inflow } = await funding.simulateTransfer(
        req.accountNumber,
        koboIn(req.amountKobo, 'amount'),
        reference,
        req.payerName,
      );
      return { outcome, ...(inflow === null ? {} : { inflow: inflowMessage(inflow, true) }) };
    },
    async listInflows(req) {
      const status = req.status === '' ? 'unmatched' : (req.status as InflowStatus);
      if (!INFLOW_STATUSES.includes(status))
        throw invalid('status', `status must be one of ${INFLOW_STATUSES.join(', ')}.`);
      return { inflows: (await funding.listInflows(status)).map((i) => inflowMessage(i, true)) };
    },
    async assignInflow(req) {
      if (proposeAssign !== undefined) {
        // Nothing moves: a finance or admin member approves it in the console.
        const { proposalId, status } = await proposeAssign(req.inflowId, req.accountId);
        return { proposalId, proposalStatus: status };
      }
      return { inflow: inflowMessage(await funding.assign(req.inflowId, req.accountId), true) };
    },
    async rejectInflow(req) {
      return { inflow: inflowMessage(await funding.reject(req.inflowId, req.reason), true) };
    },
    async setLowBalanceThreshold(req) {
      await funding.setLowBalanceThreshold(req.accountId, modeIn(req.mode), thresholdIn(req.thresholdKobo));
      return {};
    },
  };
}

/** Providers' notifications, from the gateway (service token). */
export function fundingCallbackHandlers(
  funding: FundingService,
): Handlers<(typeof FundingCallbackServiceDesc)['method']> {
  return {
    async applyFundingNotification(req) {
      const disposition = await funding.applyNotification(
        req.provider,
        Buffer.from(req.body),
        req.signature === '' ? undefined : req.signature,
      );
      return { disposition };
    },
  };
}

/**
 * The holders' side (service token): the gateway's `?action=funding` for the account its key
 * pair authenticated, and the Fund wallet page for a session. Giving the identity and setting
 * the threshold are the owner's; every user of the account sees the accounts and the fee.
 */
export function holderFundingHandlers(
  funding: FundingService,
  people: Pick<PeopleService, 'authenticate' | 'requireOwner' | 'requireFormAccount'>,
  balanceOf: (accountId: string, mode: Mode) => Promise<{ balanceKobo: number }>,
): Handlers<(typeof HolderFundingServiceDesc)['method']> {
  const owner = async (token: string, formAccountId: string) => {
    const context = await people.authenticate(token);
    people.requireFormAccount(context, formAccountId);
    people.requireOwner(context);
    return context;
  };
  return {
    async getAccountFunding(req) {
      const overview = await funding.overview(req.accountId, modeIn(req.mode));
      return {
        accounts: overview.accounts.map(virtualAccountMessage),
        fee: { basisPoints: overview.fee.basisPoints, capKobo: BigInt(overview.fee.capKobo ?? 0) },
      };
    },
    async getSessionFunding(req) {
      const context = await people.authenticate(req.sessionToken);
      const accountId = context.account.accountId;
      const mode = modeIn(req.mode);
      const [overview, { balanceKobo }] = await Promise.all([
        funding.overview(accountId, mode),
        balanceOf(accountId, mode),
      ]);
      return {
        accountId,
        accounts: overview.accounts.map(virtualAccountMessage),
        fee: { basisPoints: overview.fee.basisPoints, capKobo: BigInt(overview.fee.capKobo ?? 0) },
        lowBalanceThresholdKobo: BigInt(overview.lowBalanceThresholdKobo ?? 0),
        recentCredits: overview.recentCredits.map((i) => inflowMessage(i, false)),
        balanceKobo: BigInt(balanceKobo),
        openingProblem: overview.refusals[0]?.reason ?? '',
        refusals: overview.refusals.map(refusalMessage),
        bankAccountAsked: overview.bankAccountAsked,
        transfersOpen: overview.transfersOpen,
        // Only while the form is shown: a wallet with an account is asked nothing more.
        identificationBanks:
          overview.bankAccountAsked && !overview.accounts.some((a) => a.status === 'active')
            ? await funding.identificationBanks(mode)
            : [],
      };
    },
    async openSessionFunding(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      const opened = await funding.openAccounts(context.account.accountId, modeIn(req.mode), kycIn(req.kyc));
      return {
        accounts: opened.accounts.map(virtualAccountMessage),
        pending: opened.pending,
        refused: opened.refused.map(refusalMessage),
      };
    },
    async simulateSessionTransfer(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      const accountId = context.account.accountId;
      const mode = modeIn(req.mode);
      const { outcome } = await funding.simulateHolderTransfer(
        accountId,
        mode,
        koboIn(req.amountKobo, 'amount_kobo'),
        req.reference,
        `${context.account.name} (developer area test)`,
      );
      return { outcome, balanceKobo: BigInt((await balanceOf(accountId, mode)).balanceKobo) };
    },
    async setSessionLowBalanceThreshold(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      await funding.setLowBalanceThreshold(context.account.accountId, modeIn(req.mode), thresholdIn(req.thresholdKobo));
      return {};
    },
  };
}
