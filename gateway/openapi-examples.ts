/**
 * An example request and answer for each action, put on each action's own operation in the
 * OpenAPI document (`content.application/json.example`), where the developer area's API
 * reference and any OpenAPI viewer show them. Values are those of docs/api.md's walk-through
 * (sandbox answers); test/gateway/openapi-examples.test.ts validates every example against its
 * schema, so an example cannot say what the API would not.
 */
import { soldProductWord, TRANSACTION_EVENT_TYPES } from '../core/domain/words.js';
import { Product } from '../gen/prepaid/v1/types_pb.js';

/** An action's examples: its request body (POST) and its answer for each success status. */
export interface ActionExamples {
  request?: unknown;
  '200': unknown;
  '202'?: unknown;
}

const reference = '202611260524NAY95BQSBK';

/** Every key of a transaction is present; a field that does not apply to its product is null. */
const transaction = {
  reference,
  product: soldProductWord(Product.AIRTIME),
  status: 'success',
  service: 'mtn',
  recipient: '08031234567',
  amount: 100,
  charged: 97,
  plan_id: null,
  plan: null,
  package: null,
  package_code: null,
  meter_type: null,
  token: null,
  units: null,
  kct_tokens: null,
  bonus_tokens: null,
  sent: null,
  pages: null,
  failure_reason: null,
  request_id: 'order-1001',
  created_at: '2026-11-26T04:24:41.532Z',
  updated_at: '2026-11-26T04:24:41.560Z',
  livemode: true,
};

/** A purchase the provider has not confirmed yet (HTTP 202). */
const pending = (charged: number, balance: number) => ({
  status: 'pending',
  reference: '202611260524TAJH3REHX7',
  charged,
  balance,
  message:
    'The provider has not confirmed this purchase yet; the charge is held until it does. ' +
    'Check it with ?action=transaction&reference=202611260524TAJH3REHX7.',
});

export const ACTION_EXAMPLES: Readonly<Record<string, ActionExamples>> = {
  balance: { '200': { status: 'success', balance: 10000, tier: 'API Client', mode: 'live' } },
  plans: {
    '200': {
      status: 'success',
      plans: [
        {
          plan_id: 1,
          network: 'mtn',
          network_names: ['mtn'],
          plan: '500MB',
          validity: '7 days',
          price: 470,
          type: 'direct',
          size_mb: 500,
          validity_days: 7,
        },
        {
          plan_id: 2,
          network: 'mtn',
          network_names: ['mtn'],
          plan: '1GB',
          validity: '1 day',
          price: 475,
          type: 'direct',
          size_mb: 1024,
          validity_days: 1,
        },
      ],
    },
  },
  packages: {
    '200': {
      status: 'success',
      packages: [
        { provider: 'gotv', package_code: 'GOTV MAX', package: 'GOtv Max', price: 5445 },
        { provider: 'gotv', package_code: 'GOTV SMALLIE', package: 'GOtv Smallie', price: 1559.25 },
      ],
    },
  },
  transaction: { '200': { status: 'success', transaction } },
  transactions: {
    '200': {
      status: 'success',
      transactions: [transaction],
      next_cursor: 'WzE3OTU2NjcwODI5MzYsIjIwMjYxMTI2MDUyNE5ZVzhNSkhVTTQiXQ',
    },
  },
  events: {
    '200': {
      status: 'success',
      events: [
        {
          id: 'evt_1a216193958f445eddd2b9f9',
          type: TRANSACTION_EVENT_TYPES.success,
          created_at: '2026-11-26T04:24:41.560Z',
          livemode: true,
          data: { transaction },
        },
      ],
      next_cursor: 'WzJd',
    },
  },
  airtime: {
    request: { network: 'mtn', phone: '08031234567', amount: 100, request_id: 'order-1001' },
    '200': { status: 'success', reference, charged: 97, balance: 9903 },
    '202': pending(97, 9903),
  },
  data: {
    request: { plan_id: 1, phone: '08031234567', request_id: 'order-1002' },
    '200': {
      status: 'success',
      reference: '202611260524NMHNFGWP66',
      charged: 470,
      balance: 9433,
      plan: '500MB (7 days)',
    },
    '202': pending(470, 9433),
  },
  electricity: {
    request: {
      disco: 'ikedc',
      meter_number: '45031234567',
      meter_type: 'prepaid',
      amount: 1000.5,
      phone: '08031234567',
      request_id: 'order-1003',
    },
    '200': {
      status: 'success',
      reference: '202611260524NR6HJDEUV2',
      charged: 995.5,
      balance: 8437.5,
      token: '9146-4251-9747-4384-0302',
      units: '4.7 kWh',
      kct_tokens: [],
      bonus_tokens: [],
    },
    '202': pending(995.5, 8437.5),
  },
  cable: {
    request: { provider: 'gotv', smart_card: '7012345678', package_code: 'GOTV MAX', request_id: 'order-1004' },
    '200': {
      status: 'success',
      reference: '202611260524NYW8MJHUM4',
      charged: 5445,
      balance: 2992.5,
      package: 'GOtv Max',
      subscription_type: 'change',
      months: 1,
    },
    '202': pending(5445, 2992.5),
  },
  bulksms: {
    request: {
      sender: 'MyShop',
      recipients: ['08031234567', '08051234567'],
      message: 'Your order has shipped.',
      request_id: 'order-1005',
    },
    '200': { status: 'success', reference: '202611260524P9CG7V99X7', charged: 7, balance: 2985.5, sent: 2, pages: 1 },
    '202': pending(7, 2985.5),
  },
  funding: {
    '200': {
      status: 'success',
      accounts: [
        {
          provider: 'monnify',
          bank: 'Wema bank',
          account_number: '7203133878',
          account_name: 'Ada Obi',
          status: 'active',
        },
      ],
      fee: { percent: 1, cap: 20 },
    },
  },
  verify: {
    request: { disco: 'ikedc', meter_number: '45031234567', meter_type: 'prepaid' },
    '200': {
      status: 'success',
      product: soldProductWord(Product.ELECTRICITY),
      service: 'ikedc',
      customer_number: '45031234567',
      meter_type: 'prepaid',
      customer_name: 'Ngozi Suleiman',
      address: '57 Ogui Road, Enugu',
      minimum_amount: 1000,
      arrears: null,
      current_bouquet: null,
      due_date: null,
      renewal_amount: null,
    },
  },
};
