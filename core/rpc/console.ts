/**
 * prepaid.v1.ConsoleService (the console, per staff session) and StaffAdminService (the
 * operator's admin token). The handlers only translate: before each console RPC runs, the
 * power its method needs (`CONSOLE_POWERS`, core/rpc/policies.ts) is checked against the
 * session's role in core/staff/realm.ts, and the rules are in core/staff/.
 */

import { create, type MessageInitShape } from '@bufbuild/protobuf';
import type { ServerUnaryCall } from '@grpc/grpc-js';
import {
  type AdminService as AdminServiceDesc,
  GetTrialBalanceRequestSchema,
  ListCostRulesRequestSchema,
  ListRoutesRequestSchema,
  ListUpstreamHealthRequestSchema,
} from '../../gen/prepaid/v1/admin_pb.js';
import {
  type AuditEntrySchema,
  type AuditFilter,
  type ChangeCatalogueRequest,
  type ConsoleService as ConsoleDesc,
  type FrozenKeySchema,
  type GetAccountOverviewResponseSchema,
  type GetAttentionResponseSchema,
  type ProposalSchema,
  type StaffAdminService as StaffAdminDesc,
  type StaffMemberSchema,
  StaffSignInOutcome,
} from '../../gen/prepaid/v1/console_pb.js';
import type { ClockJump } from '../../runtime/clock-jump.js';
import type { CatalogService } from '../catalog/service.js';
import { DomainError, invalid } from '../domain/errors.js';
import { AUDIT_PAGES } from '../domain/paging.js';
import { planPriceBasis, planPriceFor } from '../domain/pricing.js';
import { planTypeIsOff } from '../domain/products.js';
import type { ApiKeyRecord, AuditEntryRecord } from '../domain/records.js';
import { mayDo, type ProposalRecord, type StaffMemberRecord, type StaffRole } from '../domain/staff.js';
import type { Reports } from '../reports/service.js';
import type { AccountsDesk, ProposalFacts } from '../staff/accounts-desk.js';
import { type Actor, CLI_ACTOR } from '../staff/audit.js';
import type { StaffBlocklist } from '../staff/blocklist.js';
import { type Attention, auditFlag, type Desk } from '../staff/desk.js';
import type { StaffRealm } from '../staff/realm.js';
import type { TransactionsDesk } from '../staff/transactions-desk.js';
import type { Store } from '../store/port.js';
import { attemptMessage, upstreamHealthMessage } from './admin.js';
import type { CompatAdminMethods } from './compat.js';
import { accountConsoleHandlers, withFacts } from './console-accounts.js';
import {
  accountMessage,
  apiKeyMessage,
  catalogPlanMessage,
  int64In,
  ledgerEntryMessage,
  tierMessage,
  timestampInit,
  transactionMessage,
} from './convert.js';
import { inflowMessage } from './funding.js';
import type { Handlers } from './grpc.js';
import { userMessage } from './holder.js';
import type { PlanCodeMethods } from './plan-codes.js';
import { CONSOLE_POWERS, type SignedOutConsoleMethod } from './policies.js';
import { blockMessage } from './recipients.js';
import { findingMessage } from './reconcile.js';
import { fundingReportMessage, reportAsk, salesReportMessage, signUpReportMessage } from './reports.js';
import { type StaffHandlers, staffGuarded } from './staff-guard.js';

/** The console's RPCs made for a session, each after its power is checked (`CONSOLE_POWERS`). */
type GuardedMethods = Omit<(typeof ConsoleDesc)['method'], SignedOutConsoleMethod>;

/** Audit rows a list returns by default and at most. */
/** A network name is a short word; longer text is cut before it reaches the store. */
const MAX_FILTER_CHARS = 40;

/** A member as the console shows them; `realm` says whether they are still new to their powers. */
function memberMessage(
  member: StaffMemberRecord,
  realm: Pick<StaffRealm, 'newToPowers'>,
): MessageInitShape<typeof StaffMemberSchema> {
  return {
    staffId: member.staffId,
    email: member.email,
    role: member.role,
    disabled: member.disabled,
    setUp: member.passwordHash !== '',
    createdAt: timestampInit(member.createdAt),
    invitedBy: member.invitedBy,
    powersSince: timestampInit(member.powersSince),
    newToPowers: realm.newToPowers(member),
  };
}

function proposalMessage(proposal: ProposalRecord): MessageInitShape<typeof ProposalSchema> {
  return {
    proposalId: proposal.proposalId,
    kind: proposal.kind,
    accountId: proposal.accountId,
    target: proposal.target,
    amountKobo: BigInt(proposal.amountKobo),
    note: proposal.note,
    proposedBy: proposal.proposedBy,
    proposedAt: timestampInit(proposal.proposedAt),
    expiresAt: timestampInit(proposal.expiresAt),
    status: proposal.status,
    decidedBy: proposal.decidedBy ?? '',
    ...(proposal.decidedAt ? { decidedAt: timestampInit(proposal.decidedAt) } : {}),
    applied: proposal.appliedAt !== null,
    reference: proposal.reference,
    memo: proposal.memo,
    feeKobo: BigInt(proposal.feeKobo),
  };
}

function auditMessage(entry: AuditEntryRecord): MessageInitShape<typeof AuditEntrySchema> {
  return {
    id: entry.id,
    at: timestampInit(entry.at),
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    before: entry.before ?? '',
    after: entry.after ?? '',
    address: entry.address ?? '',
    note: entry.note,
    flag: auditFlag(entry),
  };
}

/** The store's filter from the message's: empty fields do not narrow. */
async function listAudit(auditLog: Store['auditLog'], filter: AuditFilter | undefined) {
  const limit = Math.min(Math.max(filter?.limit || AUDIT_PAGES.defaultSize, 1), AUDIT_PAGES.maxSize);
  const entries = await auditLog.list({
    limit,
    ...(filter?.actor ? { actor: filter.actor.trim() } : {}),
    ...(filter?.action ? { action: filter.action.trim() } : {}),
    ...(filter?.target ? { target: filter.target.trim() } : {}),
    ...(filter?.beforeId ? { beforeId: filter.beforeId } : {}),
  });
  return { entries: entries.map(auditMessage) };
}

/** The admin service's handlers acting for `who` (core/rpc/admin.ts): the console's changes go through them. */
type AdminHandlers = Omit<Handlers<(typeof AdminServiceDesc)['method']>, PlanCodeMethods | CompatAdminMethods>;

export interface ConsoleRpcDeps {
  realm: StaffRealm;
  desk: Desk;
  auditLog: Store['auditLog'];
  catalog: CatalogService;
  adminAs: (who: Actor) => AdminHandlers;
  reports: Reports;
  /** The platform's blocklist, changed by a member. */
  blocklist: StaffBlocklist;
  /** The last jump of the core's wall clock; none when absent. */
  clockJump?: (() => ClockJump | null) | undefined;
  accountsDesk: AccountsDesk;
  transactionsDesk: TransactionsDesk;
}

/** The catalogue's plans, each with every tier's price and where it comes from. */
async function catalogue(catalog: CatalogService, network: string) {
  const [tiers, plans, off, smsRate] = await Promise.all([
    catalog.listTiers(),
    catalog.listPlans(network),
    catalog.listPlanTypesOff(),
    catalog.getSmsRate(),
  ]);
  return {
    tiers: tiers.map(tierMessage),
    plans: plans.map((plan) => ({
      plan: catalogPlanMessage(plan, !planTypeIsOff(off, plan)),
      prices: tiers.map((tier) => ({
        tierId: tier.tierId,
        priceKobo: BigInt(planPriceFor(tier, plan)),
        basis: planPriceBasis(tier, plan),
      })),
    })),
    smsKoboPerPage: BigInt(smsRate),
  };
}

/**
 * One catalogue or settings change, by the admin service's handler for the same request (so
 * the same use case, checks and audit row, with the member as the actor), read back as
 * events written and whether anything changed.
 */
async function changeCatalogue(
  admin: AdminHandlers,
  change: ChangeCatalogueRequest['change'],
  call: ServerUnaryCall<unknown, unknown>,
): Promise<{ events: number; changed: boolean }> {
  switch (change.case) {
    case 'tier':
      await admin.upsertTier(change.value, call);
      return { events: 0, changed: true };
    case 'planCost':
      return { events: (await admin.setPlanCost(change.value, call)).events ?? 0, changed: true };
    case 'priceRule':
      return { events: (await admin.setPriceRule(change.value, call)).events ?? 0, changed: true };
    case 'planType': {
      const done = await admin.setPlanTypeEnabled(change.value, call);
      return { events: done.events ?? 0, changed: done.changed ?? false };
    }
    case 'smsRate':
      await admin.setSmsRate(change.value, call);
      return { events: 0, changed: true };
    case 'route':
      await admin.setRoute(change.value, call);
      return { events: 0, changed: true };
    case 'clearRoute':
      return { events: 0, changed: (await admin.clearRoute(change.value, call)).before !== undefined };
    case 'floatAlert':
      await admin.setUpstreamFloatAlert(change.value, call);
      return { events: 0, changed: true };
    case 'costRule':
      return { events: 0, changed: (await admin.setCostRule(change.value, call)).changed ?? false };
    default:
      throw invalid('change', 'change must name what to change.');
  }
}

/** The attention queue as the console shows it: each pending purchase with its evidence, and the clock's last jump. */
/** A key in the queue's frozen list (or just unfrozen: no freeze then). */
function frozenKeyMessage(key: ApiKeyRecord): MessageInitShape<typeof FrozenKeySchema> {
  return {
    publicKey: key.publicKey,
    accountId: key.accountId,
    mode: key.mode,
    ...(key.frozen
      ? { frozenAt: timestampInit(key.frozen.at), reason: key.frozen.reason, frozenBy: key.frozen.by }
      : {}),
  };
}

function attentionMessage(
  queue: Attention,
  jump: ClockJump | null,
  accountNames: Record<string, string>,
  facts: Map<string, ProposalFacts>,
): MessageInitShape<typeof GetAttentionResponseSchema> {
  return {
    accountNames,
    ...(jump === null ? {} : { clockJump: { at: timestampInit(jump.at), jumpMs: BigInt(jump.jumpMs) } }),
    pending: queue.pending.map((tx) => ({
      transaction: transactionMessage(tx),
      attempts: tx.attempts,
      nextAttemptAt: timestampInit(tx.nextAttemptAt),
      upstreamAttempts: tx.upstreamAttempts.map(attemptMessage),
      upstreamAnswers: tx.upstreamAnswers.map((a) => ({
        n: a.n,
        upstream: a.upstream,
        source: a.source,
        body: a.body,
        at: timestampInit(a.at),
      })),
    })),
    failingWebhooks: queue.failingWebhooks.map((d) => ({
      accountId: d.accountId,
      mode: d.mode,
      oldestCreatedAt: timestampInit(d.oldestCreatedAt),
      undelivered: d.undelivered,
      lastStatus: d.lastStatus ?? 0,
      lastError: d.lastError ?? '',
    })),
    upstreams: queue.upstreams.map(upstreamHealthMessage),
    frozenKeys: queue.frozenKeys.map(frozenKeyMessage),
    reconcileFindings: queue.reconcileFindings.map(findingMessage),
    operations: queue.operations.map((alert) => ({
      kind: alert.kind,
      detail: alert.detail,
      since: timestampInit(alert.since),
    })),
    upgrades: queue.upgrades.map((request) => ({
      accountId: request.accountId,
      requestedBy: request.requestedBy,
      note: request.note,
      createdAt: timestampInit(request.createdAt),
    })),
    inflows: queue.inflows.map((inflow) => inflowMessage(inflow, true)),
    proposals: queue.proposals.map((p) => withFacts(proposalMessage(p), facts.get(p.proposalId))),
  };
}

/** Every account id the queue names, for their names beside them. */
function attentionAccounts(queue: Attention): string[] {
  return [
    ...queue.pending.map((tx) => tx.accountId),
    ...queue.upgrades.map((u) => u.accountId),
    ...queue.inflows.map((i) => i.accountId ?? ''),
    ...queue.proposals.map((p) => p.accountId),
    ...queue.failingWebhooks.map((w) => w.accountId),
    ...queue.frozenKeys.map((k) => k.accountId),
  ];
}

/** An account's page: the account, its keys, people, newest transactions and entries, and its webhooks' state. */
function overviewMessage(
  overview: Awaited<ReturnType<Desk['accountOverview']>>,
): MessageInitShape<typeof GetAccountOverviewResponseSchema> {
  return {
    account: accountMessage(overview.account),
    keys: overview.keys.map(apiKeyMessage),
    users: overview.users.map(userMessage),
    transactions: overview.transactions.map(transactionMessage),
    ledger: overview.ledger.map(ledgerEntryMessage),
    webhooks: overview.webhooks.map((w) => ({
      mode: w.mode,
      url: w.url,
      enabled: w.enabled,
      lastDelivery: w.lastDelivery?.state ?? '',
      ...(w.lastDelivery?.attemptAt ? { lastAttemptAt: timestampInit(w.lastDelivery.attemptAt) } : {}),
      lastStatus: w.lastDelivery?.status ?? 0,
      lastError: w.lastDelivery?.error ?? '',
      undelivered: w.undelivered,
      ...(w.undeliveredSince === null ? {} : { undeliveredSince: timestampInit(w.undeliveredSince) }),
    })),
  };
}

/** A member's sign-in: the set-up link, signing in and out, and the session's check. */
function staffSessionHandlers(
  realm: StaffRealm,
): Pick<Handlers<(typeof ConsoleDesc)['method']>, SignedOutConsoleMethod> {
  return {
    async getStaffSetup(req) {
      const setup = await realm.describeSetup(req.setupToken);
      return {
        email: setup.member.email,
        role: setup.member.role,
        totpSecret: setup.secret,
        totpUri: setup.uri,
        totpQrSvg: setup.qrSvg,
      };
    },
    async completeStaffSetup(req) {
      const member = await realm.completeSetup(req.setupToken, req.password, req.totpCode, req.clientAddress);
      return { member: memberMessage(member, realm) };
    },
    async staffSignIn(req) {
      const answer = await realm.signIn(req.email, req.password, req.totpCode, req.clientAddress);
      if (answer.outcome === 'signed_in')
        return {
          outcome: StaffSignInOutcome.SIGNED_IN,
          sessionToken: answer.token,
          member: memberMessage(answer.member, realm),
        };
      if (answer.outcome === 'throttled')
        return { outcome: StaffSignInOutcome.THROTTLED, retryAfterSeconds: answer.retryAfterSeconds };
      return { outcome: StaffSignInOutcome.INVALID_CREDENTIALS };
    },
    async staffSignOut(req) {
      await realm.signOut(req.sessionToken);
      return {};
    },
  };
}

export function consoleHandlers({
  realm,
  desk,
  auditLog,
  catalog,
  adminAs,
  reports,
  blocklist,
  clockJump,
  accountsDesk,
  transactionsDesk,
}: ConsoleRpcDeps): Handlers<(typeof ConsoleDesc)['method']> {
  const guarded: StaffHandlers<GuardedMethods> = {
    ...accountConsoleHandlers({ accounts: accountsDesk, transactions: transactionsDesk, proposalMessage }),
    async getStaffSession(_req, { member }) {
      return { member: memberMessage(member, realm) };
    },
    ...blocklistHandlers(blocklist),
    async getAttention() {
      const queue = await desk.attention();
      const [names, facts] = await Promise.all([
        accountsDesk.namesOf(attentionAccounts(queue)),
        accountsDesk.proposalFacts(queue.proposals),
      ]);
      return attentionMessage(queue, clockJump?.() ?? null, names, facts);
    },
    async requeryPurchase(req, { who }) {
      return { transaction: transactionMessage(await desk.requery(req.reference, who)) };
    },
    async resolveDelivered(req, { who }) {
      return { transaction: transactionMessage(await desk.resolveDelivered(req.reference, req.note, who)) };
    },
    async proposeMoneyMove(req, { who }) {
      const proposal = await desk.propose(
        {
          kind: req.kind,
          accountId: req.accountId,
          target: req.target,
          amountKobo: int64In(req.amountKobo, 'amount_kobo'),
          note: req.note,
          reference: req.reference,
          feeKobo: int64In(req.feeKobo, 'fee_kobo'),
        },
        who,
      );
      return { proposal: proposalMessage(proposal), warning: await desk.warningFor(proposal) };
    },
    async decideProposal(req, context) {
      if (!req.approve) await requireRefuser(desk, req.proposalId, context.who, context.member.role);
      const decided = await desk.decide(req.proposalId, req.approve, req.note, context.who, context.member);
      return { proposal: proposalMessage(decided) };
    },
    async decideUpgrade(req, { who }) {
      const decided = req.approve
        ? await desk.approveUpgrade(req.accountId, req.tierId, who)
        : await desk.refuseUpgrade(req.accountId, req.note, who);
      return { status: decided.status };
    },
    async rejectUnmatchedInflow(req, { who }) {
      return { inflow: inflowMessage(await desk.rejectInflow(req.inflowId, req.note, who), true) };
    },
    async listAuditEntries(req) {
      const listed = await listAudit(auditLog, req.filter);
      return { ...listed, accountNames: await accountsDesk.namesOf(listed.entries.map((e) => e.target ?? '')) };
    },
    async searchAccounts(req) {
      return { accounts: (await desk.searchAccounts(req.query)).map(accountMessage) };
    },
    async getAccountOverview(req) {
      return overviewMessage(await desk.accountOverview(req.accountId));
    },
    ...settingsHandlers(realm, catalog, adminAs),
    async suspendAccount(req, { who }) {
      return { account: accountMessage(await desk.suspend(req.accountId, req.note, who)) };
    },
    async unfreezeKey(req, { who }) {
      return { key: frozenKeyMessage(await desk.unfreezeKey(req.publicKey, req.note, who)) };
    },
    async resumeAccount(req, { who }) {
      return { account: accountMessage(await desk.resume(req.accountId, req.note, who)) };
    },
    async getSalesReport(req) {
      return { report: salesReportMessage(await reports.sales(reportAsk(req.query))) };
    },
    async getFundingReport(req) {
      return { report: fundingReportMessage(await reports.funding(reportAsk(req.query))) };
    },
    async resolveFinding(req, { who }) {
      return { finding: findingMessage(await desk.resolveFinding(req.findingId, req.note, req.proposalId, who)) };
    },
    async getSignUpReport(req) {
      return signUpReportMessage(await reports.signUps(reportAsk(req.query)));
    },
    async getBooks(req, { who }, call) {
      const { modes, until } = await adminAs(who).getTrialBalance(
        create(GetTrialBalanceRequestSchema, { atDate: req.atDate }),
        call,
      );
      return { modes, ...(until === undefined ? {} : { until }) };
    },
  };
  return { ...staffSessionHandlers(realm), ...staffGuarded(realm, CONSOLE_POWERS, guarded) };
}

/** The platform's blocklist: every role reads it, the `recipients` power changes it. */
function blocklistHandlers(
  blocklist: StaffBlocklist,
): Pick<StaffHandlers<GuardedMethods>, 'listPlatformBlocks' | 'blockPlatformRecipient' | 'unblockPlatformRecipient'> {
  return {
    async listPlatformBlocks() {
      return { blocks: (await blocklist.list()).map(blockMessage) };
    },
    async blockPlatformRecipient(req, { who }) {
      return { block: blockMessage(await blocklist.block(req.value, req.reason, who)) };
    },
    async unblockPlatformRecipient(req, { who }) {
      return { removed: await blocklist.unblock(req.value, who) };
    },
  };
}

/** The catalogue, settings and staff RPCs: reads for every role, changes for admins. */
function settingsHandlers(
  realm: StaffRealm,
  catalog: CatalogService,
  adminAs: ConsoleRpcDeps['adminAs'],
): Pick<
  StaffHandlers<GuardedMethods>,
  | 'getCatalogue'
  | 'getSupplySettings'
  | 'changeCatalogue'
  | 'listStaffMembers'
  | 'inviteStaffMember'
  | 'disableStaffMember'
  | 'setStaffRole'
> {
  return {
    async getCatalogue(req, { who }, call) {
      const [answer, costs] = await Promise.all([
        catalogue(catalog, req.network.trim().slice(0, MAX_FILTER_CHARS)),
        adminAs(who).listCostRules(create(ListCostRulesRequestSchema), call),
      ]);
      return { ...answer, costRules: costs.rules ?? [] };
    },
    async getSupplySettings(_req, { who }, call) {
      const admin = adminAs(who);
      const [routes, health] = await Promise.all([
        admin.listRoutes(create(ListRoutesRequestSchema), call),
        admin.listUpstreamHealth(create(ListUpstreamHealthRequestSchema), call),
      ]);
      return { routes, upstreams: health.upstreams ?? [] };
    },
    async changeCatalogue(req, { who }, call) {
      return changeCatalogue(adminAs(who), req.change, call);
    },
    async listStaffMembers() {
      return { members: (await realm.listMembers()).map((m) => memberMessage(m, realm)) };
    },
    async inviteStaffMember(req, { who }) {
      const { member, url, mailed } = await realm.invite(req.email, req.role, who);
      return { member: memberMessage(member, realm), setupUrl: url, mailed };
    },
    async disableStaffMember(req, { who }) {
      return { member: memberMessage(await realm.disable(req.email, who), realm) };
    },
    async setStaffRole(req, { who }) {
      return { member: memberMessage(await realm.setRole(req.email, req.role, who), realm) };
    },
  };
}

/** A proposal is refused by a member who may approve, or withdrawn by its own proposer. */
async function requireRefuser(desk: Desk, proposalId: string, who: Actor, role: StaffRole): Promise<void> {
  if (mayDo(role, 'approve')) return;
  const proposal = await desk.getProposal(proposalId);
  if (proposal !== null && proposal.proposedBy !== who.actor) {
    throw new DomainError(
      'PERMISSION_DENIED',
      'Only finance or admin members, or its proposer, can refuse a proposal.',
    );
  }
}

export function staffAdminHandlers(
  realm: StaffRealm,
  auditLog: Store['auditLog'],
  reports: Reports,
  desk: Pick<Desk, 'suspend' | 'resume'>,
): Handlers<(typeof StaffAdminDesc)['method']> {
  return {
    async inviteStaff(req) {
      const { member, url, mailed } = await realm.invite(req.email, req.role, CLI_ACTOR);
      return { member: memberMessage(member, realm), setupUrl: url, mailed };
    },
    async listStaff() {
      return { members: (await realm.listMembers()).map((m) => memberMessage(m, realm)) };
    },
    async disableStaff(req) {
      return { member: memberMessage(await realm.disable(req.email, CLI_ACTOR), realm) };
    },
    async listAudit(req) {
      return listAudit(auditLog, req.filter);
    },
    async reportSales(req) {
      return { report: salesReportMessage(await reports.sales(reportAsk(req.query))) };
    },
    async reportFunding(req) {
      return { report: fundingReportMessage(await reports.funding(reportAsk(req.query))) };
    },
    async suspendAccountByAdmin(req) {
      return { account: accountMessage(await desk.suspend(req.accountId, req.note, CLI_ACTOR)) };
    },
    async resumeAccountByAdmin(req) {
      return { account: accountMessage(await desk.resume(req.accountId, req.note, CLI_ACTOR)) };
    },
  };
}
