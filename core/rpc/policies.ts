/**
 * What each RPC of the operator's services and of the console asks before it runs and leaves
 * behind after, declared once per method and keyed on the generated services: a table's type
 * has a key for every method of its service, so a new RPC does not compile until someone says
 * whether it is audited (and by whom) and which staff power it needs.
 *
 * The developer area's RPCs are not here: each is bound to the session's account by its gate
 * (`core/rpc/holder.ts`, `gates`), and whether a suspended account may do it is the use case's
 * (`PeopleService.requireOwner` refuses every change of a suspended account).
 */
import type { MessageShape } from '@bufbuild/protobuf';
import type { GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import type { ApiAccessAdminService } from '../../gen/prepaid/v1/access_pb.js';
import type { AdminService } from '../../gen/prepaid/v1/admin_pb.js';
import type { ConsoleService, StaffAdminService } from '../../gen/prepaid/v1/console_pb.js';
import type { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import type { UserAdminService } from '../../gen/prepaid/v1/holder_pb.js';
import type { KycAdminService, KycConsoleService } from '../../gen/prepaid/v1/kyc_pb.js';
import type { WebhookService } from '../../gen/prepaid/v1/webhooks_pb.js';
import type { StaffPower } from '../domain/staff.js';

/**
 * How an admin-token call is audited: `read` changes nothing and leaves no row; `row` leaves
 * one row with actor `cli` once it succeeded (`auditedCalls` in `core/rpc/audited.ts`); `use_case`
 * is audited by its use case, which writes a fuller row (the state before and after) in the
 * change's own transaction, so not twice.
 */
type AuditPolicy = 'read' | 'row' | 'use_case';

/** One answer for every method of a service. */
export type AuditTable<S extends GenServiceMethods> = { readonly [K in keyof S]: AuditPolicy };

export const ADMIN_AUDIT: AuditTable<(typeof AdminService)['method']> = {
  createAccount: 'row',
  getAccount: 'read',
  setAccountTier: 'row',
  createApiKey: 'row',
  listApiKeys: 'read',
  revokeApiKey: 'row',
  setApiKeyIpLock: 'row',
  setApiKeyLimits: 'row',
  rollApiKey: 'row',
  freezeApiKey: 'row',
  unfreezeApiKey: 'row',
  blockRecipient: 'row',
  unblockRecipient: 'row',
  listRecipientBlocks: 'read',
  setRecipientLimits: 'row',
  creditWallet: 'row',
  listLedgerEntries: 'read',
  listTiers: 'read',
  // Tiers and the SMS rate: core/catalog/service.ts.
  upsertTier: 'use_case',
  listCatalogPlans: 'read',
  upsertPlan: 'row',
  listCablePackages: 'read',
  upsertCablePackage: 'row',
  getSmsRate: 'read',
  setSmsRate: 'use_case',
  listPendingTransactions: 'read',
  checkLedger: 'read',
  syncPlans: 'row',
  // Plan types, costs and price rules: core/catalog/changes.ts.
  setPlanTypeEnabled: 'use_case',
  setPlanCost: 'use_case',
  setPriceRule: 'use_case',
  listRoutes: 'read',
  // Routes and float alerts: core/purchases/supply-admin.ts.
  setRoute: 'use_case',
  clearRoute: 'use_case',
  listUpstreamAttempts: 'read',
  listUpstreamHealth: 'read',
  setUpstreamFloatAlert: 'use_case',
  listPlanCodes: 'read',
  // Plan codes: core/catalog/plan-codes.ts.
  setPlanCode: 'use_case',
  clearPlanCode: 'use_case',
  syncUpstreamPlans: 'use_case',
  listCostRules: 'read',
  // Commissions: core/catalog/costs.ts.
  setCostRule: 'use_case',
  debitWallet: 'row',
  takeBackup: 'row',
  getTrialBalance: 'read',
  // The books' own entries: core/ledger/own-money.ts, in the entry's transaction.
  fundUpstream: 'use_case',
  recordSettlement: 'use_case',
  reconcile: 'row',
  listReconcileFindings: 'read',
  // Audited as `finding.resolve` by core/books/, with who resolved it.
  resolveReconcileFinding: 'use_case',
  createCompatToken: 'row',
  listCompatTokens: 'read',
  revokeCompatToken: 'row',
  setPlanAlias: 'row',
  listPlanAliases: 'read',
  clearPlanAlias: 'row',
  setCompatCallback: 'row',
};

export const API_ACCESS_ADMIN_AUDIT: AuditTable<(typeof ApiAccessAdminService)['method']> = {
  listApiAccessRequests: 'read',
  approveApiAccess: 'row',
  refuseApiAccess: 'row',
};

// Identity levels: core/accounts/levels.ts writes each change's row (before and after) in its transaction.
export const KYC_ADMIN_AUDIT: AuditTable<(typeof KycAdminService)['method']> = {
  listLevels: 'read',
  setLevelLimits: 'use_case',
  listLevelRequests: 'read',
  approveLevel: 'use_case',
  refuseLevel: 'use_case',
};

export const USER_ADMIN_AUDIT: AuditTable<(typeof UserAdminService)['method']> = {
  inviteUser: 'row',
  listUsers: 'read',
  disableUser: 'row',
  // The two-step reset and the reset link: core/people/.
  resetTwoStep: 'use_case',
  issuePasswordReset: 'use_case',
};

export const FUNDING_AUDIT: AuditTable<(typeof FundingService)['method']> = {
  openFundingAccounts: 'row',
  getFunding: 'read',
  simulateTransfer: 'row',
  listInflows: 'read',
  assignInflow: 'row',
  rejectInflow: 'row',
  setLowBalanceThreshold: 'row',
};

export const WEBHOOK_AUDIT: AuditTable<(typeof WebhookService)['method']> = {
  setWebhook: 'row',
  getWebhook: 'read',
  rotateWebhookSecret: 'row',
  disableWebhook: 'row',
  listDeliveries: 'read',
  resendEvent: 'row',
  sendTestEvent: 'row',
};

/** The staff administration by the admin token: each change is audited by core/staff/ (realm, desk). */
export const STAFF_ADMIN_AUDIT: AuditTable<(typeof StaffAdminService)['method']> = {
  inviteStaff: 'use_case',
  listStaff: 'read',
  disableStaff: 'use_case',
  listAudit: 'read',
  reportSales: 'read',
  reportFunding: 'read',
  suspendAccountByAdmin: 'use_case',
  resumeAccountByAdmin: 'use_case',
};

type ConsoleMethods = (typeof ConsoleService)['method'];

/** The console's RPCs made before a session exists: the set-up link, signing in and out. */
export type SignedOutConsoleMethod = 'getStaffSetup' | 'completeStaffSetup' | 'staffSignIn' | 'staffSignOut';

/** The power a call needs: fixed, or read from the request (a proposal's kind, approve or refuse). */
type PowerOf<I> = StaffPower | ((request: I) => StaffPower);

/** A power for every method of a staff service but those made signed out. */
export type PowerTable<S extends GenServiceMethods, SignedOut extends keyof S = never> = {
  readonly [K in Exclude<keyof S, SignedOut>]: PowerOf<MessageShape<S[K]['input']>>;
};

/**
 * The staff power each console RPC needs, checked in the core before the handler runs
 * (`staffGuarded` in `core/rpc/staff-guard.ts`); which roles hold a power is `mayDo` in
 * `core/domain/staff.ts`.
 */
export const CONSOLE_POWERS: PowerTable<ConsoleMethods, SignedOutConsoleMethod> = {
  getStaffSession: 'read',
  getAttention: 'read',
  requeryPurchase: 'resolve',
  resolveDelivered: 'resolve',
  // A pending resolved as failed is support's to propose; every other money move is finance's.
  proposeMoneyMove: (req) => (req.kind === 'pending_failed' ? 'propose' : 'propose_money'),
  // A refusal is also open to the proposer (withdrawing their own): checked by the handler.
  decideProposal: (req) => (req.approve ? 'approve' : 'read'),
  decideUpgrade: 'upgrades',
  rejectUnmatchedInflow: 'approve',
  listAuditEntries: 'read',
  searchAccounts: 'read',
  getAccountOverview: 'read',
  getCatalogue: 'read',
  getSupplySettings: 'read',
  changeCatalogue: 'settings',
  listStaffMembers: 'staff',
  inviteStaffMember: 'staff',
  disableStaffMember: 'staff',
  setStaffRole: 'staff',
  getSalesReport: 'reports',
  getFundingReport: 'reports',
  suspendAccount: 'suspend',
  resumeAccount: 'suspend',
  listPlatformBlocks: 'read',
  blockPlatformRecipient: 'recipients',
  unblockPlatformRecipient: 'recipients',
  unfreezeKey: 'resolve',
  // The books are the business's figures, like the reports: finance and admin only.
  getBooks: 'reports',
  // A finding is the books against an upstream: the members who move money end it (it corrects none).
  resolveFinding: 'approve',
  // The sign-up funnel is one of the reports.
  getSignUpReport: 'reports',
  listAccounts: 'read',
  // An account's people are support's too; the account itself (made, its tier, its keys) an admin's.
  manageAccount: (req) =>
    req.change.case === 'inviteUser' ||
    req.change.case === 'disableUser' ||
    req.change.case === 'resetTwoStep' ||
    req.change.case === 'resetPassword'
      ? 'users'
      : 'accounts',
  searchTransactions: 'read',
  getTransactionDetail: 'read',
};

/**
 * The console's identity-level queue: every role reads it; a decision releases held money (a
 * raise) or turns a holder away, so it is for the members who approve money moves.
 */
export const KYC_CONSOLE_POWERS: PowerTable<(typeof KycConsoleService)['method']> = {
  listLevelQueue: 'read',
  approveLevelAsStaff: 'approve',
  refuseLevelAsStaff: 'approve',
};
