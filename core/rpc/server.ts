/**
 * The core's gRPC server: the purchase, auth and admin services, grpc.health.v1 and
 * reflection. A factory: it returns the server unbound; only core/main.ts listens.
 */

import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { file_google_rpc_error_details } from '../../gen/google/rpc/error_details_pb.js';
import { file_google_rpc_status } from '../../gen/google/rpc/status_pb.js';
import { file_grpc_health_v1_health } from '../../gen/grpc/health/v1/health_pb.js';
import { ApiAccessAdminService, ApiAccessService, file_prepaid_v1_access } from '../../gen/prepaid/v1/access_pb.js';
import { AdminService, file_prepaid_v1_admin } from '../../gen/prepaid/v1/admin_pb.js';
import { AuthService, file_prepaid_v1_auth } from '../../gen/prepaid/v1/auth_pb.js';
import { ConsoleService, file_prepaid_v1_console, StaffAdminService } from '../../gen/prepaid/v1/console_pb.js';
import {
  FundingCallbackService,
  FundingService,
  file_prepaid_v1_funding,
  HolderFundingService,
} from '../../gen/prepaid/v1/funding_pb.js';
import { file_prepaid_v1_holder, HolderService, UserAdminService } from '../../gen/prepaid/v1/holder_pb.js';
import { file_prepaid_v1_kyc, KycAdminService, KycConsoleService, KycService } from '../../gen/prepaid/v1/kyc_pb.js';
import { file_prepaid_v1_purchase, PurchaseService } from '../../gen/prepaid/v1/purchase_pb.js';
import { file_prepaid_v1_shop, ShopService } from '../../gen/prepaid/v1/shop_pb.js';
import { EventService, file_prepaid_v1_webhooks, WebhookService } from '../../gen/prepaid/v1/webhooks_pb.js';
import type { ClockJump } from '../../runtime/clock-jump.js';
import type { CompatService } from '../accounts/compat.js';
import type { LedgerCheck } from '../accounts/ledger-check.js';
import type { Levels } from '../accounts/levels.js';
import type { RecipientControlsService } from '../accounts/recipients.js';
import type { AccountService } from '../accounts/service.js';
import type { Reconciliation } from '../books/daily.js';
import type { CostRules } from '../catalog/costs.js';
import type { PlanCodesAdmin } from '../catalog/plan-codes.js';
import type { CatalogService } from '../catalog/service.js';
import type { PlanSync } from '../catalog/sync.js';
import type { FundingService as Funding } from '../funding/service.js';
import type { HolderDesk } from '../holders/desk.js';
import { createHolderRecipients } from '../holders/recipients.js';
import type { ShopDesk } from '../holders/shop.js';
import type { OwnMoney } from '../ledger/own-money.js';
import type { Onboarding } from '../people/onboarding.js';
import type { PeopleService } from '../people/service.js';
import type { Upgrades } from '../people/upgrades.js';
import type { CallbackService } from '../purchases/callbacks.js';
import type { PendingList } from '../purchases/pending-list.js';
import type { PurchaseService as Purchases } from '../purchases/service.js';
import type { SupplyAdmin } from '../purchases/supply-admin.js';
import type { VerificationService } from '../purchases/verification.js';
import type { Reports } from '../reports/service.js';
import type { AccountsDesk } from '../staff/accounts-desk.js';
import { type Actor, type AuditTrail, CLI_ACTOR } from '../staff/audit.js';
import { createStaffBlocklist } from '../staff/blocklist.js';
import type { Desk } from '../staff/desk.js';
import type { StaffRealm } from '../staff/realm.js';
import type { TransactionsDesk } from '../staff/transactions-desk.js';
import type { Backups } from '../storage/backup.js';
import type { Store } from '../store/port.js';
import type { EventFeed } from '../webhooks/feed.js';
import type { WebhookService as Webhooks } from '../webhooks/service.js';
import { apiAccessAdminHandlers, apiAccessHandlers } from './access.js';
import { adminHandlers, type ProposeMove } from './admin.js';
import { auditedCalls } from './audited.js';
import { authHandlers } from './auth.js';
import type { ProposeOwn } from './books.js';
import { compatAdminHandlers, compatHolderHandlers } from './compat.js';
import { consoleHandlers, staffAdminHandlers } from './console.js';
import type { ErrorLogger } from './errors.js';
import { eventHandlers } from './events.js';
import { fundingCallbackHandlers, fundingHandlers, holderFundingHandlers, type ProposeAssign } from './funding.js';
import { type Access, type Handlers, implement, serviceDefinition, tokenCheck } from './grpc.js';
import { type CoreHealth, createHealth } from './health.js';
import { holderHandlers, userAdminHandlers } from './holder.js';
import { kycAdminHandlers, kycConsoleHandlers, kycHandlers } from './kyc.js';
import { planCodeHandlers } from './plan-codes.js';
import {
  ADMIN_AUDIT,
  API_ACCESS_ADMIN_AUDIT,
  FUNDING_AUDIT,
  KYC_ADMIN_AUDIT,
  STAFF_ADMIN_AUDIT,
  USER_ADMIN_AUDIT,
  WEBHOOK_AUDIT,
} from './policies.js';
import { purchaseHandlers } from './purchase.js';
import { addReflection } from './reflection.js';
import { shopHandlers } from './shop.js';
import { webhookHandlers } from './webhooks.js';

/** Largest request the core accepts: a 10,000-recipient SMS is about 150 KiB. */
const MAX_RECEIVE_MESSAGE_BYTES = 1024 * 1024;

export interface CoreServerDeps {
  /** The developer area's reads (a suspended account's are not refused). */
  purchases: Purchases;
  /** The API's and the shop's: built with `refuseSuspended` (core/purchases/service.ts). */
  apiPurchases: Purchases;
  accounts: AccountService;
  /** Blocklists and per-recipient limits (core/accounts/recipients.ts). */
  recipients: RecipientControlsService;
  catalog: CatalogService;
  costRules: CostRules;
  pendingList: PendingList;
  ledgerCheck: LedgerCheck;
  /** Backups of the embedded store. */
  backups: Backups;
  /** The books: the trial balance, upstreams' top-ups, providers' settlements. */
  ownMoney: OwnMoney;
  /** The reconciliation with the upstreams (core/books/daily.ts). */
  reconciliation: Reconciliation;
  /** Routes and upstream attempts for the operator. */
  supplyAdmin: SupplyAdmin;
  /** Each declared upstream's code for our data plans. */
  planCodes: PlanCodesAdmin;
  /** Customer verification, provider callbacks and the plans sync: the upstream-facing use cases. */
  verification: VerificationService;
  callbacks: CallbackService;
  planSync: PlanSync;
  /** The developer area's people and the holder's reads (HolderService, UserAdminService). */
  people: PeopleService;
  /** Signing up and proving the email and phone (HolderService's sign-up RPCs). */
  onboarding: Onboarding;
  holderDesk: HolderDesk;
  /** Compatible tokens and plan aliases (docs/compat.md). */
  compat: CompatService;
  /** Buying from the developer area (ShopService). */
  shopDesk: ShopDesk;
  /** Requests for API access (ApiAccessService, ApiAccessAdminService). */
  upgrades: Upgrades;
  /** Identity levels (core/accounts/levels.ts). */
  levels: Levels;
  /** The events feed (the gateway's `?action=events`). */
  eventFeed: EventFeed;
  /** Webhook management (admin token). */
  webhooks: Webhooks;
  /** Money in: virtual accounts, inflows, low-balance thresholds (admin token). */
  funding: Funding;
  /** The staff's console (ConsoleService, StaffAdminService) and the audit of admin calls. */
  staff: {
    realm: StaffRealm;
    desk: Desk;
    /** The console's accounts list and an account's changes; its transactions desk. */
    accountsDesk: AccountsDesk;
    transactionsDesk: TransactionsDesk;
    audit: AuditTrail;
    auditLog: Store['auditLog'];
    reports: Reports;
    /** The last jump of the core's wall clock (runtime/clock-jump.ts), for the attention queue. */
    clockJump?: (() => ClockJump | null) | undefined;
    proposeCredit?: ProposeMove | undefined;
    proposeDebit?: ProposeMove | undefined;
    /** Set under CLI_MONEY_MOVES=proposals: `funding assign` becomes a four-eyes proposal. */
    proposeAssign?: ProposeAssign | undefined;
    /** Set under CLI_MONEY_MOVES=proposals: `upstreams fund` and `books settle` become four-eyes proposals. */
    proposeOwn?: ProposeOwn | undefined;
  };
  /** Grants the admin service (and, for operators' convenience, the other two). */
  adminToken: string;
  /** Grants the purchase and auth services: the gateway and internal services. */
  serviceToken: string;
  log: ErrorLogger;
  /** Resolves once every write committed so far is on disk (Store.settled): no answer goes out before. */
  settled: () => Promise<void>;
}

export interface CoreServer {
  server: Server;
  health: CoreHealth;
  /**
   * Binds and starts serving; resolves to the bound port (pass 0 for any free port). With
   * `tls` (PEM certificate chain and key) the port speaks TLS only.
   */
  listen(host: string, port: number, tls?: { cert: Buffer; key: Buffer }): Promise<number>;
}

export const SERVICE_NAMES = [
  PurchaseService.typeName,
  AuthService.typeName,
  AdminService.typeName,
  HolderService.typeName,
  UserAdminService.typeName,
  ShopService.typeName,
  ApiAccessService.typeName,
  ApiAccessAdminService.typeName,
  EventService.typeName,
  WebhookService.typeName,
  FundingService.typeName,
  FundingCallbackService.typeName,
  ConsoleService.typeName,
  StaffAdminService.typeName,
  HolderFundingService.typeName,
] as const;

/** The two kinds of caller: the service token (or the admin token), and the admin token alone. */
interface Callers {
  service: Access;
  admin: Access;
}

/** Adds `service` with its handlers to `server`, for the callers `access` lets in. */
type AddService = <S extends GenServiceMethods>(service: GenService<S>, handlers: Handlers<S>, access: Access) => void;

export function createCoreServer(deps: CoreServerDeps): CoreServer {
  const server = new Server({
    'grpc.max_receive_message_length': MAX_RECEIVE_MESSAGE_BYTES,
    // Channelz (grpc-js's per-call bookkeeping for its debug service) is not served here,
    // and keeping its counters was a visible part of every call under load.
    'grpc.enable_channelz': 0,
  });
  const known = tokenCheck(deps.serviceToken, deps.adminToken);
  const callers: Callers = {
    service: { allowed: known, known },
    admin: { allowed: tokenCheck(deps.adminToken), known },
  };
  const add: AddService = (service, handlers, access) =>
    server.addService(serviceDefinition(service), implement(service, handlers, access, deps));
  addApiServices(add, deps, callers);
  // The admin service's handlers, by the admin token or, for the console's catalogue and
  // settings changes, by a staff member: one translation to the same use cases.
  const adminAs = (who: Actor) =>
    adminHandlers(
      deps.accounts,
      deps.catalog,
      {
        backups: deps.backups,
        reconciliation: deps.reconciliation,
        pendingList: deps.pendingList,
        ledgerCheck: deps.ledgerCheck,
        supply: deps.supplyAdmin,
        costRules: deps.costRules,
        proposeCredit: deps.staff.proposeCredit,
        proposeDebit: deps.staff.proposeDebit,
        recipients: deps.recipients,
        ownMoney: deps.ownMoney,
        proposeOwn: deps.staff.proposeOwn,
        findings: deps.staff.desk,
      },
      deps.planSync,
      who,
    );
  addAdminServices(add, deps, callers, adminAs);
  addDeveloperAreaServices(add, deps, callers);
  addConsoleServices(add, deps, callers, adminAs);
  const health = addHealthAndReflection(server);
  return { server, health, listen: (host, port, tls) => listenOn(server, health, host, port, tls) };
}

/** What the gateway calls for the public API: purchases, key checks, the events feed, provider callbacks. */
function addApiServices(add: AddService, deps: CoreServerDeps, callers: Callers): void {
  add(PurchaseService, purchaseHandlers(deps.apiPurchases, deps), callers.service);
  add(AuthService, authHandlers(deps.accounts, deps.compat), callers.service);
  add(EventService, eventHandlers(deps.eventFeed), callers.service);
  add(FundingCallbackService, fundingCallbackHandlers(deps.funding), callers.service);
}

/** The operator's services, by the admin token alone. */
function addAdminServices(
  add: AddService,
  deps: CoreServerDeps,
  callers: Callers,
  adminAs: (who: Actor) => ReturnType<typeof adminHandlers>,
): void {
  // Every call the admin token makes that changes something is audited (actor `cli`): by a row
  // here or by its use case, as each service's table in core/rpc/policies.ts says.
  const audited = auditedCalls(deps.staff.audit);
  add(
    AdminService,
    audited(ADMIN_AUDIT, {
      ...adminAs(CLI_ACTOR),
      ...planCodeHandlers(deps.planCodes),
      ...compatAdminHandlers(deps.compat),
    }),
    callers.admin,
  );
  add(ApiAccessAdminService, audited(API_ACCESS_ADMIN_AUDIT, apiAccessAdminHandlers(deps.upgrades)), callers.admin);
  add(KycAdminService, audited(KYC_ADMIN_AUDIT, kycAdminHandlers(deps.levels)), callers.admin);
  add(UserAdminService, audited(USER_ADMIN_AUDIT, userAdminHandlers(deps.people)), callers.admin);
  add(FundingService, audited(FUNDING_AUDIT, fundingHandlers(deps.funding, deps.staff.proposeAssign)), callers.admin);
  add(
    WebhookService,
    audited(
      WEBHOOK_AUDIT,
      webhookHandlers(deps.webhooks, () => new Date()),
    ),
    callers.admin,
  );
}

/**
 * The developer area's services. The dashboard presents the service token; every call is
 * then bound to a session.
 */
function addDeveloperAreaServices(add: AddService, deps: CoreServerDeps, callers: Callers): void {
  add(
    HolderService,
    {
      ...holderHandlers(deps.people, deps.holderDesk, createHolderRecipients(deps.recipients), deps.onboarding),
      ...compatHolderHandlers(deps.people, deps.compat),
    },
    callers.service,
  );
  // Buying from the developer area: the API's own purchase handlers, for the session's account.
  add(
    ShopService,
    shopHandlers(deps.people, deps.shopDesk, purchaseHandlers(deps.apiPurchases, deps)),
    callers.service,
  );
  add(ApiAccessService, apiAccessHandlers(deps.people, deps.upgrades), callers.service);
  add(KycService, kycHandlers(deps.people, deps.levels), callers.service);
  add(
    HolderFundingService,
    holderFundingHandlers(deps.funding, deps.people, (accountId, mode) => deps.purchases.balance(accountId, mode)),
    callers.service,
  );
}

/** The staff's console (service token, then a staff session) and its administration (admin token). */
function addConsoleServices(
  add: AddService,
  deps: CoreServerDeps,
  callers: Callers,
  adminAs: (who: Actor) => ReturnType<typeof adminHandlers>,
): void {
  const { realm, desk, auditLog, reports, clockJump, accountsDesk, transactionsDesk } = deps.staff;
  const blocklist = createStaffBlocklist({ recipients: deps.recipients, audit: deps.staff.audit });
  add(
    ConsoleService,
    consoleHandlers({
      realm,
      desk,
      auditLog,
      catalog: deps.catalog,
      adminAs,
      reports,
      blocklist,
      clockJump,
      accountsDesk,
      transactionsDesk,
    }),
    callers.service,
  );
  add(KycConsoleService, kycConsoleHandlers(realm, deps.levels), callers.service);
  const audited = auditedCalls(deps.staff.audit);
  add(StaffAdminService, audited(STAFF_ADMIN_AUDIT, staffAdminHandlers(realm, auditLog, reports, desk)), callers.admin);
}

/** grpc.health.v1 (every service NOT_SERVING until listening) and reflection. */
function addHealthAndReflection(server: Server): CoreHealth {
  const health = createHealth({
    '': 'NOT_SERVING',
    ...Object.fromEntries(SERVICE_NAMES.map((name) => [name, 'NOT_SERVING'])),
  });
  health.addToServer(server);
  addReflection(
    server,
    // The error details too (google.rpc.Status, ErrorInfo, BadRequest): every error carries
    // them in grpc-status-details-bin, and a client that knows only reflection can then decode them.
    [
      file_prepaid_v1_purchase,
      file_prepaid_v1_auth,
      file_prepaid_v1_admin,
      file_prepaid_v1_holder,
      file_prepaid_v1_shop,
      file_prepaid_v1_access,
      file_prepaid_v1_kyc,
      file_prepaid_v1_webhooks,
      file_prepaid_v1_funding,
      file_prepaid_v1_console,
      file_grpc_health_v1_health,
      file_google_rpc_status,
      file_google_rpc_error_details,
    ],
    [...SERVICE_NAMES, 'grpc.health.v1.Health'],
  );
  return health;
}

/** Binds and starts serving (TLS only when `tls` is given); every service SERVING once bound. */
function listenOn(
  server: Server,
  health: CoreHealth,
  host: string,
  port: number,
  tls: { cert: Buffer; key: Buffer } | undefined,
): Promise<number> {
  return new Promise((resolve, reject) => {
    // No client certificates are asked for: callers authenticate with their bearer token.
    const credentials =
      tls === undefined
        ? ServerCredentials.createInsecure()
        : ServerCredentials.createSsl(null, [{ cert_chain: tls.cert, private_key: tls.key }], false);
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${port}`, credentials, (error, bound) => {
      if (error) return reject(error);
      for (const name of ['', ...SERVICE_NAMES]) health.setStatus(name, 'SERVING');
      resolve(bound);
    });
  });
}
