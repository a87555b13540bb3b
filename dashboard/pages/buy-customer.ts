/**
 * The customer an electricity or cable TV check found (name, address, minimum amount, arrears,
 * current package, due date), shown before anything is paid. Its rows travel with the payment
 * form as hidden fields, only to be shown again beside an error; nothing in them is trusted.
 */
import { html, type SafeHtml } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { naira } from '../format.js';
import type { FieldError } from '../layout.js';
import type { Answer, SignedInContext } from '../route.js';
import type { Values } from './buy-form.js';

function customerList(rows: ReadonlyArray<readonly [string, string]>): SafeHtml {
  return html`<dl class="summary-list">${rows
    .filter(([, value]) => value !== '')
    .map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`)}</dl>`;
}

export type Customer = NonNullable<Awaited<ReturnType<SignedInContext['core']['shop']['verifyCustomer']>>['customer']>;

function customerRows(customer: Customer | undefined): Array<readonly [string, string]> {
  if (customer === undefined) return [];
  return [
    ['Name', customer.customerName],
    ['Address', customer.address ?? ''],
    ['Minimum amount', customer.minimumAmountKobo === undefined ? '' : naira(customer.minimumAmountKobo)],
    ['Arrears', customer.arrearsKobo === undefined ? '' : naira(customer.arrearsKobo)],
    ['Current package', customer.currentBouquet ?? ''],
    ['Due date', customer.dueDate ?? ''],
    ['Renewal amount', customer.renewalAmountKobo === undefined ? '' : `${naira(customer.renewalAmountKobo)} a month`],
  ];
}

/** The customer's rows travel with the form as hidden fields, only to be shown again on an error. */
function hiddenRows(rows: ReadonlyArray<readonly [string, string]>): SafeHtml {
  return html`${rows.map(
    ([label, value]) => html`<input type="hidden" name="customer" \
value="${`${label}\t${value}`}">`,
  )}`;
}

export function rowsFromForm(ctx: SignedInContext): Array<readonly [string, string]> {
  return ctx.form
    .getAll('customer')
    .slice(0, 8)
    .map((line) => {
      const [label = '', value = ''] = line.split('\t');
      return [label.slice(0, 40), value.slice(0, 200)] as const;
    });
}

/** One row's value, as shown ('' when the check did not tell it). */
export function rowValue(rows: ReadonlyArray<readonly [string, string]>, label: string): string {
  return rows.find(([name]) => name === label)?.[1] ?? '';
}

/**
 * The first step of electricity and cable TV, the check: the core asks the provider about the
 * number, and the payment form follows with the customer shown; a refusal (a bad number, a
 * customer not found) is the check's form again with the reason beside its field.
 */
export async function checkThen(
  ask: () => Promise<Customer | undefined>,
  pay: (rows: Array<readonly [string, string]>) => Promise<Answer>,
  again: (errors: FieldError[]) => Promise<Answer>,
  fieldOf: (coreField: string) => string,
  numberField: string,
): Promise<Answer> {
  try {
    return await pay(customerRows(await ask()));
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid' && refusal.kind !== 'refused' && refusal.kind !== 'not_found') throw error;
    const errors =
      refusal.fields.size === 0
        ? [{ field: numberField, message: refusal.message }]
        : [...refusal.fields].map(([name, message]) => ({ field: fieldOf(name), message }));
    return again(errors);
  }
}

/**
 * The second step's head: what was checked and whose it is, the way back to check another,
 * and the checked values carried in the payment form as hidden fields (the core checks them
 * again when paying; the customer's rows are only shown again beside an error).
 */
export function checkedHead(
  ctx: SignedInContext,
  heading: string,
  shown: ReadonlyArray<readonly [string, string]>,
  again: { path: string; text: string },
): SafeHtml {
  return html`<h2>${heading}</h2>
${customerList(shown)}
<p><a href="${ctx.link(again.path)}">${again.text}</a></p>`;
}

export function carried(
  values: Values,
  names: readonly string[],
  rows: ReadonlyArray<readonly [string, string]>,
): SafeHtml {
  return html`${names.map((name) => html`<input type="hidden" name="${name}" value="${values[name] ?? ''}">`)}
  ${hiddenRows(rows)}`;
}
