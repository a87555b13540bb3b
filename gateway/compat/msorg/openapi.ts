/**
 * The MSORG dialect's paths in OpenAPI (gateway/compat/openapi.ts; docs/compat.md, MSORG paths).
 * Each path also answers without its trailing slash, and at the root of COMPAT_PORT.
 */
import { jsonAnswer, jsonBody, NUMBER_OR_TEXT, object, queryParameter, TEXT } from '../openapi-parts.js';

const SECURITY = [{ msorgToken: [] }];
const BASE = '/compat/msorg/api';

/** A purchase record (docs/compat.md): capital-S `Status`, never a lower-case `status`. */
const RECORD = object(
  {
    id: TEXT,
    ident: TEXT,
    Status: { type: 'string', description: "`successful`, `failed`, or the token's in-flight word" },
    balance_before: TEXT,
    balance_after: TEXT,
    create_date: TEXT,
    api_response: TEXT,
  },
  ['id', 'Status'],
);
const REFUSAL = object({ error: { type: 'array', items: TEXT } });
const DETAIL = object({ detail: TEXT }, ['detail']);

const DENIED = {
  '401': jsonAnswer('No token, or a wrong one.', DETAIL),
  '403': jsonAnswer("Outside the key's IP lock or scopes, a frozen key, a suspended account.", DETAIL),
  '429': jsonAnswer('Over 60 requests a minute.', DETAIL),
};

function purchase(summary: string, body: Record<string, unknown>, example: unknown) {
  return {
    post: {
      summary,
      security: SECURITY,
      requestBody: jsonBody(body, example),
      responses: {
        '200': jsonAnswer("Delivered, or still in flight when the wait ran out (the token's in-flight word).", RECORD),
        '400': jsonAnswer('Refused before any purchase, or failed after the debit and refunded in full.', REFUSAL),
        ...DENIED,
      },
    },
    get: {
      summary: "One product's history, newest first, 20 a page.",
      security: SECURITY,
      parameters: [queryParameter('page', 'The page, from 1 to 50.')],
      responses: {
        '200': jsonAnswer(
          'A page of records.',
          object({ count: { type: 'integer' }, results: { type: 'array', items: RECORD } }),
        ),
        ...DENIED,
      },
    },
  };
}

const RECORD_BY_ID = {
  get: {
    summary: "One record by its id (our reference); any product's record at any product's path.",
    security: SECURITY,
    parameters: [{ name: 'id', in: 'path', required: true, schema: TEXT }],
    responses: {
      '200': jsonAnswer('The record.', RECORD),
      '404': jsonAnswer("Not the caller's, or unknown.", DETAIL),
      ...DENIED,
    },
  },
};

const IDENT = { ident: TEXT, 'request-id': TEXT };

export const openApiPaths: Record<string, unknown> = {
  [`${BASE}/topup/`]: purchase(
    'Buy airtime.',
    object(
      {
        network: NUMBER_OR_TEXT,
        amount: NUMBER_OR_TEXT,
        mobile_number: TEXT,
        Ported_number: {},
        airtime_type: TEXT,
        ...IDENT,
      },
      ['network', 'amount', 'mobile_number'],
    ),
    { network: '1', amount: '100', mobile_number: '08031231234', Ported_number: true, airtime_type: 'VTU' },
  ),
  [`${BASE}/data/`]: purchase(
    "Buy data: `plan` is our plan_id or the account's alias.",
    object({ network: NUMBER_OR_TEXT, plan: NUMBER_OR_TEXT, mobile_number: TEXT, Ported_number: {}, ...IDENT }, [
      'plan',
      'mobile_number',
    ]),
    { network: '1', plan: '99', mobile_number: '08031231234', Ported_number: true, ident: 'Data1234' },
  ),
  [`${BASE}/billpayment/`]: purchase(
    'Pay electricity.',
    object(
      { disco_name: NUMBER_OR_TEXT, amount: NUMBER_OR_TEXT, meter_number: TEXT, MeterType: NUMBER_OR_TEXT, ...IDENT },
      ['disco_name', 'amount', 'meter_number', 'MeterType'],
    ),
    { disco_name: 1, amount: 1000, meter_number: '45031231234', MeterType: 1 },
  ),
  [`${BASE}/cablesub/`]: purchase(
    'Pay a cable bouquet: `cableplan` is our package code.',
    object({ cablename: NUMBER_OR_TEXT, cableplan: TEXT, smart_card_number: TEXT, ...IDENT }, [
      'cablename',
      'cableplan',
      'smart_card_number',
    ]),
    { cablename: 2, cableplan: 'dstv-padi', smart_card_number: '7031231234' },
  ),
  [`${BASE}/topup/{id}`]: RECORD_BY_ID,
  [`${BASE}/data/{id}`]: RECORD_BY_ID,
  [`${BASE}/billpayment/{id}`]: RECORD_BY_ID,
  [`${BASE}/cablesub/{id}`]: RECORD_BY_ID,
  [`${BASE}/user/`]: {
    get: {
      summary:
        "The balance (`user.Account_Balance`, `user.wallet_balance`), data plans and cable plans at the account's prices.",
      security: SECURITY,
      responses: {
        '200': jsonAnswer(
          'The account.',
          object({ user: object({ Account_Balance: { type: 'number' }, wallet_balance: TEXT }) }),
        ),
        ...DENIED,
      },
    },
  },
  [`${BASE}/validatemeter`]: {
    get: {
      summary: 'Who owns a meter.',
      security: SECURITY,
      parameters: [
        queryParameter('meternumber', 'The meter.', true),
        queryParameter('disconame', 'The disco id, 1 to 10.', true),
        queryParameter('mtype', '1 prepaid, 2 postpaid.', true),
      ],
      responses: {
        '200': jsonAnswer('The owner.', object({ invalid: { type: 'boolean' }, name: TEXT })),
        '400': jsonAnswer(
          'Unknown meter.',
          object({ invalid: { type: 'boolean' }, error: { type: 'array', items: TEXT } }),
        ),
        ...DENIED,
      },
    },
  },
  [`${BASE}/validateiuc`]: {
    get: {
      summary: 'Who owns a smart card.',
      security: SECURITY,
      parameters: [
        queryParameter('smart_card_number', 'The card.', true),
        queryParameter('cablename', '1 GOTV, 2 DSTV, 3 STARTIME.', true),
      ],
      responses: {
        '200': jsonAnswer('The owner.', object({ invalid: { type: 'boolean' }, name: TEXT })),
        '400': jsonAnswer('Unknown card.', REFUSAL),
        ...DENIED,
      },
    },
  },
  [`${BASE}/epin/`]: {
    post: { summary: 'Not sold yet.', security: SECURITY, responses: { '400': jsonAnswer('Not available.', REFUSAL) } },
  },
  [`${BASE}/rechargepin/`]: {
    post: { summary: 'Not sold yet.', security: SECURITY, responses: { '400': jsonAnswer('Not available.', REFUSAL) } },
  },
};

/** How MSORG clients authenticate. */
export const openApiSecuritySchemes = {
  msorgToken: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Token <40 hex>` (one space or two); a `Token: <token>` header works too.',
  },
};
