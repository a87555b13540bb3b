/**
 * Buy: an owner sells from the web, whatever the account's tier. One page per product
 * (airtime, data, electricity, cable TV, bulk SMS); electricity and cable TV check the meter
 * or smart card first and show whose it is before anything is paid. Every purchase goes to
 * the core's ShopService, which runs the API's own purchase (validation, prices, provider,
 * refunds): nothing is priced or checked here beyond reading what a person typed.
 *
 * Each form carries a request id made when the form is shown (the API's idempotency key), so
 * a double click, a form sent again, or a reload of the answer buys once: the core answers
 * the same request id with the first purchase. After a purchase the browser is sent to the
 * transaction's page (post/redirect/get), which is the receipt: reference, token with a copy
 * button, pending said plainly, the refund of a failed purchase, and a print button.
 *
 * Viewers see no forms, and the core refuses their POSTs all the same (PERMISSION_DENIED).
 * Under /test the same pages spend the test wallet, and the sandbox serves every purchase.
 */
import { randomBytes } from 'node:crypto';
import { ConnectError } from '@connectrpc/connect';
import { CABLE_PROVIDERS, DISCOS, METER_TYPES, NETWORKS } from '../../core/domain/products.js';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import type { GetPricesResponse } from '../../gen/prepaid/v1/holder_pb.js';
import type { Transaction } from '../../gen/prepaid/v1/types_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { coreMode } from '../core-client.js';
import { naira } from '../format.js';
import { type FieldError, field, formFields, isOwner, page, select } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { koboOfInput } from './funds.js';

/** A new form's request id: web_ and 22 random URL-safe characters (the API allows 64). */
function newRequestId(): string {
  return `web_${randomBytes(16).toString('base64url')}`;
}

/** The products, in the order the Buy page lists them: path, name, one sentence. */
const PRODUCTS: ReadonlyArray<readonly [string, string, string]> = [
  ['airtime', 'Airtime', 'Top up any MTN, Glo, Airtel or 9mobile number.'],
  ['data', 'Data', 'A data plan for a phone number, at your price for the plan.'],
  ['electricity', 'Electricity', 'Check the meter, then pay: a prepaid meter gets its token here.'],
  ['cable', 'Cable TV', 'Check the smart card, then pay for a DStv, GOtv or StarTimes package.'],
  ['sms', 'Bulk SMS', 'One message to up to 10,000 numbers.'],
];

const upper = (value: string) => [value, value.toUpperCase()] as const;
const NETWORK_OPTIONS = [
  ['', 'Choose a network'] as const,
  ...NETWORKS.map((n) => [n, n === '9mobile' ? '9mobile' : n.toUpperCase()] as const),
];
const DISCO_OPTIONS = [['', 'Choose a distribution company'] as const, ...DISCOS.map(upper)];
const METER_OPTIONS = METER_TYPES.map((t) => [t, t === 'prepaid' ? 'Prepaid' : 'Postpaid'] as const);
const CABLE_OPTIONS = [
  ['', 'Choose a provider'] as const,
  ...CABLE_PROVIDERS.map((p) => [p, p === 'startimes' ? 'StarTimes' : p === 'dstv' ? 'DStv' : 'GOtv'] as const),
];

/** The core's field names (the API's) -> this form's field ids. */
const CORE_FIELDS: Readonly<Record<string, string>> = {
  amount: 'amount',
  amount_kobo: 'amount',
  plan_id: 'plan_id',
  package_code: 'package_code',
  smart_card: 'smart_card',
  meter_number: 'meter_number',
  meter_type: 'meter_type',
  recipients: 'recipients',
  request_id: 'amount',
};

type Values = Record<string, string>;

function formValues(ctx: SignedInContext, names: readonly string[]): Values {
  const values: Values = {};
  for (const name of names) values[name] = (ctx.form.get(name) ?? '').trim();
  return values;
}

function viewersOnly(ctx: SignedInContext, title: string): Answer {
  return {
    kind: 'page',
    body: page(
      { title, current: '/buy', viewer: ctx.viewer },
      html`<h1>${title}</h1><p class="inset">You are a viewer on this account: only an owner can buy. You can \
see every purchase in <a href="${ctx.link('/transactions')}">Transactions</a>.</p>`,
    ),
  };
}

/** The frame of every buy form: heading, the balance it spends, the form, errors at the top. */
async function buyPage(
  ctx: SignedInContext,
  title: string,
  intro: SafeHtml,
  form: SafeHtml,
  errors: readonly FieldError[],
): Promise<Answer> {
  const viewer = ctx.viewer;
  if (!isOwner(viewer)) return viewersOnly(ctx, title);
  const overview = await ctx.core.holder.getOverview({ sessionToken: ctx.sessionToken, mode: coreMode(ctx.mode) });
  const body = html`<p><a href="${ctx.link('/buy')}" class="back-link">All products</a></p>
<h1>${title}</h1>
<p>${ctx.mode === 'test' ? 'Test balance' : 'Balance'}: <strong>${naira(overview.balanceKobo)}</strong>. ${intro}</p>
${form}`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title, current: '/buy', viewer, errors }, body),
  };
}

function formStart(ctx: SignedInContext, action: string, requestId: string): SafeHtml {
  return html`<form method="post" action="${ctx.link(action)}" novalidate data-once>
  ${formFields(ctx.viewer)}
  ${requestId ? html`<input type="hidden" name="request_id" value="${requestId}">` : ''}`;
}

function submit(ctx: SignedInContext, label: string): SafeHtml {
  return html`<div class="button-group">
    <button type="submit" class="button">${label}</button>
    <a href="${ctx.link('/buy')}" class="link-button">Cancel</a>
  </div>
</form>`;
}

/** The amount a person typed, in kobo, or the form error that says how to write it. */
function amountOf(values: Values, errors: FieldError[]): bigint {
  const amountKobo = koboOfInput(values.amount ?? '');
  if (amountKobo === undefined || amountKobo === 0n) {
    errors.push({ field: 'amount', message: 'Enter the amount in Naira, for example 500 or 1,500.50.' });
    return 0n;
  }
  return amountKobo;
}

/**
 * After the core answered: the purchase's page, or the form again with the core's reasons.
 * A purchase the provider refused was refunded and has a reference: its page says so. The
 * same form sent while its purchase is still running is that purchase too.
 */
async function afterPurchase(
  ctx: SignedInContext,
  run: () => Promise<{ transaction?: Transaction | undefined; replayed: boolean }>,
  again: (errors: FieldError[], requestId: string) => Promise<Answer>,
  firstField: string,
): Promise<Answer> {
  try {
    const { transaction, replayed } = await run();
    if (transaction === undefined) throw new Error('The shop answered without a transaction');
    return {
      kind: 'redirect',
      location: ctx.link(
        `/transactions/${encodeURIComponent(transaction.reference)}?bought=${replayed ? 'again' : 'new'}`,
      ),
    };
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    const info = error.findDetails(ErrorInfoSchema)[0];
    const reference = info?.metadata.reference ?? '';
    if (reference !== '' && (info?.reason === 'PROVIDER_FAILED' || info?.reason === 'REQUEST_IN_PROGRESS')) {
      return {
        kind: 'redirect',
        location: ctx.link(
          `/transactions/${encodeURIComponent(reference)}?bought=${
            info.reason === 'PROVIDER_FAILED' ? 'failed' : 'again'
          }`,
        ),
      };
    }
    if (info?.reason === 'IDEMPOTENCY_KEY_REUSED') {
      // The form was sent, then changed and sent again (the back button): a new form, a new purchase.
      return again(
        [
          {
            field: firstField,
            message:
              `This form was already used for purchase ${reference}. Check the details below and buy ` +
              `again to make a new purchase.`,
          },
        ],
        newRequestId(),
      );
    }
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid' && refusal.kind !== 'refused') throw error;
    const errors =
      refusal.fields.size === 0
        ? [{ field: firstField, message: refusal.message }]
        : [...refusal.fields].map(([name, message]) => ({ field: CORE_FIELDS[name] ?? firstField, message }));
    // Nothing was bought: a fresh request id, so a corrected form is a purchase of its own.
    return again(errors, newRequestId());
  }
}

// ---- Airtime ----------------------------------------------------------------------------------

function airtimeForm(ctx: SignedInContext, values: Values, requestId: string, errors: FieldError[]): Promise<Answer> {
  const form = html`${formStart(ctx, '/buy/airtime', requestId)}
  ${select({ name: 'network', label: 'Network', options: NETWORK_OPTIONS, value: values.network ?? '', errors })}
  ${field({
    name: 'phone',
    label: 'Phone number',
    hint: '11 digits, for example 08031234567',
    type: 'text',
    inputmode: 'tel',
    autocomplete: 'off',
    value: values.phone ?? '',
    width: 'input--medium',
    errors,
  })}
  ${field({
    name: 'amount',
    label: 'Amount of airtime, in Naira',
    hint: 'For example 500. You are charged your price for it, shown on the receipt.',
    inputmode: 'decimal',
    value: values.amount ?? '',
    width: 'input--short',
    errors,
  })}
  ${submit(ctx, 'Buy airtime')}`;
  return buyPage(
    ctx,
    'Buy airtime',
    html`The network is the one you choose: numbers move between networks.`,
    form,
    errors,
  );
}

async function buyAirtime(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['network', 'phone', 'amount', 'request_id']);
  const errors: FieldError[] = [];
  const amountKobo = amountOf(values, errors);
  if (errors.length > 0) return airtimeForm(ctx, values, values.request_id ?? newRequestId(), errors);
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.buyAirtime({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          network: values.network,
          phone: values.phone,
          amountKobo,
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
        },
      }),
    (errs, requestId) => airtimeForm(ctx, values, requestId, errs),
    values.network === '' ? 'network' : 'phone',
  );
}

// ---- Data -------------------------------------------------------------------------------------

function planOptions(prices: GetPricesResponse, chosen: string): SafeHtml {
  return html`<option value="">Choose a plan</option>${NETWORKS.map((network) => {
    const plans = prices.dataPlans.filter((plan) => plan.network === network);
    if (plans.length === 0) return '';
    return html`<optgroup label="${network.toUpperCase()}">${plans.map(
      (plan) =>
        html`<option value="${String(plan.planId)}"${
          String(plan.planId) === chosen ? html` selected` : ''
        }>${plan.label}${plan.validity ? `, ${plan.validity}` : ''}: you pay ${naira(plan.priceKobo)}</option>`,
    )}</optgroup>`;
  })}`;
}

/** A select with groups: the layout's select() has none. */
function groupedSelect(
  name: string,
  label: string,
  hint: string,
  options: SafeHtml,
  errors: readonly FieldError[],
): SafeHtml {
  const error = errors.find((e) => e.field === name);
  return html`<div class="form-group${error ? ' form-group--error' : ''}">
  <label class="label" for="${name}">${label}</label>
  <p class="hint" id="${name}-hint">${hint}</p>
  ${
    error
      ? html`<p class="error-message" id="${name}-error"><span class="visually-hidden">Error:</span> \
${error.message}</p>`
      : ''
  }
  <select class="select" id="${name}" name="${name}" aria-describedby="${name}-hint${
    error ? ` ${name}-error` : ''
  }"${error ? html` aria-invalid="true"` : ''}>${options}</select>
</div>`;
}

async function dataForm(
  ctx: SignedInContext,
  values: Values,
  requestId: string,
  errors: FieldError[],
): Promise<Answer> {
  const prices = await ctx.core.holder.getPrices({ sessionToken: ctx.sessionToken });
  const form = html`${formStart(ctx, '/buy/data', requestId)}
  ${groupedSelect(
    'plan_id',
    'Data plan',
    'Plans are grouped by network; the price is what you pay.',
    planOptions(prices, values.plan_id ?? ''),
    errors,
  )}
  ${field({
    name: 'phone',
    label: 'Phone number',
    hint: '11 digits, for example 08031234567',
    inputmode: 'tel',
    autocomplete: 'off',
    value: values.phone ?? '',
    width: 'input--medium',
    errors,
  })}
  ${submit(ctx, 'Buy data')}`;
  return buyPage(
    ctx,
    'Buy data',
    html`Every plan is listed with <a href="${ctx.link('/prices#data')}">your price</a>.`,
    form,
    errors,
  );
}

async function buyData(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['plan_id', 'phone', 'request_id']);
  if (!/^\d{1,18}$/.test(values.plan_id ?? ''))
    return dataForm(ctx, values, values.request_id ?? newRequestId(), [
      { field: 'plan_id', message: 'Choose a data plan.' },
    ]);
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.buyData({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          planId: BigInt(values.plan_id ?? '0'),
          phone: values.phone,
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
        },
      }),
    (errs, requestId) => dataForm(ctx, values, requestId, errs),
    'phone',
  );
}

// ---- Electricity ------------------------------------------------------------------------------

function meterForm(ctx: SignedInContext, values: Values, errors: FieldError[]): Promise<Answer> {
  const form = html`${formStart(ctx, '/buy/electricity/check', '')}
  ${select({ name: 'disco', label: 'Distribution company', options: DISCO_OPTIONS, value: values.disco ?? '', errors })}
  ${field({
    name: 'meter_number',
    label: 'Meter number',
    inputmode: 'numeric',
    autocomplete: 'off',
    value: values.meter_number ?? '',
    width: 'input--medium',
    errors,
  })}
  ${select({
    name: 'meter_type',
    label: 'Meter type',
    options: METER_OPTIONS,
    value: values.meter_type ?? 'prepaid',
    errors,
  })}
  ${submit(ctx, 'Check the meter')}`;
  return buyPage(
    ctx,
    'Pay for electricity',
    html`First the meter is checked with the distribution company, so you see whose it is before paying.`,
    form,
    errors,
  );
}

function customerList(rows: ReadonlyArray<readonly [string, string]>): SafeHtml {
  return html`<dl class="summary-list">${rows
    .filter(([, value]) => value !== '')
    .map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`)}</dl>`;
}

async function checkMeter(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['disco', 'meter_number', 'meter_type']);
  try {
    const { customer } = await ctx.core.shop.verifyCustomer({
      sessionToken: ctx.sessionToken,
      check: {
        disco: values.disco,
        meterNumber: values.meter_number,
        meterType: values.meter_type,
        mode: coreMode(ctx.mode),
      },
    });
    return electricityForm(ctx, values, customerRows(customer), newRequestId(), []);
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid' && refusal.kind !== 'refused' && refusal.kind !== 'not_found') throw error;
    const errors =
      refusal.fields.size === 0
        ? [{ field: 'meter_number', message: refusal.message }]
        : [...refusal.fields].map(([name, message]) => ({
            field: name === 'disco' ? 'disco' : (CORE_FIELDS[name] ?? 'meter_number'),
            message,
          }));
    return meterForm(ctx, values, errors);
  }
}

type Customer = NonNullable<Awaited<ReturnType<SignedInContext['core']['shop']['verifyCustomer']>>['customer']>;

function customerRows(customer: Customer | undefined): Array<readonly [string, string]> {
  if (customer === undefined) return [];
  return [
    ['Name', customer.customerName],
    ['Address', customer.address ?? ''],
    ['Minimum amount', customer.minimumAmountKobo === undefined ? '' : naira(customer.minimumAmountKobo)],
    ['Arrears', customer.arrearsKobo === undefined ? '' : naira(customer.arrearsKobo)],
    ['Current package', customer.currentBouquet ?? ''],
    ['Due date', customer.dueDate ?? ''],
  ];
}

/** The customer's rows travel with the form as hidden fields, only to be shown again on an error. */
function hiddenRows(rows: ReadonlyArray<readonly [string, string]>): SafeHtml {
  return html`${rows.map(
    ([label, value]) => html`<input type="hidden" name="customer" \
value="${`${label}\t${value}`}">`,
  )}`;
}

function rowsFromForm(ctx: SignedInContext): Array<readonly [string, string]> {
  return ctx.form
    .getAll('customer')
    .slice(0, 8)
    .map((line) => {
      const [label = '', value = ''] = line.split('\t');
      return [label.slice(0, 40), value.slice(0, 200)] as const;
    });
}

function electricityForm(
  ctx: SignedInContext,
  values: Values,
  customer: ReadonlyArray<readonly [string, string]>,
  requestId: string,
  errors: FieldError[],
): Promise<Answer> {
  const form = html`<h2>The meter</h2>
${customerList([
  ['Distribution company', (values.disco ?? '').toUpperCase()],
  ['Meter number', values.meter_number ?? ''],
  ['Meter type', values.meter_type ?? ''],
  ...customer,
])}
<p><a href="${ctx.link('/buy/electricity')}">Not this meter? Check another</a></p>
${formStart(ctx, '/buy/electricity', requestId)}
  <input type="hidden" name="disco" value="${values.disco ?? ''}">
  <input type="hidden" name="meter_number" value="${values.meter_number ?? ''}">
  <input type="hidden" name="meter_type" value="${values.meter_type ?? ''}">
  ${hiddenRows(customer)}
  ${field({
    name: 'amount',
    label: 'Amount of electricity, in Naira',
    hint: 'You are charged your price for it, shown on the receipt.',
    inputmode: 'decimal',
    value: values.amount ?? '',
    width: 'input--short',
    errors,
  })}
  ${field({
    name: 'phone',
    label: "Customer's phone number (optional)",
    hint: 'For the biller\u2019s text message with the token.',
    inputmode: 'tel',
    autocomplete: 'off',
    value: values.phone ?? '',
    width: 'input--medium',
    errors,
  })}
  ${submit(ctx, 'Pay for electricity')}`;
  return buyPage(ctx, 'Pay for electricity', html`Check the meter's owner below before paying.`, form, errors);
}

async function payElectricity(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['disco', 'meter_number', 'meter_type', 'amount', 'phone', 'request_id']);
  const customer = rowsFromForm(ctx);
  const errors: FieldError[] = [];
  const amountKobo = amountOf(values, errors);
  if (errors.length > 0) return electricityForm(ctx, values, customer, values.request_id ?? newRequestId(), errors);
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.payElectricity({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          disco: values.disco,
          meterNumber: values.meter_number,
          meterType: values.meter_type,
          amountKobo,
          phone: values.phone,
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
        },
      }),
    (errs, requestId) => electricityForm(ctx, values, customer, requestId, errs),
    'amount',
  );
}

// ---- Cable TV ---------------------------------------------------------------------------------

function cardForm(ctx: SignedInContext, values: Values, errors: FieldError[]): Promise<Answer> {
  const form = html`${formStart(ctx, '/buy/cable/check', '')}
  ${select({ name: 'provider', label: 'Provider', options: CABLE_OPTIONS, value: values.provider ?? '', errors })}
  ${field({
    name: 'smart_card',
    label: 'Smart card or IUC number',
    inputmode: 'numeric',
    autocomplete: 'off',
    value: values.smart_card ?? '',
    width: 'input--medium',
    errors,
  })}
  ${submit(ctx, 'Check the smart card')}`;
  return buyPage(
    ctx,
    'Pay for cable TV',
    html`First the smart card is checked with the provider, so you see whose it is before paying.`,
    form,
    errors,
  );
}

async function checkCard(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['provider', 'smart_card']);
  try {
    const { customer } = await ctx.core.shop.verifyCustomer({
      sessionToken: ctx.sessionToken,
      check: { provider: values.provider, smartCard: values.smart_card, mode: coreMode(ctx.mode) },
    });
    return cableForm(ctx, values, customerRows(customer), newRequestId(), []);
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid' && refusal.kind !== 'refused' && refusal.kind !== 'not_found') throw error;
    const errors =
      refusal.fields.size === 0
        ? [{ field: 'smart_card', message: refusal.message }]
        : [...refusal.fields].map(([name, message]) => ({
            field: name === 'provider' ? 'provider' : 'smart_card',
            message,
          }));
    return cardForm(ctx, values, errors);
  }
}

async function cableForm(
  ctx: SignedInContext,
  values: Values,
  customer: ReadonlyArray<readonly [string, string]>,
  requestId: string,
  errors: FieldError[],
): Promise<Answer> {
  const prices = await ctx.core.holder.getPrices({ sessionToken: ctx.sessionToken });
  const packages = prices.cablePackages.filter((pkg) => pkg.provider === values.provider);
  const options = html`<option value="">Choose a package</option>${packages.map(
    (pkg) =>
      html`<option value="${pkg.packageCode}"${
        pkg.packageCode === values.package_code ? html` selected` : ''
      }>${pkg.name}: you pay ${naira(pkg.priceKobo)}</option>`,
  )}`;
  const form = html`<h2>The smart card</h2>
${customerList([
  ['Provider', (values.provider ?? '').toUpperCase()],
  ['Smart card', values.smart_card ?? ''],
  ...customer,
])}
<p><a href="${ctx.link('/buy/cable')}">Not this smart card? Check another</a></p>
${formStart(ctx, '/buy/cable', requestId)}
  <input type="hidden" name="provider" value="${values.provider ?? ''}">
  <input type="hidden" name="smart_card" value="${values.smart_card ?? ''}">
  ${hiddenRows(customer)}
  ${groupedSelect('package_code', 'Package', 'The price is what you pay.', options, errors)}
  ${field({
    name: 'phone',
    label: "Customer's phone number (optional)",
    inputmode: 'tel',
    autocomplete: 'off',
    value: values.phone ?? '',
    width: 'input--medium',
    errors,
  })}
  ${submit(ctx, 'Pay for cable TV')}`;
  return buyPage(ctx, 'Pay for cable TV', html`Check the card's owner below before paying.`, form, errors);
}

async function payCable(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['provider', 'smart_card', 'package_code', 'phone', 'request_id']);
  const customer = rowsFromForm(ctx);
  if ((values.package_code ?? '') === '')
    return cableForm(ctx, values, customer, values.request_id ?? newRequestId(), [
      { field: 'package_code', message: 'Choose a package.' },
    ]);
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.payCable({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          provider: values.provider,
          smartCard: values.smart_card,
          packageCode: values.package_code,
          phone: values.phone,
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
        },
      }),
    (errs, requestId) => cableForm(ctx, values, customer, requestId, errs),
    'package_code',
  );
}

// ---- Bulk SMS ---------------------------------------------------------------------------------

function textarea(name: string, label: string, hint: string, value: string, errors: readonly FieldError[]): SafeHtml {
  const error = errors.find((e) => e.field === name);
  return html`<div class="form-group${error ? ' form-group--error' : ''}">
  <label class="label" for="${name}">${label}</label>
  <p class="hint" id="${name}-hint">${hint}</p>
  ${
    error
      ? html`<p class="error-message" id="${name}-error"><span class="visually-hidden">Error:</span> \
${error.message}</p>`
      : ''
  }
  <textarea class="textarea${
    error ? ' input--error' : ''
  }" id="${name}" name="${name}" rows="5" aria-describedby="${name}-hint${error ? ` ${name}-error` : ''}"${
    error ? html` aria-invalid="true"` : ''
  }>${value}</textarea>
</div>`;
}

async function smsForm(ctx: SignedInContext, values: Values, requestId: string, errors: FieldError[]): Promise<Answer> {
  const prices = await ctx.core.holder.getPrices({ sessionToken: ctx.sessionToken });
  const form = html`${formStart(ctx, '/buy/sms', requestId)}
  ${field({
    name: 'sender',
    label: 'Sender name',
    hint: '1 to 11 letters or digits, as the recipients will see it.',
    autocomplete: 'off',
    value: values.sender ?? '',
    width: 'input--medium',
    errors,
  })}
  ${textarea(
    'recipients',
    'Recipients',
    'Phone numbers of 11 digits, separated by commas, spaces or new ' + 'lines. Each number is charged once.',
    values.recipients ?? '',
    errors,
  )}
  ${textarea('message', 'Message', 'Every 160 characters is one page.', values.message ?? '', errors)}
  ${submit(ctx, 'Send the SMS')}`;
  return buyPage(
    ctx,
    'Send bulk SMS',
    html`One page to one recipient costs you ${naira(prices.smsPagePriceKobo)}.`,
    form,
    errors,
  );
}

async function sendSms(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['sender', 'recipients', 'message', 'request_id']);
  // Reading what was typed into a list; the core de-duplicates, counts and checks each number.
  const recipients = (values.recipients ?? '').split(/[\s,;]+/).filter((r) => r !== '');
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.sendBulkSms({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          sender: values.sender,
          recipients,
          message: ctx.form.get('message') ?? '',
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
        },
      }),
    (errs, requestId) =>
      smsForm(
        ctx,
        values,
        requestId,
        errs.map((e) => (e.field === 'amount' ? { ...e, field: 'message' } : e)),
      ),
    'recipients',
  );
}

// ---- Routes -----------------------------------------------------------------------------------

async function buyIndex(ctx: SignedInContext): Promise<Answer> {
  if (!isOwner(ctx.viewer)) return viewersOnly(ctx, 'Buy');
  const body = html`<h1>${ctx.mode === 'test' ? 'Buy in test mode' : 'Buy'}</h1>
<p>Buy for your customers from here, at the same prices as through the API. ${
    ctx.mode === 'test'
      ? 'Test purchases spend your test balance and are never sent to a network or a biller.'
      : 'Purchases spend your live balance.'
  }</p>
<ul class="card-list">${PRODUCTS.map(
    ([path, name, sentence]) =>
      html`<li class="card-list__item"><h2 class="card-list__title"><a \
href="${ctx.link(`/buy/${path}`)}">${name}</a></h2><p>${sentence}</p></li>`,
  )}</ul>`;
  return { kind: 'page', body: page({ title: 'Buy', current: '/buy', viewer: ctx.viewer }, body) };
}

const route = (
  method: 'GET' | 'POST',
  path: string,
  name: string,
  handler: (ctx: SignedInContext) => Promise<Answer>,
): Route => ({
  method,
  path,
  name,
  signedIn: true,
  testMode: true,
  handler,
});

export const buyRoutes: Route[] = [
  route('GET', '/buy', 'buy', buyIndex),
  route('GET', '/buy/airtime', 'buy_airtime', (ctx) => airtimeForm(ctx, {}, newRequestId(), [])),
  route('POST', '/buy/airtime', 'buy_airtime', buyAirtime),
  route('GET', '/buy/data', 'buy_data', (ctx) => dataForm(ctx, {}, newRequestId(), [])),
  route('POST', '/buy/data', 'buy_data', buyData),
  route('GET', '/buy/electricity', 'buy_electricity', (ctx) => meterForm(ctx, { meter_type: 'prepaid' }, [])),
  route('POST', '/buy/electricity/check', 'buy_electricity_check', checkMeter),
  route('POST', '/buy/electricity', 'buy_electricity', payElectricity),
  route('GET', '/buy/cable', 'buy_cable', (ctx) => cardForm(ctx, {}, [])),
  route('POST', '/buy/cable/check', 'buy_cable_check', checkCard),
  route('POST', '/buy/cable', 'buy_cable', payCable),
  route('GET', '/buy/sms', 'buy_sms', (ctx) => smsForm(ctx, {}, newRequestId(), [])),
  route('POST', '/buy/sms', 'buy_sms', sendSms),
];
