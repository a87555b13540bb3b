/**
 * The Adex dialect's paths in OpenAPI 3.1 (docs/compat.md, Adex paths), keyed by their full
 * path under `/compat/adex/api/`; the same paths answer at the root of COMPAT_PORT and without
 * (or with) their trailing slash. Assembled with the other dialects' into the compatible
 * endpoints' document.
 */
import { CABLE_FIELD } from './ids.js';

const PREFIX = '/compat/adex/api';

/** How every path is authorised, in words beside the schemes below. */
const AUTH =
  'Authorization: `Token <AccessToken>` (one space or two), or `Basic` with the account id and the Adex token.';

/** The login's Basic credentials (the account id and the token) and the AccessToken the other paths carry. */
export const openApiSecuritySchemes = {
  adexBasic: { type: 'http', scheme: 'basic', description: 'User name: the account id; password: the Adex token.' },
  adexToken: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Token <AccessToken>`, the AccessToken the login answered.',
  },
};

/** Every path but the login takes either; the login takes Basic only. */
const EITHER = [{ adexToken: [] }, { adexBasic: [] }];

const answerSchema = {
  type: 'object',
  required: ['status', 'message'],
  properties: {
    status: {
      type: 'string',
      description: "`success`, `fail`, or the token's in-flight word (`pending` or `processing`).",
    },
    'request-id': {
      type: 'string',
      description: "The client's request-id, echoed (or our reference when none was sent).",
    },
    message: { type: 'string' },
    msg: { type: 'string', description: 'The same as message.' },
    reference: { type: 'string', description: 'Our reference of the purchase.' },
    amount: { type: 'number', description: 'Naira charged.' },
    newbal: { type: 'number', description: 'The wallet balance after the purchase, naira.' },
    token: { type: 'string', description: 'Electricity: the token for the meter.' },
    units: { type: 'string', description: 'Electricity: the units.' },
  },
};

const failSchema = {
  type: 'object',
  required: ['status', 'message'],
  properties: {
    status: { const: 'fail' },
    'request-id': { type: 'string' },
    message: { type: 'string' },
    msg: { type: 'string' },
  },
};

const idValue = { oneOf: [{ type: 'string' }, { type: 'integer' }] };
const bypass = {
  oneOf: [{ type: 'boolean' }, { type: 'string' }, { type: 'null' }],
  description: 'Ported number: true, false, "1" or ""; read and ignored (no prefix check is made).',
};

const failures = {
  '400': {
    description: 'Refused before any charge, or failed after the debit and refunded in full.',
    content: json(failSchema),
  },
  '401': { description: 'No token, or a wrong one.', content: json(failSchema) },
};

function json(schema: unknown) {
  return { 'application/json': { schema } };
}

function purchase(summary: string, properties: Record<string, unknown>, required: string[]) {
  return {
    post: {
      summary,
      description: AUTH,
      security: EITHER,
      requestBody: {
        required: true,
        content: json({ type: 'object', required, properties: { ...properties, 'request-id': { type: 'string' } } }),
      },
      responses: {
        '200': { description: 'Delivered (`success`) or still in flight after the wait.', content: json(answerSchema) },
        ...failures,
      },
    },
  };
}

function check(summary: string, parameters: string[], answer: Record<string, unknown>) {
  return {
    get: {
      summary,
      description: AUTH,
      security: EITHER,
      parameters: parameters.map((name) => ({ name, in: 'query', required: true, schema: { type: 'string' } })),
      responses: {
        '200': {
          description: 'Found.',
          content: json({ type: 'object', properties: { status: { const: 'success' }, ...answer } }),
        },
        ...failures,
      },
    },
  };
}

const loginAnswer = {
  type: 'object',
  required: ['status', 'AccessToken'],
  properties: {
    status: { const: 'success' },
    AccessToken: { type: 'string', description: 'Sent back as `Authorization: Token <AccessToken>`.' },
    username: { type: 'string' },
    balance: { type: 'string' },
    wallet_balance: { type: 'string' },
    user: { type: 'object' },
  },
};

const loginOperation = (method: string) => ({
  summary: `Log in (${method}): Basic credentials, the account id and the compatible token.`,
  description: AUTH,
  security: [{ adexBasic: [] }],
  responses: { '200': { description: 'Logged in.', content: json(loginAnswer) }, '401': failures['401'] },
});

export const openApiPaths: Readonly<Record<string, unknown>> = {
  [`${PREFIX}/user`]: { get: loginOperation('GET'), post: loginOperation('POST') },
  [`${PREFIX}/data/`]: purchase(
    'Buy data.',
    { network: idValue, data_plan: idValue, phone: { type: 'string' }, bypass },
    ['data_plan', 'phone'],
  ),
  [`${PREFIX}/topup/`]: purchase(
    'Buy airtime (VTU).',
    { network: idValue, amount: idValue, phone: { type: 'string' }, plan_type: { type: 'string' }, bypass },
    ['network', 'amount', 'phone'],
  ),
  [`${PREFIX}/bill`]: purchase(
    'Pay electricity.',
    {
      disco: idValue,
      meter_type: idValue,
      meter_number: { type: 'string' },
      amount: idValue,
      phone: { type: 'string' },
      bypass,
    },
    ['disco', 'meter_type', 'meter_number', 'amount'],
  ),
  [`${PREFIX}/cable`]: purchase(
    'Pay a cable TV subscription.',
    { cable: idValue, iuc: { type: 'string' }, cable_plan: { type: 'string' }, bypass },
    [CABLE_FIELD, 'iuc', 'cable_plan'],
  ),
  [`${PREFIX}/bill/bill-validation`]: check('Who owns a meter.', ['meter_type', 'disco', 'meter_number'], {
    name: { type: 'string' },
    Customer_Name: { type: 'string' },
    address: { type: 'string' },
  }),
  [`${PREFIX}/cable/cable-validation`]: check('Who owns a smart card.', ['iuc', CABLE_FIELD], {
    name: { type: 'string' },
    current_bouquet: { type: 'string' },
  }),
  [`${PREFIX}/recharge_card`]: {
    post: {
      summary: 'Recharge-card PINs: not sold here yet (also /data_card and /exam).',
      description: AUTH,
      security: EITHER,
      responses: { '400': failures['400'] },
    },
  },
};
