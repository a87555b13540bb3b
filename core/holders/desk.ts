/**
 * What a signed-in holder reads and does, always for the session's own account: the
 * overview, key pairs, prices, history and statement. Nothing here is a rule of its own:
 * keys go through the account service (the same IP rule as the operator's), prices through
 * the purchase service and the pricing functions the purchase path charges with, and the
 * history through the store's keyset pages, the webhook through the webhook service (its URL
 * checks, secrets and resends are the operator's own, scoped here to the session's account).
 */
import { MAX_KEY_LENGTH } from '../accounts/keys.js';
import type { AccountService, IssuedKeyPair } from '../accounts/service.js';
import { DomainError, type FieldViolation, invalid, notFound, throwIfViolations } from '../domain/errors.js';
import type { EventRecord, WebhookEndpointRecord } from '../domain/events.js';
import type { Mode } from '../domain/mode.js';
import type { Kobo } from '../domain/money.js';
import { formatNaira, isKobo, kobo } from '../domain/money.js';
import { pageSize as boundedPageSize, HOLDER_PAGES, type Page, readPage, sizeOrDefault } from '../domain/paging.js';
import {
  LAGOS_OFFSET_MS,
  lagosDate,
  lagosDay,
  lagosDayStart,
  lagosMonthStart,
  parseLagosDate,
} from '../domain/people.js';
import { discountBasisPoints, priceFor } from '../domain/pricing.js';
import { byNetworkThenPrice, DISCOS, NETWORKS, type ProductName } from '../domain/products.js';
import { recipientSearch } from '../domain/recipient-search.js';
import type { ApiKeyRecord, LedgerEntryRecord, TransactionQuery, TransactionRecord } from '../domain/records.js';
import { smsChargeKobo } from '../domain/sms.js';
import type { Notices } from '../mail/notices.js';
import type { HolderContext } from '../people/service.js';
import type { PricedCablePackage, PricedPlan, PurchaseService } from '../purchases/service.js';
import type { Credited, Store } from '../store/port.js';
import type { EndpointWithSecret, WebhookService } from '../webhooks/service.js';
import { mailSettings } from './mail-settings.js';

/** Days the overview's chart covers, today included. */
const CHART_DAYS = 30;
/** The face value the rate-priced products are shown at: 1,000 Naira. */
const EXAMPLE_FACE_VALUE_KOBO: Kobo = kobo(100_000);
/**
 * The most test money one AddTestFunds adds: 1,000,000 Naira. Enough for any test, and a typo
 * of a few zeros is caught.
 */
const MAX_TEST_FUNDS_KOBO: Kobo = kobo(100_000_000);
/** A test-funds form's reference as the dashboard makes it: random letters and digits. */
const TEST_FUNDS_REFERENCE = /^[A-Za-z0-9_-]{8,48}$/;
/**
 * Stored credit references of holder test funds start with this, so a form's reference can
 * never meet an operator's credit reference (which could be a live one).
 */
const TEST_FUNDS_REFERENCE_PREFIX = 'TF-';
/** Longest exact-match filter value accepted (references, phones, request ids are far shorter). */
const MAX_FILTER_CHARS = 100;

interface DaySpendTotal {
  date: string;
  products: { product: ProductName; spentKobo: Kobo }[];
  totalKobo: Kobo;
}

export interface Overview {
  balanceKobo: Kobo;
  todaySpentKobo: Kobo;
  monthSpentKobo: Kobo;
  pendingCount: number;
  daily: DaySpendTotal[];
}

export interface RatePrice {
  service: string;
  basisPoints: number;
  exampleFaceValueKobo: Kobo;
  examplePriceKobo: Kobo;
}

export interface Prices {
  airtime: RatePrice[];
  plans: PricedPlan[];
  electricity: RatePrice[];
  cablePackages: PricedCablePackage[];
  smsRateKobo: Kobo;
  smsBasisPoints: number;
  smsPagePriceKobo: Kobo;
}

/** The filter as the holder's form sends it (empty means unset). */
export interface HolderFilter {
  product: ProductName | null;
  status: TransactionRecord['status'] | null;
  fromDate: string;
  toDate: string;
  recipient: string;
  reference: string;
  requestId: string;
}

export interface HolderDeskDeps {
  store: Pick<Store, 'keys' | 'history' | 'catalog' | 'notices'>;
  accounts: AccountService;
  purchases: PurchaseService;
  webhooks: WebhookService;
  clock: () => Date;
  /** Who is told of a new key pair (core/mail/notices.ts); none in some tests. */
  notices?: Pick<Notices, 'keyCreated'>;
}

function pageSize(requested: number, field: string): number {
  return boundedPageSize(sizeOrDefault(requested), HOLDER_PAGES, field);
}

function exact(field: string, value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (trimmed.length > MAX_FILTER_CHARS)
    throw invalid(field, `${field} must be at most ${MAX_FILTER_CHARS} characters.`);
  return trimmed;
}

/** The store query of a holder's filter: dates are whole Africa/Lagos days, both ends included. */
export function transactionQuery(filter: HolderFilter): TransactionQuery {
  const query: TransactionQuery = {};
  if (filter.product !== null) query.product = filter.product;
  if (filter.status !== null) query.status = filter.status;
  const fromDay = filter.fromDate.trim() === '' ? null : parseLagosDate('filter.from_date', filter.fromDate);
  const toDay = filter.toDate.trim() === '' ? null : parseLagosDate('filter.to_date', filter.toDate);
  if (fromDay !== null && toDay !== null && fromDay > toDay)
    throw invalid('filter.to_date', 'The last day must not be before the first day.');
  if (fromDay !== null) query.from = lagosDayStart(fromDay);
  if (toDay !== null) query.until = lagosDayStart(toDay + 1);
  const recipient = exact('filter.recipient', filter.recipient);
  const reference = exact('filter.reference', filter.reference);
  const requestId = exact('filter.request_id', filter.requestId);
  if (recipient !== undefined) {
    const search = recipientSearch(recipient);
    if ('prefix' in search) query.recipientPrefix = search.prefix;
    else query.recipient = search.exact;
  }
  if (reference !== undefined) query.reference = reference;
  if (requestId !== undefined) query.requestId = requestId;
  return query;
}

/** What is wrong with a test-funds form's amount and reference, if anything. */
function testFundsViolations(amountKobo: number, reference: string): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (!isKobo(amountKobo) || amountKobo <= 0)
    violations.push({ field: 'amount_kobo', description: 'Enter an amount of test money greater than zero.' });
  else if (amountKobo > MAX_TEST_FUNDS_KOBO)
    violations.push({
      field: 'amount_kobo',
      description: `At most ₦${formatNaira(MAX_TEST_FUNDS_KOBO)} of test money can be added at a time.`,
    });
  if (!TEST_FUNDS_REFERENCE.test(reference))
    violations.push({
      field: 'reference',
      description: 'reference must be 8 to 48 letters, digits, hyphens or underscores.',
    });
  return violations;
}

/** The account's own webhook, per mode, through the operator's webhook service (no rule of its own). */
function holderWebhooks(webhooks: WebhookService) {
  return {
    webhook: (context: HolderContext, mode: Mode): Promise<WebhookEndpointRecord | null> =>
      webhooks.find(context.account.accountId, mode),

    setWebhook: (context: HolderContext, mode: Mode, url: string): Promise<EndpointWithSecret> =>
      webhooks.set(context.account.accountId, mode, url),

    rotateWebhookSecret: (context: HolderContext, mode: Mode): Promise<EndpointWithSecret> =>
      webhooks.rotate(context.account.accountId, mode),

    disableWebhook: (context: HolderContext, mode: Mode): Promise<WebhookEndpointRecord> =>
      webhooks.disable(context.account.accountId, mode),

    deliveries: (
      context: HolderContext,
      mode: Mode,
      failedOnly: boolean,
      pageSize: number | undefined,
      pageToken: string,
    ): Promise<Page<EventRecord>> =>
      webhooks.deliveries(context.account.accountId, mode, failedOnly, pageSize, pageToken),

    /** Only the account's own events of that mode: another's is not found. */
    resendEvent: (context: HolderContext, mode: Mode, eventId: string): Promise<EventRecord> =>
      webhooks.resend(eventId, { accountId: context.account.accountId, mode }),

    sendTestEvent: (context: HolderContext, mode: Mode): Promise<EventRecord> =>
      webhooks.test(context.account.accountId, mode),
  };
}

/** The account's own key pairs, through the operator's account service (the same IP rule). */
function holderKeys(deps: HolderDeskDeps) {
  const { store, accounts } = deps;

  /** One of the session's account's keys; another account's key is not found, never touched. */
  async function ownKey(context: HolderContext, publicKey: string): Promise<ApiKeyRecord> {
    const key = publicKey && publicKey.length <= MAX_KEY_LENGTH ? await store.keys.find(publicKey) : null;
    if (!key || key.accountId !== context.account.accountId)
      throw notFound(`Key ${publicKey.slice(0, 64) || '(empty key)'}`);
    return key;
  }

  return {
    /** The account's key pairs of one mode: test pairs are never listed with live ones. */
    async listKeys(context: HolderContext, mode: Mode): Promise<Awaited<ReturnType<AccountService['listKeys']>>> {
      return (await accounts.listKeys(context.account.accountId)).filter((key) => key.mode === mode);
    },

    async createKey(context: HolderContext, mode: Mode): Promise<{ issued: IssuedKeyPair; key: ApiKeyRecord }> {
      const issued = await accounts.createKey(context.account.accountId, mode);
      const key = await ownKey(context, issued.publicKey);
      deps.notices?.keyCreated({
        accountId: context.account.accountId,
        accountName: context.account.name,
        mode,
        publicKey: issued.publicKey,
        by: context.user.email,
        at: key.createdAt,
      });
      return { issued, key };
    },

    async revokeKey(context: HolderContext, publicKey: string): Promise<ApiKeyRecord> {
      await ownKey(context, publicKey);
      return accounts.revokeKey(publicKey);
    },

    async setKeyIpLock(context: HolderContext, publicKey: string, ips: readonly string[]): Promise<ApiKeyRecord> {
      await ownKey(context, publicKey);
      return accounts.setKeyIpLock(publicKey, ips);
    },

    /** Scopes and caps of one of the account's keys, by the operator's own rule (docs/security.md). */
    async setKeyLimits(
      context: HolderContext,
      publicKey: string,
      change: Parameters<AccountService['setKeyLimits']>[1],
    ): Promise<ApiKeyRecord> {
      await ownKey(context, publicKey);
      return accounts.setKeyLimits(publicKey, change);
    },

    /**
     * Rolls one of the account's keys, by the operator's own rule: the old pair works `graceHours`
     * more. The owners are mailed of the new pair as of a created one.
     */
    async rollKey(
      context: HolderContext,
      publicKey: string,
      graceHours: number | undefined,
    ): Promise<{ issued: IssuedKeyPair; old: ApiKeyRecord }> {
      await ownKey(context, publicKey);
      const rolled = await accounts.rollKey(publicKey, graceHours);
      // A roll makes a key pair as surely as a creation does: the owners are told the same way.
      deps.notices?.keyCreated({
        accountId: context.account.accountId,
        accountName: context.account.name,
        mode: rolled.issued.mode,
        publicKey: rolled.issued.publicKey,
        by: context.user.email,
        at: deps.clock(),
      });
      return rolled;
    },

    /** Unfreezes one of the account's keys (the velocity brake's freeze or the platform's), as its owner. */
    async unfreezeKey(context: HolderContext, publicKey: string): Promise<ApiKeyRecord> {
      await ownKey(context, publicKey);
      const owner = `owner:${context.user.email}`;
      return accounts.unfreezeKey(publicKey, { by: owner, actor: owner, address: null });
    },
  };
}

/** The account's home page figures: the balance, what was spent today and this month, a chart of the last days. */
async function overview(deps: HolderDeskDeps, context: HolderContext, mode: Mode): Promise<Overview> {
  const { store, purchases, clock } = deps;
  const accountId = context.account.accountId;
  const today = lagosDay(clock());
  const firstChartDay = today - (CHART_DAYS - 1);
  const monthStart = lagosMonthStart(today);
  const firstDay = Math.min(firstChartDay, monthStart);
  const rows = await store.history.spendByDay(
    accountId,
    mode,
    lagosDayStart(firstDay),
    lagosDayStart(today + 1),
    LAGOS_OFFSET_MS,
  );
  const daily: DaySpendTotal[] = [];
  for (let day = firstChartDay; day <= today; day++) {
    const products = rows
      .filter((row) => row.day === day)
      .map((row) => ({ product: row.product, spentKobo: row.spentKobo }));
    daily.push({
      date: lagosDate(day),
      products,
      totalKobo: kobo(products.reduce((sum, p) => sum + p.spentKobo, 0)),
    });
  }
  const sumFrom = (from: number) =>
    kobo(rows.filter((row) => row.day >= from).reduce((sum, row) => sum + row.spentKobo, 0));
  const { balanceKobo } = await purchases.balance(accountId, mode);
  return {
    balanceKobo,
    todaySpentKobo: sumFrom(today),
    monthSpentKobo: sumFrom(monthStart),
    pendingCount: await store.history.pendingCount(accountId, mode),
    daily,
  };
}

/** The account holder's desk (the developer area's use cases); the staff's is core/staff/desk.ts. */
export function createHolderDesk(deps: HolderDeskDeps) {
  const { store, accounts, purchases, webhooks } = deps;

  return {
    overview: (context: HolderContext, mode: Mode): Promise<Overview> => overview(deps, context, mode),

    /** The account's prices, each computed by the function the purchase path charges with. */
    async prices(context: HolderContext): Promise<Prices> {
      const { tier } = context;
      const accountId = context.account.accountId;
      const rate = async (product: 'airtime' | 'electricity', service: string): Promise<RatePrice> => ({
        service,
        basisPoints: discountBasisPoints(tier, product, service),
        exampleFaceValueKobo: EXAMPLE_FACE_VALUE_KOBO,
        // A tier rule over cost, where one is set, else the discount (core/domain/pricing.ts).
        examplePriceKobo: await purchases.faceValuePrice(tier, {
          product,
          service,
          faceValueKobo: EXAMPLE_FACE_VALUE_KOBO,
        }),
      });
      const smsRateKobo = await store.catalog.getSmsRateKobo();
      return {
        airtime: await Promise.all(NETWORKS.map((network) => rate('airtime', network))),
        // MTN, Airtel, Glo, 9mobile/T2, and the cheapest first within a network.
        plans: (await purchases.plans(accountId, '')).sort(byNetworkThenPrice),
        electricity: await Promise.all(DISCOS.map((disco) => rate('electricity', disco))),
        cablePackages: await purchases.cablePackages(accountId, ''),
        smsRateKobo,
        smsBasisPoints: discountBasisPoints(tier, 'bulksms', ''),
        smsPagePriceKobo: priceFor(tier, 'bulksms', '', smsChargeKobo(smsRateKobo, 1, 1)),
      };
    },

    async transactions(
      context: HolderContext,
      mode: Mode,
      filter: HolderFilter,
      requestedSize: number,
      pageToken: string,
    ): Promise<Page<TransactionRecord>> {
      const query = transactionQuery(filter);
      const limit = pageSize(requestedSize, 'page_size');
      return readPage('page_token', () =>
        store.history.search(context.account.accountId, mode, query, {
          limit,
          ...(pageToken ? { after: pageToken } : {}),
        }),
      );
    },

    transaction: (context: HolderContext, mode: Mode, reference: string): Promise<TransactionRecord> =>
      purchases.transaction(context.account.accountId, mode, reference),

    statement: (
      context: HolderContext,
      mode: Mode,
      requestedSize: number,
      pageToken: string,
    ): Promise<Page<LedgerEntryRecord>> =>
      accounts.ledger(context.account.accountId, mode, sizeOrDefault(requestedSize), pageToken),

    /**
     * Test money into the test wallet, by the same credit as the operator's (a ledger entry and
     * the wallet.credited test event in one store transaction). The mode is fixed here: nothing
     * a holder sends can reach the live wallet. Once per reference; the same reference with
     * another amount (a form sent again after editing) is refused, not credited.
     */
    async addTestFunds(context: HolderContext, amountKobo: number, reference: string): Promise<Credited> {
      throwIfViolations(testFundsViolations(amountKobo, reference));
      const memo = `Test money added in the developer area by ${context.user.email}`.slice(0, 200);
      try {
        return await accounts.credit(context.account.accountId, 'test', amountKobo as Kobo, memo, {
          reference: `${TEST_FUNDS_REFERENCE_PREFIX}${reference}`,
        });
      } catch (error) {
        if (error instanceof DomainError && error.code === 'IDEMPOTENCY_KEY_REUSED') {
          throw new DomainError(
            'FAILED_PRECONDITION',
            'This form was already used to add test money with another amount. ' + 'Reload the page and send it again.',
          );
        }
        throw error;
      }
    },

    ...holderKeys(deps),
    ...holderWebhooks(webhooks),
    ...mailSettings(deps.store, deps.clock),
  };
}

export type HolderDesk = ReturnType<typeof createHolderDesk>;
