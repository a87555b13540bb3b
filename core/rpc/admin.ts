/** prepaid.v1.AdminService: requests in, use cases, messages out. No rule lives here. */

import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  AdminService as AdminServiceDesc,
  DebitWalletRequest,
  DebitWalletResponseSchema,
} from '../../gen/prepaid/v1/admin_pb.js';
import type { LedgerCheck } from '../accounts/ledger-check.js';
import type { RecipientControlsService } from '../accounts/recipients.js';
import type { AccountService, IssuedKeyPair } from '../accounts/service.js';
import type { Reconciliation } from '../books/daily.js';
import type { CostRules } from '../catalog/costs.js';
import type { CatalogService } from '../catalog/service.js';
import type { PlanSync } from '../catalog/sync.js';
import { invalid } from '../domain/errors.js';
import { MODES } from '../domain/mode.js';
import { sizeOrDefault } from '../domain/paging.js';
import { planTypeFromName, sizeMbFromName, validityDaysFromText } from '../domain/plans.js';
import { type PlanType, planTypeIsOff } from '../domain/products.js';
import type { CostRule, PricedProduct, RouteRecord, UpstreamAttemptRecord } from '../domain/records.js';
import type { OwnMoney } from '../ledger/own-money.js';
import type { PendingList } from '../purchases/pending-list.js';
import type { SupplyAdmin } from '../purchases/supply-admin.js';
import { type Actor, CLI_ACTOR } from '../staff/audit.js';
import type { Desk } from '../staff/desk.js';
import type { Backups } from '../storage/backup.js';
import type { RouteKey } from '../store/port.js';
import { booksHandlers, type ProposeOwn } from './books.js';
import type { CompatAdminMethods } from './compat.js';
import {
  accountMessage,
  apiKeyMessage,
  cablePackageMessage,
  catalogPlanMessage,
  int64In,
  keyLimitsIn,
  koboCapIn,
  koboIn,
  ledgerEntryMessage,
  MODE_TO_PROTO,
  modeIn,
  PRODUCT_TO_PROTO,
  productFromProto,
  tierMessage,
  timestampInit,
  transactionMessage,
} from './convert.js';
import type { Handlers } from './grpc.js';
import type { PlanCodeMethods } from './plan-codes.js';
import { recipientHandlers } from './recipients.js';
import { findingMessage, reconcileDay } from './reconcile.js';
import { ownTurn } from './turns.js';
import { planSyncMessage } from './upstream.js';

function routeKeyIn(key: { product: number; network: string; planType: string; disco: string } | undefined): RouteKey {
  const product = key === undefined ? null : productFromProto(key.product);
  if (key === undefined || product === null) throw invalid('key.product', 'key.product must be set.');
  return { product, network: key.network, planType: key.planType, disco: key.disco };
}

function routeMessage(route: RouteRecord) {
  return {
    key: {
      product: PRODUCT_TO_PROTO[route.product],
      network: route.network,
      planType: route.planType,
      disco: route.disco,
    },
    upstreams: route.upstreams,
    updatedAt: timestampInit(route.updatedAt),
  };
}

function costRuleMessage(rule: CostRule) {
  return {
    product: rule.product,
    service: rule.service,
    upstream: rule.upstream,
    commissionBasisPoints: rule.commissionBasisPoints,
  };
}

/** The operator (the admin token) freezing or unfreezing a key, as its record and the audit row name them. */
const CLI_FREEZER = { by: 'cli', actor: 'cli', address: null };

export function attemptMessage(attempt: UpstreamAttemptRecord) {
  return {
    seq: attempt.seq,
    upstream: attempt.upstream,
    startedAt: timestampInit(attempt.startedAt),
    outcome: attempt.outcome ?? '',
    evidence: attempt.evidence ?? '',
    costKobo: BigInt(attempt.costKobo ?? 0),
    ...(attempt.endedAt === null ? {} : { endedAt: timestampInit(attempt.endedAt) }),
  };
}

/** One upstream's health, as `upstreams list` and the console's queue show it. */
export function upstreamHealthMessage(u: Awaited<ReturnType<SupplyAdmin['health']>>[number]) {
  return {
    name: u.name,
    kind: u.kind,
    circuit: u.circuit,
    ...(u.floatKobo === null ? {} : { floatKobo: BigInt(u.floatKobo) }),
    ...(u.floatAlertKobo === null ? {} : { floatAlertKobo: BigInt(u.floatAlertKobo) }),
    lastError: u.lastError ?? '',
    purchasesLastHour: u.purchasesLastHour,
    failoversLastHour: u.failoversLastHour,
    skipped: u.skipped,
  };
}

function issued(key: IssuedKeyPair | null) {
  return key ? { publicKey: key.publicKey, secretKey: key.secretKey, mode: MODE_TO_PROTO[key.mode] } : undefined;
}

/** A live credit or debit the CLI asked for, under CLI_MONEY_MOVES=proposals: its memo or reason is `text`. */
export interface ProposedMove {
  accountId: string;
  amountKobo: number;
  text: string;
  reference: string;
}

/**
 * Under CLI_MONEY_MOVES=proposals: a live credit or debit made a four-eyes proposal (or, under
 * a reference proposed before, that proposal: replayed), with a debit's warning if the wallet is short.
 */
export type ProposeMove = (
  move: ProposedMove,
) => Promise<{ proposalId: string; replayed: boolean; status: string; warning?: string }>;

/** DebitWalletRequest: a manual debit, or under CLI_MONEY_MOVES=proposals a live one proposed. */
async function debitWallet(
  accounts: AccountService,
  proposeDebit: ProposeMove | undefined,
  req: DebitWalletRequest,
): Promise<MessageInitShape<typeof DebitWalletResponseSchema>> {
  const mode = modeIn(req.mode);
  if (proposeDebit !== undefined && mode === 'live') {
    const proposed = await proposeDebit({
      accountId: req.accountId,
      amountKobo: int64In(req.amountKobo, 'amount'),
      text: req.reason,
      reference: req.reference,
    });
    const account = await accounts.getAccount(req.accountId);
    return {
      balanceKobo: BigInt(account.balanceKobo),
      replayed: proposed.replayed,
      proposalId: proposed.proposalId,
      proposalStatus: proposed.status,
      warning: proposed.warning ?? '',
    };
  }
  const debited = await accounts.debit(req.accountId, mode, koboIn(req.amountKobo, 'amount'), req.reason, {
    reference: req.reference,
  });
  return {
    balanceKobo: BigInt(debited.balanceKobo),
    entry: ledgerEntryMessage(debited.entry),
    replayed: debited.replayed,
  };
}

type AdminHandlers = Omit<Handlers<(typeof AdminServiceDesc)['method']>, PlanCodeMethods | CompatAdminMethods>;

/** What the admin handlers call besides the accounts and the catalogue. */
interface AdminOperations {
  /** Backups of the embedded store (core/storage/backup.ts). */
  backups: Backups;
  /** The reconciliation with the upstreams (core/books/daily.ts). */
  reconciliation: Reconciliation;
  pendingList: PendingList;
  ledgerCheck: LedgerCheck;
  supply: SupplyAdmin;
  /** What upstreams charge for airtime, electricity and cable (their commission). */
  costRules: CostRules;
  /** Set under CLI_MONEY_MOVES=proposals: a live credit becomes a four-eyes proposal. */
  proposeCredit?: ProposeMove | undefined;
  /** Set under CLI_MONEY_MOVES=proposals: a live debit becomes a four-eyes proposal. */
  proposeDebit?: ProposeMove | undefined;
  /** Blocklists and per-recipient limits. */
  recipients: RecipientControlsService;
  /** The books: the trial balance and the platform's own entries. */
  ownMoney: OwnMoney;
  /** Set under CLI_MONEY_MOVES=proposals: a top-up or settlement becomes a four-eyes proposal. */
  proposeOwn?: ProposeOwn | undefined;
  /** The reconciliation's findings listed and resolved (core/staff/desk.ts), as `cli`. */
  findings: Pick<Desk, 'listFindings' | 'resolveFinding'>;
}

/** An audit row's author and note, as the catalogue's changes take them. */
type By = (note: string) => Actor & { note: string };

/** Accounts, their key pairs and their wallets. */
function accountHandlers(accounts: AccountService, operations: AdminOperations) {
  return {
    async createAccount(req) {
      const { account, issuedKey } = await accounts.createAccount(req.name, req.tierId);
      return { account: accountMessage(account), issuedKey: issued(issuedKey) };
    },
    async getAccount(req) {
      return { account: accountMessage(await accounts.getAccount(req.accountId)) };
    },
    async setAccountTier(req) {
      const { account, issuedKey } = await accounts.setTier(req.accountId, req.tierId);
      return { account: accountMessage(account), issuedKey: issued(issuedKey) };
    },
    async createApiKey(req) {
      const limits = req.limits === undefined ? undefined : keyLimitsIn(req.limits);
      return { issuedKey: issued(await accounts.createKey(req.accountId, modeIn(req.mode), limits)) };
    },
    async listApiKeys(req) {
      return { keys: (await accounts.listKeys(req.accountId)).map(apiKeyMessage) };
    },
    async revokeApiKey(req) {
      return { key: apiKeyMessage(await accounts.revokeKey(req.publicKey)) };
    },
    async setApiKeyIpLock(req) {
      return { key: apiKeyMessage(await accounts.setKeyIpLock(req.publicKey, req.allowedIps)) };
    },
    async rollApiKey(req) {
      const { issued: pair, old } = await accounts.rollKey(req.publicKey, req.graceHours);
      return { issuedKey: issued(pair), oldKey: apiKeyMessage(old) };
    },
    async freezeApiKey(req) {
      return { key: apiKeyMessage(await accounts.freezeKey(req.publicKey, req.reason, CLI_FREEZER)) };
    },
    async unfreezeApiKey(req) {
      return { key: apiKeyMessage(await accounts.unfreezeKey(req.publicKey, CLI_FREEZER)) };
    },
    async setApiKeyLimits(req) {
      const change = {
        ...(req.scopes === undefined ? {} : { scopes: req.scopes }),
        ...(req.capPerPurchaseKobo === undefined ? {} : { capPerPurchaseKobo: koboCapIn(req.capPerPurchaseKobo) }),
        ...(req.capPerDayKobo === undefined ? {} : { capPerDayKobo: koboCapIn(req.capPerDayKobo) }),
      };
      return { key: apiKeyMessage(await accounts.setKeyLimits(req.publicKey, change)) };
    },
    async creditWallet(req) {
      const mode = modeIn(req.mode);
      if (operations.proposeCredit !== undefined && mode === 'live') {
        const proposed = await operations.proposeCredit({
          accountId: req.accountId,
          amountKobo: int64In(req.amountKobo, 'amount'),
          text: req.memo,
          reference: req.reference,
        });
        const account = await accounts.getAccount(req.accountId);
        return {
          balanceKobo: BigInt(account.balanceKobo),
          replayed: proposed.replayed,
          proposalId: proposed.proposalId,
          proposalStatus: proposed.status,
        };
      }
      const { balanceKobo, entry, replayed } = await accounts.credit(
        req.accountId,
        modeIn(req.mode),
        koboIn(req.amountKobo, 'amount'),
        req.memo,
        {
          reference: req.reference,
        },
      );
      return { balanceKobo: BigInt(balanceKobo), entry: ledgerEntryMessage(entry), replayed };
    },
    debitWallet: (req) => debitWallet(accounts, operations.proposeDebit, req),
    async listLedgerEntries(req) {
      await ownTurn();
      const page = await accounts.ledger(req.accountId, modeIn(req.mode), sizeOrDefault(req.pageSize), req.pageToken);
      return { entries: page.items.map(ledgerEntryMessage), nextPageToken: page.next ?? '' };
    },
  } satisfies Partial<AdminHandlers>;
}

/** What each tier pays: tiers, their price rules, what upstreams charge and the SMS rate. */
function pricingHandlers(catalog: CatalogService, costRules: CostRules, by: By) {
  return {
    async listTiers() {
      return { tiers: (await catalog.listTiers()).map(tierMessage) };
    },
    async upsertTier(req) {
      if (!req.tier) throw invalid('tier', 'tier is required.');
      const discounts = req.tier.discounts.map((d, i) => {
        const product = productFromProto(d.product);
        if (!product) throw invalid(`tier.discounts[${i}].product`, 'product must be set.');
        return { product, service: d.service, basisPoints: d.basisPoints };
      });
      // Price rules change only through SetPriceRule (audited, announced); an upsert keeps them.
      const existing = await catalog.listTiers();
      const tier = await catalog.upsertTier(
        {
          tierId: req.tier.tierId,
          name: req.tier.name,
          apiAccess: req.tier.apiAccess,
          discounts,
          priceRules: existing.find((t) => t.tierId === req.tier!.tierId)?.priceRules ?? [],
        },
        by(''),
      );
      return { tier: tierMessage(tier) };
    },
    async setPriceRule(req) {
      if (!req.rule) throw invalid('rule', 'rule is required (its product, network, plan_type and service name it).');
      const r = req.rule;
      const result = await catalog.setPriceRule(
        req.tierId,
        {
          product: (r.product || 'data') as PricedProduct,
          network: r.network,
          planType: r.planType,
          service: r.service,
        },
        req.remove
          ? null
          : {
              marginBasisPoints: r.marginBasisPoints,
              marginKobo: koboIn(r.marginKobo, 'rule.margin_kobo'),
              floorKobo: koboIn(r.floorKobo, 'rule.floor_kobo'),
              ceilingKobo: koboIn(r.ceilingKobo, 'rule.ceiling_kobo'),
              aboveFaceValue: r.aboveFaceValue,
            },
        by(req.note),
      );
      return { tier: tierMessage(result.tier), events: result.events };
    },
    async listCostRules() {
      return { rules: (await costRules.list()).map(costRuleMessage) };
    },
    async setCostRule(req) {
      if (!req.rule) throw invalid('rule', 'rule is required (its product, service and upstream name the rule).');
      const r = req.rule;
      const result = await costRules.set(
        {
          product: r.product,
          service: r.service,
          upstream: r.upstream,
          commissionBasisPoints: req.remove ? null : r.commissionBasisPoints,
        },
        by(req.note),
      );
      return { ...(result.rule === null ? {} : { rule: costRuleMessage(result.rule) }), changed: result.changed };
    },
    async getSmsRate() {
      return { koboPerPage: BigInt(await catalog.getSmsRate()) };
    },
    async setSmsRate(req) {
      return { koboPerPage: BigInt(await catalog.setSmsRate(koboIn(req.koboPerPage, 'kobo_per_page'), by(''))) };
    },
  } satisfies Partial<AdminHandlers>;
}

/** What is sold: data plans (kept by hand or synced from the upstreams) and cable packages. */
function productHandlers(catalog: CatalogService, planSync: PlanSync, by: By) {
  return {
    async listCatalogPlans(req) {
      const off = await catalog.listPlanTypesOff();
      return {
        plans: (await catalog.listPlans(req.network)).map((plan) =>
          catalogPlanMessage(plan, !planTypeIsOff(off, plan)),
        ),
      };
    },
    async upsertPlan(req) {
      if (!req.plan) throw invalid('plan', 'plan is required.');
      const p = req.plan;
      const planId = int64In(p.planId, 'plan.plan_id');
      const existing = planId > 0 ? await catalog.getPlan(planId) : null;
      // Type, size and days left out (empty, 0) keep what the plan had, or are read from its texts.
      const plan = await catalog.upsertPlan({
        planId,
        network: p.network,
        label: p.label,
        validity: p.validity,
        type: (p.type || existing?.type || planTypeFromName(p.label)) as PlanType,
        sizeMb: p.sizeMb || existing?.sizeMb || sizeMbFromName(p.label),
        validityDays: p.validityDays || existing?.validityDays || validityDaysFromText(p.validity),
        faceValueKobo: koboIn(p.faceValueKobo, 'plan.face_value_kobo'),
        tierPricesKobo: Object.fromEntries(
          p.tierPrices.map((tp) => [tp.tierId, koboIn(tp.priceKobo, 'plan.tier_prices')]),
        ),
        // Costs change only through SetPlanCost, syncs and pushes (audited).
        costsKobo: existing?.costsKobo ?? {},
        active: p.active,
        providerCode: p.providerCode,
      });
      return { plan: catalogPlanMessage(plan) };
    },
    async setPlanTypeEnabled(req) {
      const result = await catalog.setPlanTypeEnabled(req.network, req.planType, req.enabled, by(req.note));
      return {
        changed: result.changed,
        plans: result.plans.map((plan) => catalogPlanMessage(plan, req.enabled)),
        events: result.events,
      };
    },
    async setPlanCost(req) {
      const result = await catalog.setPlanCost(
        int64In(req.planId, 'plan_id'),
        req.upstream,
        koboIn(req.costKobo, 'cost_kobo'),
        by(req.note),
      );
      return { plan: catalogPlanMessage(result.plan), events: result.events };
    },
    async listCablePackages(req) {
      return { packages: (await catalog.listCablePackages(req.provider)).map(cablePackageMessage) };
    },
    async upsertCablePackage(req) {
      if (!req.package) throw invalid('package', 'package is required.');
      const p = req.package;
      const pkg = await catalog.upsertCablePackage({
        provider: p.provider,
        packageCode: p.packageCode,
        name: p.name,
        priceKobo: koboIn(p.priceKobo, 'package.price_kobo'),
        active: p.active,
        providerCode: p.providerCode,
      });
      return { package: cablePackageMessage(pkg) };
    },
    async syncPlans(req) {
      return planSyncMessage(await planSync.sync(req.dryRun));
    },
  } satisfies Partial<AdminHandlers>;
}

/** The supply side: pending purchases, routes to upstreams, their attempts and health. */
function supplyHandlers(operations: AdminOperations, who: Actor) {
  return {
    async listPendingTransactions(req) {
      const page = await operations.pendingList.list(
        req.needsAttentionOnly,
        sizeOrDefault(req.pageSize),
        req.pageToken,
      );
      return { transactions: page.items.map(transactionMessage), nextPageToken: page.next ?? '' };
    },
    async listRoutes() {
      const { routes, defaults } = await operations.supply.listRoutes();
      return {
        routes: routes.map(routeMessage),
        defaults: defaults.map((d) => ({
          key: { product: PRODUCT_TO_PROTO[d.product], network: '', planType: '', disco: '' },
          upstreams: [...d.upstreams],
        })),
        upstreams: operations.supply.upstreams().map((u) => ({
          name: u.name,
          kind: u.kind,
          products: u.products.map((p) => PRODUCT_TO_PROTO[p]),
        })),
      };
    },
    async setRoute(req) {
      const { route, before } = await operations.supply.setRoute(
        routeKeyIn(req.key),
        req.upstreams,
        who.actor,
        who.address,
      );
      return { route: routeMessage(route), ...(before === null ? {} : { before: routeMessage(before) }) };
    },
    async clearRoute(req) {
      const before = await operations.supply.clearRoute(routeKeyIn(req.key), who.actor, who.address);
      return before === null ? {} : { before: routeMessage(before) };
    },
    async listUpstreamAttempts(req) {
      if (req.reference === '') throw invalid('reference', 'reference must be set.');
      return { attempts: (await operations.supply.attemptsOf(req.reference)).map(attemptMessage) };
    },
    async listUpstreamHealth() {
      return {
        upstreams: (await operations.supply.health()).map(upstreamHealthMessage),
      };
    },
    async setUpstreamFloatAlert(req) {
      if (req.alertKobo < 0n) throw invalid('alert_kobo', 'alert_kobo must be 0 (no alert) or more.');
      const alert = req.alertKobo === 0n ? null : koboIn(req.alertKobo, 'alert_kobo');
      const { before } = await operations.supply.setFloatAlert(req.name, alert, who.actor, who.address);
      return {
        ...(alert === null ? {} : { alertKobo: BigInt(alert) }),
        ...(before === null ? {} : { beforeKobo: BigInt(before) }),
      };
    },
  } satisfies Partial<AdminHandlers>;
}

/** The ledger's consistency check, stopped when its caller gives up. */
const checkLedger =
  (ledgerCheck: LedgerCheck): AdminHandlers['checkLedger'] =>
  async (_req, call) => {
    // A caller that gave up (deadline, Ctrl-C) cancels the call; the check stops with it
    // instead of reading on for nobody.
    const abandoned = new AbortController();
    call.once('cancelled', () => abandoned.abort(new Error('the caller cancelled the ledger check')));
    const audit = await ledgerCheck.check(abandoned.signal);
    return {
      accountsChecked: BigInt(audit.accountsChecked),
      transactionsChecked: BigInt(audit.transactionsChecked),
      entriesChecked: BigInt(audit.entriesChecked),
      violationCount: BigInt(audit.violationCount),
      violations: audit.violations.map((v) => ({ ...v, mode: MODE_TO_PROTO[v.mode] })),
      pendingCount: BigInt(audit.pendingCount),
      needsAttentionCount: BigInt(audit.needsAttentionCount),
      modes: MODES.map((mode) => {
        const found = audit.modes[mode];
        return {
          mode: MODE_TO_PROTO[mode],
          transactionsChecked: BigInt(found.transactionsChecked),
          entriesChecked: BigInt(found.entriesChecked),
          pendingCount: BigInt(found.pendingCount),
          needsAttentionCount: BigInt(found.needsAttentionCount),
          violationCount: BigInt(found.violationCount),
        };
      }),
    };
  };

export function adminHandlers(
  accounts: AccountService,
  catalog: CatalogService,
  operations: AdminOperations,
  planSync: PlanSync,
  /**
   * Who the changes are by, for the audit log: the admin token (`cli`), or a staff member
   * when the console makes the same change through these handlers (core/rpc/console.ts).
   */
  who: Actor = CLI_ACTOR,
): AdminHandlers {
  const by: By = (note) => ({ actor: who.actor, address: who.address, note });
  return {
    ...accountHandlers(accounts, operations),
    ...pricingHandlers(catalog, operations.costRules, by),
    ...productHandlers(catalog, planSync, by),
    ...supplyHandlers(operations, who),
    ...recipientHandlers(operations.recipients, accounts),
    ...booksHandlers(operations.ownMoney, operations.proposeOwn, who),
    checkLedger: checkLedger(operations.ledgerCheck),
    async takeBackup(req) {
      const taken = await operations.backups.take(req.toDir, req.passphrase);
      return { path: taken.path, manifestJson: JSON.stringify(taken.manifest, null, 2), warnings: taken.warnings };
    },
    reconcile: (req) => reconcileDay(operations.reconciliation, req),
    async listReconcileFindings(req) {
      return { findings: (await operations.findings.listFindings(req.openOnly, req.limit)).map(findingMessage) };
    },
    async resolveReconcileFinding(req) {
      const resolved = await operations.findings.resolveFinding(req.findingId, req.note, req.proposalId, who);
      return { finding: findingMessage(resolved) };
    },
  };
}
