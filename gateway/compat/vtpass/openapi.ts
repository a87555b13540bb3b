/**
 * The VTpass dialect's paths in OpenAPI (gateway/compat/openapi.ts; docs/compat.md, VTpass).
 * Each path also answers with a trailing slash, and at the root of COMPAT_PORT.
 */
import { jsonAnswer, jsonBody, NUMBER_OR_TEXT, object, queryParameter, TEXT } from '../openapi-parts.js';

const BASE = '/compat/vtpass/api';
/** POST: api-key with secret-key. */
const POST_KEYS = [{ vtpassApiKey: [], vtpassSecretKey: [] }];
/** GET: api-key with public-key (reads only), or with secret-key. */
const GET_KEYS = [
  { vtpassApiKey: [], vtpassPublicKey: [] },
  { vtpassApiKey: [], vtpassSecretKey: [] },
];

const CODE = {
  type: 'string',
  description:
    '`000` processed (read `content.transactions.status`), `099` in flight (requery), `016` failed and refunded, ' +
    '`040` reversed and refunded, `010`-`028` refused before any purchase, `083` our outage (outcome unknown: requery).',
};

/** The `pay` and `requery` answer. */
const PURCHASE = object(
  {
    code: CODE,
    response_description: TEXT,
    requestId: TEXT,
    amount: { type: 'number' },
    transaction_date: TEXT,
    purchased_code: TEXT,
    token: TEXT,
    units: TEXT,
    content: object({
      transactions: object(
        {
          status: { type: 'string', enum: ['delivered', 'pending', 'failed', 'reversed'] },
          transactionId: TEXT,
          unique_element: TEXT,
          product_name: TEXT,
          amount: { type: 'number' },
          total_amount: { type: 'number' },
          commission: { type: 'number' },
        },
        ['status', 'transactionId'],
      ),
    }),
  },
  ['code', 'response_description'],
);
const REFUSAL = object(
  { code: CODE, response_description: TEXT, content: object({ errors: { type: 'array', items: TEXT } }) },
  ['code'],
);
const DENIED = {
  '401': jsonAnswer('Wrong or missing keys (code 087).', REFUSAL),
  '429': jsonAnswer('Over 60 requests a minute.', object({ response_description: TEXT })),
};

export const openApiPaths: Record<string, unknown> = {
  [`${BASE}/pay`]: {
    post: {
      summary:
        'Buy: airtime (`mtn`, `glo`, `airtel`, `etisalat`), data (`mtn-data`...: `variation_code` our plan_id or the ' +
        "account's alias), electricity (`ikeja-electric`...: `variation_code` prepaid or postpaid, `billersCode` the " +
        'meter), cable (`dstv`, `gotv`, `startimes`: `variation_code` our package code, `billersCode` the card). ' +
        '`request_id` is the idempotency key.',
      security: POST_KEYS,
      requestBody: jsonBody(
        object(
          {
            request_id: TEXT,
            serviceID: TEXT,
            amount: NUMBER_OR_TEXT,
            phone: TEXT,
            billersCode: TEXT,
            variation_code: TEXT,
            subscription_type: { type: 'string', enum: ['change', 'renew'] },
            quantity: NUMBER_OR_TEXT,
          },
          ['request_id', 'serviceID'],
        ),
        {
          request_id: '202612021530Data1234',
          serviceID: 'mtn-data',
          billersCode: '08031231234',
          variation_code: '17',
          phone: '08031231234',
        },
      ),
      responses: {
        '200': jsonAnswer('Delivered (000), in flight (099), failed (016), or refused (a code).', PURCHASE),
        ...DENIED,
      },
    },
  },
  [`${BASE}/requery`]: {
    post: {
      summary: "A purchase by its request_id, in the `pay` answer's shape; 015 for an unknown one.",
      security: POST_KEYS,
      requestBody: jsonBody(object({ request_id: TEXT }, ['request_id']), { request_id: '202612021530Data1234' }),
      responses: { '200': jsonAnswer('The purchase as it stands, or 015.', PURCHASE), ...DENIED },
    },
  },
  [`${BASE}/service-variations`]: {
    get: {
      summary: "A service's plans or bouquets at the account's prices (`variation_code` is what `pay` takes).",
      security: GET_KEYS,
      parameters: [queryParameter('serviceID', 'mtn-data, dstv, ikeja-electric, ...', true)],
      responses: {
        '200': jsonAnswer(
          'The variations (VTpass\'s shape: `response_description` "000", no `code`).',
          object({
            response_description: TEXT,
            content: object({
              serviceID: TEXT,
              variations: {
                type: 'array',
                items: object({ variation_code: TEXT, name: TEXT, variation_amount: TEXT, fixedPrice: TEXT }),
              },
            }),
          }),
        ),
        ...DENIED,
      },
    },
  },
  [`${BASE}/merchant-verify`]: {
    post: {
      summary:
        'Who owns a meter (with `type` prepaid or postpaid) or a smart card; an unknown one is `WrongBillersCode`.',
      security: POST_KEYS,
      requestBody: jsonBody(object({ billersCode: TEXT, serviceID: TEXT, type: TEXT }, ['billersCode', 'serviceID']), {
        billersCode: '45031231234',
        serviceID: 'ikeja-electric',
        type: 'prepaid',
      }),
      responses: {
        '200': jsonAnswer(
          'The customer.',
          object({
            code: CODE,
            content: object({ Customer_Name: TEXT, WrongBillersCode: { type: 'boolean' }, error: TEXT }),
          }),
        ),
        ...DENIED,
      },
    },
  },
  [`${BASE}/balance`]: {
    get: {
      summary: "The wallet's balance in naira, under VTpass's numeric code 1.",
      security: GET_KEYS,
      responses: {
        '200': jsonAnswer(
          'The balance.',
          object({ code: { type: 'integer' }, contents: object({ balance: { type: 'number' } }) }),
          {
            code: 1,
            contents: { balance: 49530 },
          },
        ),
        ...DENIED,
      },
    },
  },
};

/** How VTpass clients authenticate: three headers, shown once by `prepaid keys compat --dialect vtpass`. */
export const openApiSecuritySchemes = {
  vtpassApiKey: { type: 'apiKey', in: 'header', name: 'api-key', description: 'Sent with every call.' },
  vtpassSecretKey: { type: 'apiKey', in: 'header', name: 'secret-key', description: 'With POST; buys.' },
  vtpassPublicKey: { type: 'apiKey', in: 'header', name: 'public-key', description: 'With GET; reads only.' },
};
