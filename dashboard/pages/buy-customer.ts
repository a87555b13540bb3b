/**
 * The customer an electricity or cable TV check found (name, address, minimum amount, arrears,
 * current package, due date), shown before anything is paid. Its rows travel with the payment
 * form as hidden fields, only to be shown again beside an error; nothing in them is trusted.
 */
import { html, type SafeHtml } from '../../web/html.js';
import { naira } from '../format.js';
import type { SignedInContext } from '../route.js';

export function customerList(rows: ReadonlyArray<readonly [string, string]>): SafeHtml {
  return html`<dl class="summary-list">${rows
    .filter(([, value]) => value !== '')
    .map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`)}</dl>`;
}

type Customer = NonNullable<Awaited<ReturnType<SignedInContext['core']['shop']['verifyCustomer']>>['customer']>;

export function customerRows(customer: Customer | undefined): Array<readonly [string, string]> {
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
export function hiddenRows(rows: ReadonlyArray<readonly [string, string]>): SafeHtml {
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
