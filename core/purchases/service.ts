/**
 * Purchase use cases: load what the pure rules need from the store, build the order,
 * run the two-phase flow. One function per public operation.
 */

import type { RecipientControlsService } from '../accounts/recipients.js';
import {
  DomainError,
  type FieldViolation,
  invalid,
  notFound,
  refuseIfSuspended,
  throwIfViolations,
} from '../domain/errors.js';
import type { Mode } from '../domain/mode.js';
import type { Kobo } from '../domain/money.js';
import {
  type AirtimeInput,
  airtimeOrder,
  type BulkSmsInput,
  bulkSmsOrder,
  type CableInput,
  cableOrder,
  checkMeterMinimum,
  type DataInput,
  dataOrder,
  type ElectricityInput,
  electricityOrder,
} from '../domain/orders.js';
import { historyPageSize, type Page, readPage } from '../domain/paging.js';
import { type FaceValueSale, faceValueCostAt, faceValuePriceFor, planCostAt, planPriceFor } from '../domain/pricing.js';
import {
  CABLE_PROVIDERS,
  canonicalNetwork,
  NETWORK_NAMES,
  networkNames,
  PLAN_TYPES,
  type PurchaseOrder,
  planTypeIsOff,
  RENEWABLE_CABLE_PROVIDERS,
} from '../domain/products.js';
import {
  type AccountRecord,
  balanceOf,
  type CablePackageRecord,
  type CostRule,
  type PlanRecord,
  type ReserveChecks,
  type TierRecord,
  type TransactionRecord,
} from '../domain/records.js';
import { refuseUnverifiedLive } from '../domain/sign-up.js';
import { checkOneOf, REQUEST_ID_PATTERN } from '../domain/validation.js';
import type { CustomerDetails, CustomerQuery, VerifyOutcome } from '../providers/port.js';
import type { Store } from '../store/port.js';
import { executePurchase, type PurchaseDeps, type PurchaseResult } from './flow.js';

export interface PricedPlan {
  plan: PlanRecord;
  priceKobo: Kobo;
}

export interface PricedCablePackage {
  pkg: CablePackageRecord;
  priceKobo: Kobo;
}

/**
 * The longest a purchase waits for the customer lookup it makes first (the meter's minimum,
 * the card's bouquet). A lookup that takes longer is given up and the purchase goes on as
 * it would without it: the facts are a refinement, not a gate.
 */
const LOOKUP_BEFORE_PURCHASE_MS = 5_000;

/** The cost rules of airtime, electricity and cable as the margin guard reads them (core/catalog/costs.ts). */
interface CostRuleReader {
  current(): Promise<readonly CostRule[]>;
}

type PurchaseServiceDeps = PurchaseDeps & {
  store: Pick<Store, 'accounts' | 'catalog'>;
  costRules?: CostRuleReader;
  refuseSuspended?: boolean;
  /** Recipient controls (core/accounts/recipients.ts); without them no recipient is checked. */
  recipients?: Pick<RecipientControlsService, 'checksFor'>;
};

/**
 * Pricing needs the account's tier and the catalog besides what the flow touches. With
 * `refuseSuspended` (the API's instance, core/rpc/purchase.ts) every use case that reads the
 * account refuses a suspended one on that same read: the suspension holds from the next
 * request, at no read of its own. Without it (the developer area's reads) it is not refused.
 */
export function createPurchaseService(deps: PurchaseServiceDeps) {
  const { store } = deps;
  const shared: SharedReads = {
    accountAndTier: accountReader(deps),
    costRules: deps.costRules ?? { current: () => store.catalog.listCostRules() },
  };
  const { accountAndTier } = shared;

  return {
    /** Whether the use cases that read the account refuse a suspended one themselves (above). */
    refusesSuspended: deps.refuseSuspended === true,

    /**
     * Refuses a suspended account's API call (ACCOUNT_SUSPENDED). Every PurchaseService RPC
     * asks it first, so a suspension holds from the next request whatever the gateway's short
     * key cache still trusts; the developer area's reads (which use this service too) are not
     * refused, only its changes (PeopleService.requireOwner).
     */
    async requireActive(accountId: string): Promise<void> {
      const account = accountId === '' ? null : await store.accounts.get(accountId);
      if (account) refuseIfSuspended(account);
    },

    /** The account, its tier, and the balance of its wallet in `mode`. */
    async balance(
      accountId: string,
      mode: Mode,
    ): Promise<{ account: AccountRecord; tier: TierRecord; balanceKobo: Kobo }> {
      const { account, tier } = await accountAndTier(accountId);
      return { account, tier, balanceKobo: balanceOf(account, mode) };
    },

    ...purchaseOperations(deps, shared, createMarginGuard(deps)),

    ...priceLists(deps, shared),

    /**
     * One of the account's transactions in `mode`; another account's reference, or one of the
     * other mode, is not found, never shown.
     */
    async transaction(accountId: string, mode: Mode, reference: string): Promise<TransactionRecord> {
      const tx = reference ? await store.transactions.get(reference) : null;
      if (!tx || tx.accountId !== accountId || tx.mode !== mode)
        throw notFound(`Transaction ${quotedReference(reference)}`);
      return tx;
    },

    /**
     * The account's purchase in `mode` made with the idempotency key `requestId` (the
     * compatible endpoints' re-query by the client's own key); an unknown or malformed key is
     * not found.
     */
    async transactionByRequestId(accountId: string, mode: Mode, requestId: string): Promise<TransactionRecord> {
      const tx = REQUEST_ID_PATTERN.test(requestId)
        ? await store.transactions.getByRequestId(accountId, mode, requestId)
        : null;
      if (!tx || tx.accountId !== accountId || tx.mode !== mode)
        throw notFound(`Transaction with request_id ${quotedReference(requestId)}`);
      return tx;
    },

    /** A page of the account's history in `mode`; `pageSize` undefined means the default size. */
    async history(
      accountId: string,
      mode: Mode,
      pageSize: number | undefined,
      pageToken: string,
    ): Promise<Page<TransactionRecord>> {
      await accountAndTier(accountId);
      const limit = historyPageSize(pageSize);
      return readPage('cursor', () =>
        store.transactions.listByAccount(accountId, mode, { limit, ...(pageToken ? { after: pageToken } : {}) }),
      );
    },
  };
}

/** The reserve's checks with the account's recipient controls, after the platform's blocklist (none without them). */
function recipientChecks(
  deps: PurchaseServiceDeps,
  account: AccountRecord,
  order: PurchaseOrder,
  checks: ReserveChecks | undefined,
): Promise<ReserveChecks | undefined> | ReserveChecks | undefined {
  return deps.recipients === undefined ? checks : deps.recipients.checksFor(account, order, checks);
}

/** What every use case of the service reads first: the account with its tier, and the cost rules. */
interface SharedReads {
  /** With `mode`, for a purchase: a live one of an account whose owner is not verified is refused. */
  accountAndTier(accountId: string, mode?: Mode): Promise<{ account: AccountRecord; tier: TierRecord }>;
  readonly costRules: CostRuleReader;
}

/** The account and its tier, refusing a suspended account when the service is built to (above). */
function accountReader(deps: PurchaseServiceDeps): SharedReads['accountAndTier'] {
  const { store } = deps;
  return async function accountAndTier(
    accountId: string,
    mode?: Mode,
  ): Promise<{ account: AccountRecord; tier: TierRecord }> {
    if (accountId === '') throw invalid('account_id', 'account_id is required.');
    const found = await store.accounts.getWithTier(accountId);
    if (!found) throw notFound(`Account ${accountId}`);
    const { account, tier } = found;
    if (deps.refuseSuspended) refuseIfSuspended(account);
    if (mode !== undefined) refuseUnverifiedLive(account, mode);
    if (!tier)
      throw new DomainError('INTERNAL', `Account ${accountId} is on tier ${account.tierId}, which does not exist.`);
    return { account, tier };
  };
}

/**
 * The five purchases: each prices its order for the account's tier, asks the margin guard
 * which upstreams would sell below cost, and runs the two-phase flow.
 */
function purchaseOperations(deps: PurchaseServiceDeps, shared: SharedReads, margin: MarginGuard) {
  const { accountAndTier, costRules } = shared;
  return {
    async airtime(
      accountId: string,
      mode: Mode,
      input: AirtimeInput,
      requestId: string,
      checks?: ReserveChecks,
    ): Promise<PurchaseResult> {
      const { account, tier } = await accountAndTier(accountId, mode);
      const rules = await costRules.current();
      const order = airtimeOrder(input, tier, rules);
      checks = await recipientChecks(deps, account, order, checks);
      const belowCost = await margin.faceValueBelowCost(order, mode, rules);
      return executePurchase(deps, accountId, mode, order, requestId, belowCost, checks);
    },

    async data(
      accountId: string,
      mode: Mode,
      input: DataInput,
      requestId: string,
      checks?: ReserveChecks,
    ): Promise<PurchaseResult> {
      const { account, tier } = await accountAndTier(accountId, mode);
      const plan =
        Number.isSafeInteger(input.planId) && input.planId > 0 ? await deps.store.catalog.getPlan(input.planId) : null;
      const order = dataOrder(input, plan, tier);
      checks = await recipientChecks(deps, account, order, checks);
      const sold = plan!;
      const off = await deps.store.catalog.listPlanTypesOff();
      if (planTypeIsOff(off, sold)) {
        throw new DomainError(
          'PLAN_DISABLED',
          `plan_id ${sold.planId} is not on sale for now: ${sold.type.toUpperCase()} plans on ` +
            `${networkNames(sold.network).join(' / ').toUpperCase()} are switched off. ` +
            'Nothing was charged; see action=plans for the plans on sale.',
          { metadata: { plan_id: String(sold.planId), network: sold.network, plan_type: sold.type } },
        );
      }
      const belowCost =
        Object.keys(sold.costsKobo).length === 0
          ? []
          : await margin.upstreamsBelowCost(order, mode, (upstream) => planCostAt(sold, upstream), sold.type);
      return executePurchase(deps, accountId, mode, order, requestId, belowCost, checks);
    },

    async electricity(
      accountId: string,
      mode: Mode,
      input: ElectricityInput,
      requestId: string,
      checks?: ReserveChecks,
    ): Promise<PurchaseResult> {
      const { account, tier } = await accountAndTier(accountId, mode);
      const rules = await costRules.current();
      const order = electricityOrder(input, tier, rules);
      checks = await recipientChecks(deps, account, order, checks);
      // Before the lookup: a sale refused for cost asks the upstream nothing.
      const belowCost = await margin.faceValueBelowCost(order, mode, rules);
      // The disco's own minimum and arrears for this meter, where it tells them (verify).
      const meter = await lookUp(deps, mode, {
        product: 'electricity',
        service: input.disco,
        number: input.meterNumber,
        meterType: order.details.meterType!,
      });
      if (meter !== null) checkMeterMinimum(input, meter);
      return executePurchase(deps, accountId, mode, named(order, meter), requestId, belowCost, checks);
    },

    async cable(
      accountId: string,
      mode: Mode,
      input: CableInput,
      requestId: string,
      checks?: ReserveChecks,
    ): Promise<PurchaseResult> {
      const { account, tier } = await accountAndTier(accountId, mode);
      const packages = input.provider ? await deps.store.catalog.listCablePackages({ provider: input.provider }) : [];
      // Check the request before asking the upstream about the card: a bad one is a 422 either
      // way, and a blocked card is refused before any upstream hears of it.
      checks = await recipientChecks(deps, account, cableOrder(input, packages, tier), checks);
      // DStv and GOtv: the card's current bouquet decides between renew and change, and a
      // renewal costs what the upstream says it costs.
      const card = (RENEWABLE_CABLE_PROVIDERS as readonly string[]).includes(input.provider)
        ? await lookUp(deps, mode, { product: 'cable', service: input.provider, number: input.smartCard })
        : null;
      const rules = await costRules.current();
      const order = cableOrder(input, packages, tier, card, rules);
      const belowCost = await margin.faceValueBelowCost(order, mode, rules);
      return executePurchase(deps, accountId, mode, named(order, card), requestId, belowCost, checks);
    },

    async bulkSms(
      accountId: string,
      mode: Mode,
      input: BulkSmsInput,
      requestId: string,
      checks?: ReserveChecks,
    ): Promise<PurchaseResult> {
      const { tier } = await accountAndTier(accountId, mode);
      const rateKobo = await deps.store.catalog.getSmsRateKobo();
      return executePurchase(deps, accountId, mode, bulkSmsOrder(input, rateKobo, tier), requestId, [], checks);
    },
  };
}

/** What the account pays, before it buys: plans, face-value prices and cable packages. */
function priceLists(deps: PurchaseServiceDeps, shared: SharedReads) {
  const { accountAndTier, costRules } = shared;
  return {
    /**
     * The plans on sale with the account's price, optionally for one network and one type:
     * active, and of a type not switched off on its network.
     */
    async plans(accountId: string, network: string, planType = ''): Promise<PricedPlan[]> {
      const { tier } = await accountAndTier(accountId);
      const violations: FieldViolation[] = [];
      if (network !== '') checkOneOf('network', network, NETWORK_NAMES, violations);
      if (planType !== '') checkOneOf('type', planType, PLAN_TYPES, violations);
      throwIfViolations(violations);
      const canonical = network === '' ? undefined : canonicalNetwork(network);
      const plans = await deps.store.catalog.listPlans({
        activeOnly: true,
        ...(canonical ? { network: canonical } : {}),
      });
      const off = await deps.store.catalog.listPlanTypesOff();
      const onSale = (plan: PlanRecord) => !planTypeIsOff(off, plan);
      // Asked by another name (t2), the plans answer under that name.
      return plans
        .filter((plan) => (planType === '' || plan.type === planType) && onSale(plan))
        .map((plan) => ({
          plan: network === '' || network === plan.network ? plan : { ...plan, network },
          priceKobo: planPriceFor(tier, plan),
        }));
    },

    /** What `tier` pays for a sale of airtime, electricity or cable: the very charge the purchase makes. */
    async faceValuePrice(tier: TierRecord, sale: FaceValueSale): Promise<Kobo> {
      return faceValuePriceFor(tier, sale, await costRules.current());
    },

    /** The active cable packages at this account's price: the very charge PayCable makes. */
    async cablePackages(accountId: string, provider: string): Promise<PricedCablePackage[]> {
      const { tier } = await accountAndTier(accountId);
      if (provider !== '') {
        const violations: FieldViolation[] = [];
        checkOneOf('provider', provider, CABLE_PROVIDERS, violations);
        throwIfViolations(violations);
      }
      const packages = await deps.store.catalog.listCablePackages(provider ? { provider } : {});
      const rules = await costRules.current();
      return packages
        .filter((pkg) => pkg.active)
        .map((pkg) => ({
          pkg,
          priceKobo: faceValuePriceFor(
            tier,
            { product: 'cable', service: pkg.provider, faceValueKobo: pkg.priceKobo },
            rules,
          ),
        }));
    },
  };
}

type MarginGuard = ReturnType<typeof createMarginGuard>;

/**
 * The margin guard over the purchase deps: which upstreams of a sale's route would sell it
 * below their cost, and the refusal when all of them would.
 */
function createMarginGuard(deps: PurchaseServiceDeps) {
  /**
   * The margin guard, which routes before it refuses: the upstreams of the sale's route (in
   * live mode with routing; otherwise its family's provider alone) that sell its product and
   * would sell it below their cost. When some upstream of the route covers the cost, the
   * others are returned for routing to leave out (`below_cost`); when none does, the sale is
   * refused (guardMargin). An upstream with no known cost is no guard's business. Read from
   * the kept route table, without the route's health (which only reorders the operator's
   * choice) and without side effects.
   */
  async function upstreamsBelowCost(
    order: PurchaseOrder,
    mode: Mode,
    costAt: (upstream: string) => Kobo | undefined,
    planType = '',
  ): Promise<readonly string[]> {
    const supply = deps.supply;
    const own = deps.providers[mode][order.product].name;
    if (mode !== 'live' || supply === undefined) {
      guardMargin(order, costAt(own), own, mode);
      return [];
    }
    const route = await supply.router.routeOf({ product: order.product, service: order.service, planType });
    const selling = route.filter(
      (name) => supply.router.supply.upstreams.get(name)?.products[order.product] !== undefined,
    );
    if (selling.length === 0) selling.push(route[0] ?? own);
    const below = selling.filter((name) => {
      const cost = costAt(name);
      return cost !== undefined && order.chargedKobo < cost;
    });
    if (below.length === selling.length) guardMargin(order, costAt(selling[0]!), selling[0]!, mode);
    if (below.length > 0)
      deps.log('pricing.routed_for_margin', {
        mode,
        product: order.product,
        product_service: order.service,
        price_kobo: order.chargedKobo,
        below_cost: below.join(','),
      });
    return below;
  }

  /**
   * The margin guard of a sale of airtime, electricity or cable: its cost at an upstream is
   * the face value less that upstream's commission, where the operator told it (`prepaid
   * pricing costs set`). No rule, no guard, and no route read.
   */
  async function faceValueBelowCost(
    order: PurchaseOrder,
    mode: Mode,
    rules: readonly CostRule[],
  ): Promise<readonly string[]> {
    if (rules.length === 0) return [];
    const sale = { product: order.product, service: costService(order), faceValueKobo: order.faceValueKobo };
    return upstreamsBelowCost(order, mode, (upstream) => faceValueCostAt(rules, sale, upstream));
  }

  /**
   * The margin guard: a sale priced below what the upstream charges for it now is refused
   * before any debit, and an operator is told (a warn line, a metric), since the price
   * rules or a fixed price need looking at. No known cost, no guard.
   */
  function guardMargin(order: PurchaseOrder, costKobo: Kobo | undefined, upstream: string, mode: Mode): void {
    if (costKobo === undefined || order.chargedKobo >= costKobo) return;
    deps.log('pricing.below_cost', {
      level: 'warn',
      mode,
      product: order.product,
      product_service: order.service,
      ...(order.details.planId === undefined ? {} : { plan_id: order.details.planId }),
      face_value_kobo: order.faceValueKobo,
      upstream,
      price_kobo: order.chargedKobo,
      cost_kobo: costKobo,
    });
    deps.observer?.refusedBelowCost(order.product, upstream, mode);
    throw new DomainError(
      'PRICE_BELOW_COST',
      order.product === 'data'
        ? 'This product cannot be sold at this price right now: its cost has gone up. ' +
            'Nothing was charged; see action=plans for current prices and try again shortly.'
        : `This ${order.product} purchase cannot be sold at your price right now: ` +
            'it costs more than that at the upstream. Nothing was charged; try again shortly.',
    );
  }

  return { upstreamsBelowCost, faceValueBelowCost };
}

export type PurchaseService = ReturnType<typeof createPurchaseService>;

/**
 * What the upstream tells about a meter or card before it is paid for, or null when it
 * tells nothing usable (not found, no answer in time): the purchase then goes on, and the
 * upstream's own answer to the payment decides, as it did before the lookup existed.
 */
async function lookUp(
  deps: Pick<PurchaseDeps, 'providers' | 'providerTimeoutMs' | 'log'>,
  mode: Mode,
  query: CustomerQuery,
): Promise<CustomerDetails | null> {
  const provider = deps.providers[mode][query.product];
  let outcome: VerifyOutcome;
  try {
    outcome = await provider.verify(
      query,
      AbortSignal.timeout(Math.min(deps.providerTimeoutMs, LOOKUP_BEFORE_PURCHASE_MS)),
    );
  } catch (error) {
    outcome = { kind: 'unavailable', reason: error instanceof Error ? error.message : String(error) };
  }
  deps.log('purchase.lookup', {
    mode,
    product: query.product,
    service: query.service,
    provider: provider.name,
    outcome: outcome.kind,
  });
  return outcome.kind === 'found' ? outcome.customer : null;
}

/**
 * The order with the customer's name the check just before it told, kept for the receipt; it
 * is not part of the request, so the same request id asks the same thing whatever was told.
 */
function named(order: PurchaseOrder, customer: CustomerDetails | null): PurchaseOrder {
  const customerName = customer?.customerName.trim().slice(0, MAX_CUSTOMER_NAME_CHARS) ?? '';
  return customerName === '' ? order : { ...order, details: { ...order.details, customerName } };
}

/** A provider's name for a customer is a line of a receipt: longer than this is cut. */
const MAX_CUSTOMER_NAME_CHARS = 120;

/** The service a cost or price rule names for a sale: a network by its canonical name (a sale may name it t2). */
function costService(order: PurchaseOrder): string {
  return order.product === 'airtime' ? (canonicalNetwork(order.service) ?? order.service) : order.service;
}

/** The longest reference a message repeats whole; ours are 10 characters, a caller's may be anything. */
const MAX_ECHOED_REFERENCE_CHARS = 64;

/** A caller's reference as a message may repeat it: bounded, so an answer never grows with the request. */
function quotedReference(reference: string): string {
  if (reference === '') return '(empty reference)';
  return reference.length <= MAX_ECHOED_REFERENCE_CHARS
    ? reference
    : `${reference.slice(0, MAX_ECHOED_REFERENCE_CHARS)}… (${reference.length} characters)`;
}
