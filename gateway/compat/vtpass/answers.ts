/**
 * A purchase as VTpass answers `pay` and `requery` (docs/compat.md, VTpass): `code` `000` with
 * `content.transactions.status` `delivered`; `099` ("transaction is processing") while it is in
 * flight, which VTpass's clients requery; `016` ("transaction failed") once it failed and was
 * refunded; `040` when a delivered purchase was reversed and refunded. Then VTpass's top-level
 * fields: `response_description`, `requestId` (the client's request_id), `amount`,
 * `transaction_date`, and for electricity `purchased_code` ("Token : 4216 1234 ..."), `token`
 * and `units`. Money is naira numbers, as in VTpass's samples.
 */
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { canonicalNetwork } from '../../../core/domain/products.js';
import { Product, type Transaction, TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { naira } from '../../actions/views.js';
import type { CompatAnswer } from '../dialect.js';
import { serviceOfOurs, type VtpassProduct } from './services.js';

/** A purchase's VTpass code, transaction status and description. */
function stateOf(tx: Transaction): { code: string; status: string; description: string } {
  switch (tx.status) {
    case TransactionStatus.SUCCESS:
      return { code: '000', status: 'delivered', description: 'TRANSACTION SUCCESSFUL' };
    case TransactionStatus.PENDING:
      return { code: '099', status: 'pending', description: 'TRANSACTION IS PROCESSING' };
    case TransactionStatus.REVERSED:
      return { code: '040', status: 'reversed', description: 'TRANSACTION REVERSAL' };
    default:
      // VTpass's status list has no word for a failure (unsure which it sends with 016):
      // `failed`, which VTpass's clients, ours included, read with 016 as final.
      return { code: '016', status: 'failed', description: 'TRANSACTION FAILED' };
  }
}

const PRODUCTS: readonly Product[] = [Product.AIRTIME, Product.DATA, Product.ELECTRICITY, Product.CABLE];

/** VTpass's time, as in its samples: ISO 8601 in UTC with microseconds. */
function vtpassTime(tx: Transaction): string {
  const ms = tx.createdAt === undefined ? 0 : timestampMs(tx.createdAt);
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** An STS token as VTpass writes it, groups of four split by spaces. */
function spaced(token: string): string {
  return token.replace(/[^0-9]/g, '').replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** The electricity fields VTpass puts at the top of the answer; a postpaid payment has no token. */
function electricityFields(tx: Transaction): Record<string, unknown> {
  if (tx.token === '') return { purchased_code: '' };
  const bonus = tx.bonusTokens.map((token) => ` Bonus Token : ${spaced(token)}`).join('');
  const fields: Record<string, unknown> = {
    purchased_code: `Token : ${spaced(tx.token)}${bonus}`,
    token: spaced(tx.token),
    units: tx.units,
  };
  tx.kctTokens.slice(0, 2).forEach((token, i) => {
    fields[`kct${i + 1}`] = spaced(token);
  });
  return fields;
}

/** The answer of `pay` and `requery` for one purchase; `requestId` is the client's key. */
export function purchaseAnswer(tx: Transaction, requestId: string): CompatAnswer {
  const state = stateOf(tx);
  const product = PRODUCTS.includes(tx.product) ? (tx.product as VtpassProduct) : undefined;
  const service =
    product === undefined
      ? undefined
      : serviceOfOurs(
          product,
          product === Product.AIRTIME || product === Product.DATA ? (canonicalNetwork(tx.service) ?? '') : tx.service,
        );
  const amount = naira(tx.product === Product.DATA ? tx.chargedKobo : tx.faceValueKobo);
  const charged = naira(tx.chargedKobo);
  const transactions = {
    status: state.status,
    product_name: service?.productName ?? tx.service,
    unique_element: tx.recipient,
    unit_price: amount,
    quantity: tx.product === Product.CABLE && tx.months > 0 ? tx.months : 1,
    service_verification: null,
    channel: 'api',
    // Under face value, the account's discount is VTpass's commission; total_amount is the debit.
    commission: Math.max(0, Math.round((amount - charged) * 100) / 100),
    total_amount: charged,
    discount: null,
    type: service?.type ?? '',
    email: '',
    phone: tx.customerPhone !== '' ? tx.customerPhone : tx.recipient,
    name: null,
    convinience_fee: 0,
    amount,
    platform: 'api',
    method: 'api',
    transactionId: tx.reference,
  };
  const body: Record<string, unknown> = {
    code: state.code,
    content: { transactions },
    response_description: state.description,
    requestId: requestId !== '' ? requestId : tx.requestId || tx.reference,
    amount,
    transaction_date: vtpassTime(tx),
    purchased_code: '',
  };
  if (tx.product === Product.ELECTRICITY && tx.status === TransactionStatus.SUCCESS) {
    Object.assign(body, electricityFields(tx));
  }
  return { status: 200, body };
}
