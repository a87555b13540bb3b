/**
 * prepaid.v1.ShopService: buying from the developer area. Each handler finds the session's
 * account, requires an owner, and hands the API's own request to the API's own handler with
 * the session's account in place of whatever account_id was sent, so a page can never buy for
 * another account and never by another rule. A phone number is sent as a person types it
 * (`0803 123 4567`, `+2348031234567`): it is read into the API's 11-digit form first
 * (core/domain/phone-numbers.ts), and anything else is passed on as typed, for the API's message.
 */
import type { PurchaseService as PurchaseServiceDesc } from '../../gen/prepaid/v1/purchase_pb.js';
import type { ShopService as ShopServiceDesc } from '../../gen/prepaid/v1/shop_pb.js';
import { invalid } from '../domain/errors.js';
import { phoneAsStored } from '../domain/phone-numbers.js';
import type { ShopDesk } from '../holders/shop.js';
import type { PeopleService } from '../people/service.js';
import { ledgerEntryMessage, modeIn } from './convert.js';
import type { Handlers } from './grpc.js';

type PurchaseHandlers = Handlers<(typeof PurchaseServiceDesc)['method']>;

export function shopHandlers(
  people: PeopleService,
  desk: ShopDesk,
  purchase: PurchaseHandlers,
): Handlers<(typeof ShopServiceDesc)['method']> {
  /**
   * The session's account id, for an owner; a viewer, or a form made for another account than the session's
   * now, is refused before anything is bought.
   */
  const ownerAccount = async (token: string, formAccountId = ''): Promise<string> => {
    const context = await people.authenticate(token);
    people.requireFormAccount(context, formAccountId);
    people.requireOwner(context);
    return context.account.accountId;
  };

  return {
    async buyAirtime(req, call) {
      const accountId = await ownerAccount(req.sessionToken, req.formAccountId);
      const { transaction, replayed } = await purchase.buyAirtime(
        { ...typedPhone(requireOrder(req.order)), accountId },
        call,
      );
      return { transaction, replayed: replayed ?? false };
    },
    async buyData(req, call) {
      const accountId = await ownerAccount(req.sessionToken, req.formAccountId);
      const { transaction, replayed } = await purchase.buyData(
        { ...typedPhone(requireOrder(req.order)), accountId },
        call,
      );
      return { transaction, replayed: replayed ?? false };
    },
    async verifyCustomer(req, call) {
      const accountId = await ownerAccount(req.sessionToken);
      return { customer: await purchase.verifyCustomer({ ...requireOrder(req.check), accountId }, call) };
    },
    async payElectricity(req, call) {
      const accountId = await ownerAccount(req.sessionToken, req.formAccountId);
      const { transaction, replayed } = await purchase.payElectricity(
        { ...typedPhone(requireOrder(req.order)), accountId },
        call,
      );
      return { transaction, replayed: replayed ?? false };
    },
    async payCable(req, call) {
      const accountId = await ownerAccount(req.sessionToken, req.formAccountId);
      const { transaction, replayed } = await purchase.payCable(
        { ...typedPhone(requireOrder(req.order)), accountId },
        call,
      );
      return { transaction, replayed: replayed ?? false };
    },
    async sendBulkSms(req, call) {
      const accountId = await ownerAccount(req.sessionToken, req.formAccountId);
      const { transaction, replayed } = await purchase.sendBulkSms(
        { ...typedRecipients(requireOrder(req.order)), accountId },
        call,
      );
      return { transaction, replayed: replayed ?? false };
    },
    async listPurchaseEntries(req) {
      const context = await people.authenticate(req.sessionToken);
      return {
        entries: (await desk.purchaseEntries(context, modeIn(req.mode), req.reference)).map(ledgerEntryMessage),
      };
    },
  };
}

/** The embedded order; a request without one is a bug in the caller, refused as bad input. */
function requireOrder<T>(order: T | undefined): T {
  if (order === undefined) throw invalid('order', 'order is required.');
  return order;
}

/** The order with its phone in the API's form when it was a whole number typed another way. */
function typedPhone<T extends { phone: string }>(order: T): T {
  return { ...order, phone: phoneAsStored(order.phone) ?? order.phone };
}

function typedRecipients<T extends { recipients: string[] }>(order: T): T {
  return { ...order, recipients: order.recipients.map((typed) => phoneAsStored(typed) ?? typed) };
}
