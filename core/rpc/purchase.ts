/** prepaid.v1.PurchaseService: requests in, use cases, messages out. No rule lives here. */
import type { PurchaseService as PurchaseServiceDesc } from '../../gen/prepaid/v1/purchase_pb.js';
import type { ReserveChecks } from '../domain/records.js';
import type { CallbackService } from '../purchases/callbacks.js';
import type { PurchaseResult } from '../purchases/flow.js';
import type { PurchaseService } from '../purchases/service.js';
import type { VerificationService } from '../purchases/verification.js';
import {
  int64In,
  koboIn,
  MODE_TO_PROTO,
  modeIn,
  pricedPackageMessage,
  pricedPlanMessage,
  transactionMessage,
} from './convert.js';
import type { Handlers } from './grpc.js';
import { ownTurn } from './turns.js';
import { callbackMessage, verifiedCustomerMessage } from './upstream.js';

function outcome({ transaction, replayed }: PurchaseResult) {
  return { transaction: transactionMessage(transaction), replayed };
}

export function purchaseHandlers(
  purchases: PurchaseService,
  upstream: { verification: VerificationService; callbacks: CallbackService },
): Handlers<(typeof PurchaseServiceDesc)['method']> {
  return refusingSuspended(purchases, {
    async getBalance(req) {
      const { tier, balanceKobo } = await purchases.balance(req.accountId, modeIn(req.mode));
      return {
        balanceKobo: BigInt(balanceKobo),
        tierId: tier.tierId,
        tierName: tier.name,
        mode: MODE_TO_PROTO[modeIn(req.mode)],
      };
    },
    async buyAirtime(req) {
      const input = { network: req.network, phone: req.phone, amountKobo: koboIn(req.amountKobo, 'amount') };
      return outcome(await purchases.airtime(req.accountId, modeIn(req.mode), input, req.requestId, checksOf(req)));
    },
    async buyData(req) {
      const input = { planId: int64In(req.planId, 'plan_id'), phone: req.phone };
      return outcome(await purchases.data(req.accountId, modeIn(req.mode), input, req.requestId, checksOf(req)));
    },
    async listPackages(req) {
      const packages = await purchases.cablePackages(req.accountId, req.provider);
      return {
        packages: packages.map(pricedPackageMessage),
      };
    },
    async listPlans(req) {
      const plans = await purchases.plans(req.accountId, req.network, req.planType);
      return {
        plans: plans.map(pricedPlanMessage),
      };
    },
    async payElectricity(req) {
      const input = {
        disco: req.disco,
        meterNumber: req.meterNumber,
        meterType: req.meterType,
        amountKobo: koboIn(req.amountKobo, 'amount'),
        phone: req.phone,
      };
      return outcome(await purchases.electricity(req.accountId, modeIn(req.mode), input, req.requestId, checksOf(req)));
    },
    async payCable(req) {
      const input = {
        provider: req.provider,
        smartCard: req.smartCard,
        packageCode: req.packageCode,
        phone: req.phone,
        subscriptionType: req.subscriptionType,
        months: req.months,
      };
      return outcome(await purchases.cable(req.accountId, modeIn(req.mode), input, req.requestId, checksOf(req)));
    },
    async sendBulkSms(req) {
      const input = { sender: req.sender, recipients: req.recipients, message: req.message };
      return outcome(await purchases.bulkSms(req.accountId, modeIn(req.mode), input, req.requestId, checksOf(req)));
    },
    async getTransaction(req) {
      const mode = modeIn(req.mode);
      // A reference names the purchase; without one, the idempotency key does.
      const tx =
        req.reference === '' && req.requestId !== ''
          ? await purchases.transactionByRequestId(req.accountId, mode, req.requestId)
          : await purchases.transaction(req.accountId, mode, req.reference);
      return { transaction: transactionMessage(tx) };
    },
    async listTransactions(req) {
      await ownTurn();
      const page = await purchases.history(req.accountId, modeIn(req.mode), req.pageSize, req.pageToken);
      return { transactions: page.items.map(transactionMessage), nextPageToken: page.next ?? '' };
    },
    async verifyCustomer(req) {
      const input = {
        disco: req.disco,
        meterNumber: req.meterNumber,
        meterType: req.meterType,
        provider: req.provider,
        smartCard: req.smartCard,
      };
      return verifiedCustomerMessage(await upstream.verification.verify(req.accountId, modeIn(req.mode), input));
    },
    async applyProviderCallback(req) {
      return callbackMessage(await upstream.callbacks.applyCallback(req.provider, req.body));
    },
  });
}

type PurchaseHandlers = Handlers<(typeof PurchaseServiceDesc)['method']>;

/**
 * The RPCs whose use case reads the account first (`accountAndTier`): a service built with
 * `refuseSuspended` refuses a suspended account on that read, so they need no read of their own.
 */
const CHECKED_BY_THE_USE_CASE: ReadonlySet<string> = new Set([
  'getBalance',
  'buyAirtime',
  'buyData',
  'payElectricity',
  'payCable',
  'sendBulkSms',
  'listPackages',
  'listPlans',
  'listTransactions',
]);

/**
 * Every call naming an account is refused while it is suspended (the API's 401, docs/api.md):
 * by the use case's own account read where it makes one (above), by a read here otherwise.
 */
function refusingSuspended(
  purchases: Pick<PurchaseService, 'requireActive' | 'refusesSuspended'>,
  handlers: PurchaseHandlers,
) {
  const wrapped = {} as PurchaseHandlers;
  for (const name of Object.keys(handlers) as (keyof PurchaseHandlers)[]) {
    const handler = handlers[name] as (request: unknown, call: unknown) => Promise<unknown>;
    if (purchases.refusesSuspended && CHECKED_BY_THE_USE_CASE.has(name)) {
      (wrapped as Record<string, unknown>)[name] = handler;
      continue;
    }
    (wrapped as Record<string, unknown>)[name] = async (request: unknown, call: unknown) => {
      const accountId = (request as { accountId?: unknown }).accountId;
      if (typeof accountId === 'string' && accountId !== '') await purchases.requireActive(accountId);
      return handler(request, call);
    };
  }
  return wrapped;
}

/**
 * What the reserve checks for this request: the key's caps when the gateway says the key has
 * some (capped_key), nothing otherwise, so a purchase without controls reads nothing more; and
 * the key that asked (key), which only the velocity brake reads, in memory.
 */
function checksOf(req: { cappedKey: string; key: string }): ReserveChecks | undefined {
  if (req.key === '') return req.cappedKey === '' ? undefined : { cappedKey: req.cappedKey };
  return req.cappedKey === '' ? { key: req.key } : { cappedKey: req.cappedKey, key: req.key };
}
