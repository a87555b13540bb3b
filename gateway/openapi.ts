/**
 * The OpenAPI 3.1 description of the public API, served at GET /openapi.json.
 *
 * The API chooses its operation with `?action=` on one address, which OpenAPI paths cannot
 * tell apart, so the document has one path with a GET and a POST operation whose `action`
 * parameter is an enum, and an `x-actions` map from each action to its method, request
 * schema and response schemas. Beside it, each action has its own path, `/{action}`
 * (`/api/v1/balance`), served through the same pipeline, so generated clients type each
 * action's answer on its own. test/gateway/openapi.test.ts validates real answers of every
 * action against these schemas, so the document cannot drift from the code unnoticed.
 */
import { EVENT_TYPES } from '../core/domain/events.js';
import { AIRTIME_MIN_KOBO, ELECTRICITY_MIN_KOBO } from '../core/domain/orders.js';
import { DEFAULT_HISTORY_PAGE_SIZE, MAX_HISTORY_PAGE_SIZE } from '../core/domain/paging.js';
import {
  CABLE_MAX_MONTHS,
  CABLE_PROVIDERS,
  DISCOS,
  METER_TYPES,
  NETWORK_NAMES,
  PLAN_TYPES,
  PRODUCTS,
} from '../core/domain/products.js';
import { REFERENCE_PATTERN } from '../core/domain/reference.js';
import { SMS_MAX_CHARACTERS, SMS_MAX_RECIPIENTS, smsPages } from '../core/domain/sms.js';
import {
  METER_NUMBER_PATTERN,
  PHONE_PATTERN,
  REQUEST_ID_PATTERN,
  SENDER_PATTERN,
  SMART_CARD_PATTERN,
} from '../core/domain/validation.js';
import { soldProductWord, TRANSACTION_STATUSES } from '../core/domain/words.js';
import { Product } from '../gen/prepaid/v1/types_pb.js';
import { MAX_INTEGER_DIGITS } from './actions/params.js';
import { TRANSACTION_KEYS } from './actions/views.js';
import { PUBLIC_ERROR_CODES } from './errors.js';
import { ACTION_EXAMPLES } from './openapi-examples.js';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (type: string, extra: Schema = {}): Schema => ({ type: [type, 'null'], ...extra });

/**
 * Integers are JSON numbers with their protobuf width as the format; an int64 stays within
 * what a double holds exactly (the gateway refuses any integer past it).
 */
const INT32_MAX = 2 ** 31 - 1;
const int32 = (minimum: number, maximum = INT32_MAX): Schema => ({
  type: 'integer',
  format: 'int32',
  minimum,
  maximum,
});
const int64 = (minimum: number): Schema => ({
  type: 'integer',
  format: 'int64',
  minimum,
  maximum: Number.MAX_SAFE_INTEGER,
});
/** An integer sent as a string, as the gateway reads one (gateway/actions/params.ts). */
const integerText: Schema = {
  type: 'string',
  pattern: `^\\d{1,${MAX_INTEGER_DIGITS}}$`,
  maxLength: MAX_INTEGER_DIGITS,
};
/** The most SMS pages one message can take: the longest message, every character outside GSM-7. */
const SMS_MAX_PAGES = smsPages('\u{1F600}'.repeat(SMS_MAX_CHARACTERS));
/** What a cursor the service issues can be: base64url of a time and a reference, about 60 characters. */
const CURSOR_MAX_CHARS = 256;
const cursor: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]*$', maxLength: CURSOR_MAX_CHARS };

/** An STS token as shown: 20 digits in groups of four. */
const stsToken: Schema = { type: 'string', pattern: '^\\d{4}(-\\d{4}){4}$', maxLength: 24 };
/** Naira as the API speaks it: a JSON number with at most two decimals. */
const naira: Schema = { type: 'number', minimum: 0, description: 'Naira, at most two decimals.' };
/** Amounts are accepted as numbers or numeric strings ("100.50"), as PHP-era clients send them. */
const nairaIn: Schema = {
  oneOf: [
    { type: 'number', exclusiveMinimum: 0 },
    { type: 'string', pattern: '^\\d{1,15}(\\.\\d{1,2})?$', maxLength: 18 },
  ],
  description: 'Naira, a number or numeric string with at most two decimals.',
};
/** A Naira amount the specification gives a minimum for (airtime 50, electricity 1000). */
const nairaAtLeast = (minimum: number): Schema => ({
  oneOf: [{ type: 'number', minimum }, (nairaIn['oneOf'] as Schema[])[1]],
  description: `Naira, at least ${minimum}: a number or numeric string with at most two decimals.`,
});
const phone: Schema = { type: 'string', pattern: PHONE_PATTERN.source, maxLength: 11, examples: ['08031234567'] };
const requestId: Schema = {
  type: 'string',
  pattern: REQUEST_ID_PATTERN.source,
  maxLength: 64,
  description: 'Optional idempotency key (or the Idempotency-Key header).',
};
const reference: Schema = {
  type: 'string',
  pattern: REFERENCE_PATTERN.source,
  maxLength: 22,
  examples: ['202611210628PZ4K7M2QXA'],
};
const meterNumber: Schema = { type: 'string', pattern: METER_NUMBER_PATTERN.source, maxLength: 20 };
const smartCard: Schema = { type: 'string', pattern: SMART_CARD_PATTERN.source, maxLength: 20 };

/** A purchase answer: the common money fields plus the product's own. */
function purchaseAnswer(
  status: 'success' | 'pending',
  extra: Record<string, Schema>,
  required: string[] = Object.keys(extra),
): Schema {
  const base: Record<string, Schema> = {
    status: { const: status },
    reference,
    charged: { ...naira, description: 'What left the wallet after tier pricing.' },
    balance: { ...naira, description: 'The wallet right after this purchase.' },
  };
  if (status === 'pending') base['message'] = { type: 'string' };
  return {
    type: 'object',
    properties: { ...base, ...extra },
    required: [...Object.keys(base), ...required],
    additionalProperties: false,
  };
}

const planLabel: Schema = { type: 'string', description: 'The plan, for example "1GB (30 days)".' };
const packageName: Schema = { type: 'string', description: 'The package name, for example "GOtv Max".' };
const subscriptionType: Schema = {
  enum: ['renew', 'change', null],
  description:
    'DStv and GOtv: "renew" kept the current bouquet, "change" moved the card to the package; null for StarTimes.',
};
const months: Schema = { ...int32(1, CABLE_MAX_MONTHS), description: 'Months paid for.' };
const smsSent: Schema = int32(1, SMS_MAX_RECIPIENTS);
const smsPagesSchema: Schema = int32(1, SMS_MAX_PAGES);

const schemas: Record<string, Schema> = {
  Error: {
    type: 'object',
    properties: {
      status: { const: 'error' },
      message: { type: 'string', minLength: 1 },
      code: { enum: [...PUBLIC_ERROR_CODES], description: 'What went wrong, for a program; docs/api.md lists each.' },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          properties: { field: { type: 'string' }, message: { type: 'string' } },
          required: ['field', 'message'],
          additionalProperties: false,
        },
      },
      reference: { ...reference, description: 'The transaction concerned (502 refunded, 422 idempotency key reused).' },
      error_id: { type: 'string', description: 'Quote it to support (500, 503).' },
    },
    required: ['status', 'message', 'code'],
    additionalProperties: false,
  },
  BalanceResponse: {
    type: 'object',
    properties: {
      status: { const: 'success' },
      balance: {
        ...naira,
        description: "The balance of the key pair's wallet: the live one, or the test one for a test pair.",
      },
      tier: { type: 'string' },
      mode: { enum: ['live', 'test'], description: 'The mode of the key pair, and so of the balance.' },
    },
    required: ['status', 'balance', 'tier', 'mode'],
    additionalProperties: false,
  },
  FundingResponse: {
    type: 'object',
    properties: {
      status: { const: 'success' },
      accounts: {
        type: 'array',
        description: "The bank accounts that fund the key pair's wallet; empty until the owner opens them.",
        items: {
          type: 'object',
          properties: {
            provider: { enum: ['sandbox', 'paystack', 'monnify'] },
            bank: { type: 'string' },
            account_number: { type: 'string', pattern: '^\\d{10}$' },
            account_name: { type: 'string' },
            status: { enum: ['active', 'closed'] },
          },
          required: ['provider', 'bank', 'account_number', 'account_name', 'status'],
          additionalProperties: false,
        },
      },
      fee: {
        type: 'object',
        description: 'The fee on each transfer, taken before the wallet is credited.',
        properties: {
          percent: { type: 'number', minimum: 0, maximum: 99.99, description: 'Percent of the amount paid.' },
          cap: {
            ...naira,
            type: ['number', 'null'],
            description: 'The most one transfer pays, in Naira; null: no cap.',
          },
        },
        required: ['percent', 'cap'],
        additionalProperties: false,
      },
    },
    required: ['status', 'accounts', 'fee'],
    additionalProperties: false,
  },
  Plan: {
    type: 'object',
    properties: {
      plan_id: int64(1),
      network: {
        enum: [...NETWORK_NAMES],
        description: 'The network, by the name the request used (t2 when asked for t2; 9mobile otherwise).',
      },
      network_names: {
        type: 'array',
        items: { enum: [...NETWORK_NAMES] },
        minItems: 1,
        maxItems: NETWORK_NAMES.length,
        description: 'Every name of the network, for example ["9mobile", "t2"]: 9mobile trades as T2 since 2025.',
      },
      plan: { type: 'string' },
      validity: { type: 'string' },
      price: { ...naira, description: 'What this account pays.' },
      type: {
        enum: [...PLAN_TYPES],
        description: 'How the market sells it: SME, SME2, corporate gifting (cg), gifting, awoof or direct.',
      },
      size_mb: { ...int32(0), description: 'Data in megabytes (1GB = 1024); 0 when not known.' },
      validity_days: { ...int32(0), description: 'How many days it lasts; 0 when not known.' },
    },
    required: ['plan_id', 'network', 'network_names', 'plan', 'validity', 'price', 'type', 'size_mb', 'validity_days'],
    additionalProperties: false,
  },
  PlansResponse: {
    type: 'object',
    properties: { status: { const: 'success' }, plans: { type: 'array', items: ref('Plan') } },
    required: ['status', 'plans'],
    additionalProperties: false,
  },
  CablePackage: {
    type: 'object',
    properties: {
      provider: { enum: [...CABLE_PROVIDERS] },
      package_code: {
        type: 'string',
        description: 'The package_code a cable purchase names (as listed; upper or lower case alike).',
      },
      package: { type: 'string' },
      price: { ...naira, description: 'What this account pays.' },
    },
    required: ['provider', 'package_code', 'package', 'price'],
    additionalProperties: false,
  },
  PackagesResponse: {
    type: 'object',
    properties: { status: { const: 'success' }, packages: { type: 'array', items: ref('CablePackage') } },
    required: ['status', 'packages'],
    additionalProperties: false,
  },
  AirtimeRequest: {
    type: 'object',
    properties: {
      network: { enum: [...NETWORK_NAMES], description: 't2 is 9mobile (T2 since 2025).' },
      phone,
      amount: { ...nairaAtLeast(AIRTIME_MIN_KOBO / 100), description: 'Face value in Naira, at least 50.' },
      request_id: requestId,
    },
    required: ['network', 'phone', 'amount'],
    additionalProperties: false,
  },
  AirtimeResponse: purchaseAnswer('success', {}),
  DataRequest: {
    type: 'object',
    properties: {
      plan_id: { oneOf: [int64(1), integerText] },
      phone,
      request_id: requestId,
    },
    required: ['plan_id', 'phone'],
    additionalProperties: false,
  },
  DataResponse: purchaseAnswer('success', { plan: planLabel }),
  ElectricityRequest: {
    type: 'object',
    properties: {
      disco: { enum: [...DISCOS] },
      meter_number: meterNumber,
      meter_type: { enum: [...METER_TYPES] },
      amount: { ...nairaAtLeast(ELECTRICITY_MIN_KOBO / 100), description: 'Naira, at least 1000.' },
      phone: { ...phone, description: 'Optional: receives the receipt SMS with the token.' },
      request_id: requestId,
    },
    required: ['disco', 'meter_number', 'meter_type', 'amount'],
    additionalProperties: false,
  },
  ElectricityResponse: purchaseAnswer('success', {
    token: {
      ...nullable('string', { pattern: '^\\d{4}(-\\d{4}){4}$' }),
      description: 'The 20-digit token; null for postpaid.',
    },
    units: { ...nullable('string'), description: 'Energy units, for example "31.5 kWh"; null for postpaid.' },
    kct_tokens: {
      type: 'array',
      items: stsToken,
      description:
        'Key-change tokens (KCT) that came with the vend, in the order the meter takes ' +
        'them (enter them before the token); empty when none.',
    },
    bonus_tokens: {
      type: 'array',
      items: stsToken,
      description: 'Bonus (free basic electricity) tokens that came with the vend; empty when none.',
    },
  }),
  CableRequest: {
    type: 'object',
    properties: {
      provider: { enum: [...CABLE_PROVIDERS] },
      smart_card: smartCard,
      package_code: { type: 'string', examples: ['GOTV MAX', 'DSTV PADI', 'basic'] },
      phone,
      request_id: requestId,
      subscription_type: {
        enum: ['renew', 'change'],
        description:
          'DStv and GOtv only. "renew" renews the card\'s current bouquet at the renewal ' +
          'amount the provider tells (package_code must name that bouquet); "change" moves ' +
          'the card to package_code. Default: renew when package_code names the current ' +
          'bouquet (by code or name, any case), else change.',
      },
      months: {
        oneOf: [int32(1, CABLE_MAX_MONTHS), integerText],
        description:
          'Months to pay for, 1 to 12 (default 1); more than one for DStv and GOtv only. ' +
          "The price is the month's price times months.",
      },
    },
    required: ['provider', 'smart_card', 'package_code'],
    additionalProperties: false,
  },
  CableResponse: purchaseAnswer('success', { package: packageName, subscription_type: subscriptionType, months }),
  BulkSmsRequest: {
    type: 'object',
    properties: {
      sender: { type: 'string', pattern: SENDER_PATTERN.source, maxLength: 11 },
      recipients: {
        type: 'array',
        items: phone,
        minItems: 1,
        maxItems: SMS_MAX_RECIPIENTS,
        description: 'Duplicates are sent and charged once.',
      },
      message: {
        type: 'string',
        minLength: 1,
        maxLength: SMS_MAX_CHARACTERS,
        description:
          '160 GSM-7 characters a page (GSM extended characters count two); a message with ' +
          'any other character is UCS-2, 70 UTF-16 units a page.',
      },
      request_id: requestId,
    },
    required: ['sender', 'recipients', 'message'],
    additionalProperties: false,
  },
  BulkSmsResponse: purchaseAnswer('success', { sent: smsSent, pages: smsPagesSchema }),
  PendingResponse: purchaseAnswer(
    'pending',
    {
      plan: planLabel,
      package: packageName,
      subscription_type: subscriptionType,
      months,
      sent: smsSent,
      pages: smsPagesSchema,
    },
    [],
  ),
  VerifyRequest: {
    description: 'Either disco + meter_number + meter_type (a meter), or provider + smart_card (a decoder).',
    oneOf: [
      {
        type: 'object',
        title: 'Meter',
        properties: {
          disco: { enum: [...DISCOS] },
          meter_number: meterNumber,
          meter_type: { enum: [...METER_TYPES] },
        },
        required: ['disco', 'meter_number', 'meter_type'],
        additionalProperties: false,
      },
      {
        type: 'object',
        title: 'Smart card',
        properties: {
          provider: { enum: [...CABLE_PROVIDERS] },
          smart_card: smartCard,
        },
        required: ['provider', 'smart_card'],
        additionalProperties: false,
      },
    ],
  },
  VerifyResponse: {
    type: 'object',
    properties: {
      status: { const: 'success' },
      product: { enum: [soldProductWord(Product.ELECTRICITY), soldProductWord(Product.CABLE), null] },
      service: { type: 'string' },
      customer_number: { type: 'string' },
      meter_type: nullable('string'),
      customer_name: { type: 'string' },
      address: nullable('string'),
      minimum_amount: { type: ['number', 'null'] },
      arrears: { type: ['number', 'null'] },
      current_bouquet: nullable('string'),
      due_date: nullable('string'),
      renewal_amount: { type: ['number', 'null'] },
    },
    required: [
      'status',
      'product',
      'service',
      'customer_number',
      'meter_type',
      'customer_name',
      'address',
      'minimum_amount',
      'arrears',
      'current_bouquet',
      'due_date',
      'renewal_amount',
    ],
    additionalProperties: false,
  },
  Transaction: {
    type: 'object',
    description: 'Every transaction has every key; null where a field does not apply or is not known yet.',
    properties: {
      reference,
      product: { enum: [...PRODUCTS, null] },
      status: { enum: [...TRANSACTION_STATUSES, null] },
      service: { type: 'string' },
      recipient: nullable('string'),
      amount: { ...naira, description: 'Face value.' },
      charged: naira,
      plan_id: { ...int64(1), type: ['integer', 'null'] },
      plan: nullable('string'),
      package: nullable('string'),
      package_code: nullable('string'),
      meter_type: nullable('string'),
      token: nullable('string'),
      units: nullable('string'),
      kct_tokens: {
        type: ['array', 'null'],
        items: { type: 'string' },
        description:
          'Electricity: the key-change tokens of the vend, in the order the meter takes ' +
          'them ([] when none); null for other products.',
      },
      bonus_tokens: {
        type: ['array', 'null'],
        items: { type: 'string' },
        description:
          'Electricity: the bonus (free basic electricity) tokens of the vend ([] when none); null for other products.',
      },
      sent: { ...smsSent, type: ['integer', 'null'] },
      pages: { ...smsPagesSchema, type: ['integer', 'null'] },
      failure_reason: nullable('string'),
      request_id: nullable('string'),
      created_at: nullable('string', { format: 'date-time' }),
      updated_at: nullable('string', { format: 'date-time' }),
      livemode: {
        type: 'boolean',
        description: 'true for a live purchase, false for a test one (test wallet, sandbox only).',
      },
    },
    required: [...TRANSACTION_KEYS],
    additionalProperties: false,
  },
  TransactionResponse: {
    type: 'object',
    properties: { status: { const: 'success' }, transaction: ref('Transaction') },
    required: ['status', 'transaction'],
    additionalProperties: false,
  },
  TransactionsResponse: {
    type: 'object',
    properties: {
      status: { const: 'success' },
      transactions: { type: 'array', items: ref('Transaction'), maxItems: MAX_HISTORY_PAGE_SIZE },
      next_cursor: {
        ...cursor,
        type: ['string', 'null'],
        description: 'Pass back as `cursor`; null on the last page.',
      },
    },
    required: ['status', 'transactions', 'next_cursor'],
    additionalProperties: false,
  },
  Event: {
    type: 'object',
    description:
      'An event exactly as a webhook delivers it. `data` is `{"transaction": ' +
      'Transaction}` for the transaction.* types, ' +
      '`{"reference","amount","balance","memo","source"}` (Naira) for wallet.credited, ' +
      'where `source` is `operator` or `bank_transfer` ' +
      '(then with `"funding":{"provider","provider_reference","amount_paid","fee","payer_name"}`), ' +
      '`{"reference","amount","balance","reason","source"}` (Naira; `source` is `operator`) for wallet.debited, ' +
      '`{"balance","threshold"}` (Naira) for wallet.low_balance, `{"plan": Plan}` (as ?action=plans shows it to the ' +
      'account, under its canonical network) for plan.updated and plan.disabled, and `{"message"}` for ping.',
    properties: {
      id: { type: 'string', pattern: '^evt_[0-9a-f]{24}$' },
      type: {
        enum: [...EVENT_TYPES],
      },
      created_at: { type: 'string', format: 'date-time' },
      livemode: { type: 'boolean' },
      data: { type: 'object' },
    },
    required: ['id', 'type', 'created_at', 'livemode', 'data'],
    additionalProperties: false,
  },
  EventsResponse: {
    type: 'object',
    properties: {
      status: { const: 'success' },
      events: { type: 'array', items: ref('Event'), maxItems: MAX_HISTORY_PAGE_SIZE },
      next_cursor: {
        ...cursor,
        description: 'Always present: poll again with it as `cursor`; it never skips nor repeats an event.',
      },
    },
    required: ['status', 'events', 'next_cursor'],
    additionalProperties: false,
  },
  Health: {
    type: 'object',
    properties: { status: { const: 'ok' } },
    required: ['status'],
    additionalProperties: false,
  },
};

/** One action: its method, request schema (POST) and the schema of each success status. */
interface ActionDoc {
  method: 'GET' | 'POST';
  summary: string;
  request?: string;
  responses: Partial<Record<'200' | '202', string>>;
}

const PURCHASE_PENDING = { '202': 'PendingResponse' } as const;

const ACTION_DOCS: Readonly<Record<string, ActionDoc>> = {
  balance: { method: 'GET', summary: 'Wallet balance and tier.', responses: { '200': 'BalanceResponse' } },
  funding: {
    method: 'GET',
    summary: 'The bank accounts that fund your wallet, and the funding fee.',
    responses: { '200': 'FundingResponse' },
  },
  plans: {
    method: 'GET',
    summary: "Data plans on sale at this account's price; optional `network` and `type`.",
    responses: { '200': 'PlansResponse' },
  },
  packages: {
    method: 'GET',
    summary: "Active cable TV packages at this account's price; optional `provider`.",
    responses: { '200': 'PackagesResponse' },
  },
  transaction: {
    method: 'GET',
    summary: 'One of your transactions by `reference` (requery).',
    responses: { '200': 'TransactionResponse' },
  },
  transactions: {
    method: 'GET',
    summary: `Your transactions, newest first; \`limit\` 1-${MAX_HISTORY_PAGE_SIZE}, \`cursor\`.`,
    responses: { '200': 'TransactionsResponse' },
  },
  events: {
    method: 'GET',
    summary:
      `Your events (what your webhook receives), oldest first; \`limit\` ` +
      `1-${MAX_HISTORY_PAGE_SIZE}, \`cursor\` (always returned).`,
    responses: { '200': 'EventsResponse' },
  },
  airtime: {
    method: 'POST',
    summary: 'Buy airtime.',
    request: 'AirtimeRequest',
    responses: { '200': 'AirtimeResponse', ...PURCHASE_PENDING },
  },
  data: {
    method: 'POST',
    summary: 'Buy a data plan.',
    request: 'DataRequest',
    responses: { '200': 'DataResponse', ...PURCHASE_PENDING },
  },
  electricity: {
    method: 'POST',
    summary: 'Pay for electricity.',
    request: 'ElectricityRequest',
    responses: { '200': 'ElectricityResponse', ...PURCHASE_PENDING },
  },
  cable: {
    method: 'POST',
    summary: 'Pay a cable TV subscription.',
    request: 'CableRequest',
    responses: { '200': 'CableResponse', ...PURCHASE_PENDING },
  },
  bulksms: {
    method: 'POST',
    summary: 'Send bulk SMS.',
    request: 'BulkSmsRequest',
    responses: { '200': 'BulkSmsResponse', ...PURCHASE_PENDING },
  },
  verify: {
    method: 'POST',
    summary: 'Who owns a meter or smart card; nothing is charged.',
    request: 'VerifyRequest',
    responses: { '200': 'VerifyResponse' },
  },
};

const header = (description: string, schema: Schema = { type: 'string' }) => ({ description, schema });
const rateLimitHeaders = {
  'RateLimit-Policy': header('The limit: `"per-key";q=60;w=60` (IETF httpapi ratelimit headers draft).'),
  RateLimit: header('What is left: `"per-key";r=<remaining>;t=<seconds to reset>`.'),
};
const errorResponse = (description: string, headers: Record<string, unknown> = rateLimitHeaders) => ({
  description,
  headers,
  content: { 'application/json': { schema: ref('Error') } },
});

const ERROR_RESPONSES = {
  '400': errorResponse('A message that is not HTTP at all (MALFORMED_REQUEST).', {}),
  '401': errorResponse(
    'MISSING_API_KEY, INVALID_API_KEY, IP_NOT_ALLOWED (the key is locked to other ' +
      'IPs), or ACCOUNT_SUSPENDED (the platform suspended the account).',
  ),
  '402': errorResponse('INSUFFICIENT_BALANCE: the wallet does not cover the charge; nothing was debited.'),
  '403': errorResponse(
    "KEY_SCOPE_DENIED (the action is outside the key's scopes), KEY_CAP_EXCEEDED (the purchase is over a " +
      'spend cap of the key), KEY_FROZEN (the key is frozen until its owner unfreezes it) or ' +
      "VERIFICATION_REQUIRED (a live purchase of a signed-up account whose owner's email or phone is not " +
      "verified yet) or LEVEL_LIMIT (a live purchase over the daily spend limit of the account's identity " +
      'level); nothing was charged.',
  ),
  '404': errorResponse('NOT_FOUND: a reference that is not yours, or an unknown customer number (verify).'),
  '405': errorResponse('METHOD_NOT_ALLOWED; the Allow header names the method.', {
    ...rateLimitHeaders,
    Allow: header('The method the action takes.'),
  }),
  '408': errorResponse(
    'REQUEST_TIMEOUT: the headers did not arrive within 10 s, or the whole request within 30 s.',
    {},
  ),
  '409': errorResponse(
    'REQUEST_IN_PROGRESS: the same idempotency key is still being processed; or DUPLICATE_PURCHASE (an ' +
      "account's duplicate guard: the same purchase moments ago without a new request_id; reference names it).",
  ),
  '417': errorResponse('EXPECTATION_FAILED: an Expect header other than 100-continue.', {}),
  '422': errorResponse(
    'INVALID_PARAMETER (errors lists every field), IDEMPOTENCY_KEY_REUSED, ' +
      'UNKNOWN_ACTION, INVALID_CONTENT_TYPE, INVALID_JSON, PAYLOAD_TOO_LARGE, ' +
      'FAILED_PRECONDITION, PLAN_DISABLED (the plan type is switched off), ' +
      'PRICE_BELOW_COST (the price is below its cost now; nothing was charged), RECIPIENT_BLOCKED, ' +
      "RECIPIENT_LIMIT (the recipient's limit for today is reached; nothing was charged).",
  ),
  '429': errorResponse(
    'RATE_LIMITED: more than 60 requests in any 60 seconds for this key, or too many ' +
      'failed authentications from this address.',
    {
      ...rateLimitHeaders,
      'Retry-After': header('Seconds to wait.', { type: 'integer', format: 'int32', minimum: 1 }),
    },
  ),
  '431': errorResponse('HEADERS_TOO_LARGE: the request headers are larger than the server takes.', {}),
  '500': errorResponse('INTERNAL: a fault on our side, logged under error_id.', {}),
  '502': errorResponse(
    'PROVIDER_FAILED: the provider failed; the transaction is failed and the wallet was refunded in full.',
  ),
  '503': errorResponse(
    'CORE_UNAVAILABLE: try again shortly; retry purchases with the same idempotency key. STORE_UNAVAILABLE: the ' +
      "service's store cannot write now (a full or read-only disk); nothing was charged, retry shortly.",
    {},
  ),
};

const oneOfRefs = (names: string[]) => ({ oneOf: names.map(ref) });
const actionsFor = (method: 'GET' | 'POST') => Object.entries(ACTION_DOCS).filter(([, doc]) => doc.method === method);

function operation(method: 'GET' | 'POST'): Schema {
  const actions = actionsFor(method);
  const success = [...new Set(actions.map(([, doc]) => doc.responses['200']!))];
  const op: Schema = {
    operationId: method === 'GET' ? 'readAction' : 'purchaseAction',
    summary: actions.map(([name, doc]) => `${name}: ${doc.summary}`).join(' '),
    security: [{ publicKey: [], secretKey: [] }],
    parameters: [
      { name: 'action', in: 'query', required: true, schema: { enum: actions.map(([name]) => name) } },
      ...(method === 'GET'
        ? [
            {
              name: 'network',
              in: 'query',
              description: 'plans: filter by network (t2 is 9mobile).',
              schema: { enum: [...NETWORK_NAMES] },
            },
            {
              name: 'type',
              in: 'query',
              description: 'plans: filter by plan type.',
              schema: { enum: [...PLAN_TYPES] },
            },
            {
              name: 'provider',
              in: 'query',
              description: 'packages: filter by cable provider.',
              schema: { enum: [...CABLE_PROVIDERS] },
            },
            {
              name: 'reference',
              in: 'query',
              description: 'transaction: the reference to requery.',
              schema: reference,
            },
            {
              name: 'limit',
              in: 'query',
              description:
                `transactions, events: page size, 1 to ${MAX_HISTORY_PAGE_SIZE} (default ` +
                `${DEFAULT_HISTORY_PAGE_SIZE}).`,
              schema: int32(1, MAX_HISTORY_PAGE_SIZE),
            },
            {
              name: 'cursor',
              in: 'query',
              description: 'transactions, events: next_cursor of the previous page.',
              schema: cursor,
            },
          ]
        : [
            {
              name: 'Idempotency-Key',
              in: 'header',
              description: 'Optional idempotency key for purchases.',
              schema: requestId,
            },
          ]),
    ],
    responses: {
      '200': {
        description: 'Done.',
        headers: {
          ...rateLimitHeaders,
          'Idempotent-Replayed': header('"true" when the answer replays an earlier request with the same key.'),
        },
        content: { 'application/json': { schema: oneOfRefs(success) } },
      },
      ...(method === 'POST'
        ? {
            '202': {
              description: 'Pending: the provider has not confirmed; the charge is held until it does.',
              headers: rateLimitHeaders,
              content: { 'application/json': { schema: ref('PendingResponse') } },
            },
          }
        : {}),
      ...ERROR_RESPONSES,
    },
  };
  if (method === 'POST') {
    op['requestBody'] = {
      required: true,
      content: { 'application/json': { schema: oneOfRefs(actions.map(([, doc]) => doc.request!)) } },
    };
  }
  return op;
}

/** The query parameters each GET action reads. */
const GET_PARAMETERS: Readonly<Record<string, string[]>> = {
  plans: ['network', 'type'],
  packages: ['provider'],
  transaction: ['reference'],
  transactions: ['limit', 'cursor'],
  events: ['limit', 'cursor'],
};

/**
 * One action's own operation at `/{action}` (`/api/v1/balance` is `/api/v1?action=balance`,
 * through the same pipeline), so that client generators type each answer on its own.
 */
function actionOperation(name: string, doc: ActionDoc): Schema {
  const shared = operation(doc.method);
  const wanted = new Set(GET_PARAMETERS[name] ?? []);
  const parameters = (shared['parameters'] as { name: string; in: string }[]).filter((p) =>
    doc.method === 'GET' ? wanted.has(p.name) : p.name !== 'action',
  );
  const sharedResponses = shared['responses'] as Record<string, Schema>;
  const examples = ACTION_EXAMPLES[name];
  const json = (schema: string, example: unknown) => ({
    'application/json': { schema: ref(schema), ...(example === undefined ? {} : { example }) },
  });
  const success = (status: '200' | '202') => {
    const schema = doc.responses[status];
    if (schema === undefined) return {};
    return { [status]: { ...sharedResponses[status], content: json(schema, examples?.[status]) } };
  };
  const op: Schema = {
    operationId: name,
    summary: doc.summary,
    description: `The same as \`?action=${name}\` on the base path.`,
    security: shared['security'],
    parameters,
    responses: { ...success('200'), ...success('202'), ...ERROR_RESPONSES },
  };
  if (doc.request !== undefined) op['requestBody'] = { required: true, content: json(doc.request, examples?.request) };
  return op;
}

/**
 * HEAD of a GET operation: the gateway answers it as GET without the body
 * (gateway/pipeline.ts), so the parameters, statuses and headers are GET's and no answer
 * has content.
 */
function headOf(get: Schema): Schema {
  const responses = Object.fromEntries(
    Object.entries(get['responses'] as Record<string, Schema>).map(([status, { content: _body, ...answer }]) => [
      status,
      answer,
    ]),
  );
  return { ...get, operationId: `${get['operationId']}Head`, summary: 'The same as GET, without the body.', responses };
}

const actionPaths = Object.fromEntries(
  Object.entries(ACTION_DOCS).map(([name, doc]) => {
    const op = actionOperation(name, doc);
    return [`/${name}`, doc.method === 'GET' ? { get: op, head: headOf(op) } : { post: op }];
  }),
);

const healthOperation = (method: 'GET' | 'HEAD'): Schema => ({
  operationId: method === 'GET' ? 'health' : 'healthHead',
  security: [],
  summary: method === 'GET' ? 'Whether the gateway can reach the core.' : 'The same as GET, without the body.',
  responses: {
    '200': {
      description: 'Serving.',
      ...(method === 'GET' ? { content: { 'application/json': { schema: ref('Health') } } } : {}),
    },
    '503': method === 'GET' ? errorResponse('CORE_UNAVAILABLE.', {}) : { description: 'CORE_UNAVAILABLE.' },
  },
});

const openapiOperation = (method: 'GET' | 'HEAD'): Schema => ({
  operationId: method === 'GET' ? 'openapi' : 'openapiHead',
  security: [],
  summary:
    method === 'GET' ? 'This document (with Access-Control-Allow-Origin: *).' : 'The same as GET, without the body.',
  responses: {
    '200': {
      description: 'OpenAPI 3.1.',
      headers: { 'Access-Control-Allow-Origin': header('`*`: any web page may read it.') },
      ...(method === 'GET' ? { content: { 'application/json': {} } } : {}),
    },
  },
});

/** The document, built once. */
const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'Prepaid services API',
    version: '1.0.0',
    description:
      'Airtime, data, electricity, cable TV and bulk SMS paid from a prepaid wallet. ' +
      'One address; the operation is chosen ' +
      "with the `action` query parameter (see `x-actions` for each action's method, " +
      'request and responses); each action is ' +
      'also served at its own path, `/{action}`, the same in every respect. Money is Naira ' +
      'with at most two decimals. Every request carries the key pair of an API-tier account.',
  },
  // The same public API under both base paths; nothing of it is internal.
  servers: [
    { url: '/api/v1', 'x-internal': false },
    { url: '/api', 'x-internal': false },
  ],
  'x-actions': ACTION_DOCS,
  paths: {
    '/': { get: operation('GET'), head: headOf(operation('GET')), post: operation('POST') },
    ...actionPaths,
    // Served under every base path as well as at the root, so a client built on the servers
    // below finds them.
    '/healthz': { get: healthOperation('GET'), head: healthOperation('HEAD') },
    '/openapi.json': { get: openapiOperation('GET'), head: openapiOperation('HEAD') },
  },
  components: {
    schemas,
    securitySchemes: {
      publicKey: { type: 'apiKey', in: 'header', name: 'X-Public-Key', description: 'pk_...' },
      secretKey: {
        type: 'apiKey',
        in: 'header',
        name: 'X-Secret-Key',
        description: 'sk_..., shown once when the key is issued.',
      },
    },
  },
} as const;

/** The JSON text served at /openapi.json, serialised once. */
export const OPENAPI_JSON = JSON.stringify(OPENAPI_DOCUMENT);
