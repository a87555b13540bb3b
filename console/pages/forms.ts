import { formatNaira, kobo, parseNaira } from '../../core/domain/money.js';
import { productOfWord, productWord } from '../../core/domain/words.js';
import type { Product } from '../../gen/prepaid/v1/types_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import type { Answer, PageContext } from '../route.js';

export const naira = (amountKobo: bigint | number) => `₦${formatNaira(kobo(Number(amountKobo)))}`;
export const session = (ctx: PageContext) => ({ sessionToken: ctx.sessionToken, clientAddress: ctx.clientAddress });
/** A form field's text, trimmed; "" when absent. */
export const field = (ctx: PageContext, name: string) => (ctx.form.get(name) ?? '').trim();

/** The product a form names, or UNSPECIFIED (which the core refuses with its own sentence). */
export function productOf(name: string): Product {
  return productOfWord(name);
}

export function productLabel(product: Product): string {
  return productWord(product) ?? 'unknown';
}

/** A `<select>` of `options` (value and label the same), `selected` chosen; `blank` adds a first empty option. */
export function select(id: string, name: string, options: readonly string[], selected = '', blank = ''): SafeHtml {
  return html`<select id="${id}" name="${name}">${
    blank === ''
      ? ''
      : html`<option \
value="">${blank}</option>`
  }${options.map((o) => html`<option value="${o}"${o === selected ? html` selected` : ''}>${o}</option>`)}</select>`;
}

/** An amount in Naira as typed ("5000", "₦5,000.50"); "" and "0" are 0; undefined when it is not an amount. */
export function nairaField(text: string): bigint | undefined {
  const cleaned = text.replace(/[₦,\s]/g, '');
  if (cleaned === '' || cleaned === '0') return 0n;
  const parsed = parseNaira(cleaned);
  return parsed.ok ? BigInt(parsed.kobo) : undefined;
}

/** A percentage as typed ("5", "2.5%") in basis points; "" is 0; undefined when it is not one. */
export function percentField(text: string): number | undefined {
  const match = /^(\d{1,5})(?:\.(\d{1,2}))?\s*%?$/.exec(text.trim() === '' ? '0' : text.trim());
  if (match === null) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

export const percentText = (basisPoints: number) => `${basisPoints / 100}%`;

export function errorSummary(problem: string): SafeHtml {
  return problem === ''
    ? html``
    : html`<div class="error-summary" role="alert"><h2>There is a problem</h2><p>${problem}</p></div>`;
}

export function doneNotice(ctx: PageContext): SafeHtml {
  const done = ctx.url.searchParams.get('done');
  return done === null ? html`` : html`<p class="notice" role="status">Done: ${done.slice(0, 300)}</p>`;
}

/** A page answer with status 400 when it shows a problem. */
export function pageAnswer(body: SafeHtml, problem: string): Answer {
  return { kind: 'page', status: problem === '' ? 200 : 400, body };
}

/**
 * Makes one change and goes back to `back` saying what was done; when the core refuses the
 * form (invalid, not found, or a change it will not make), shows `render`'s page again with
 * the core's sentences and status 400. A forbidden change or a failure is the server's to show.
 */
export async function change(
  back: string,
  render: (problem: string) => Promise<Answer>,
  act: () => Promise<string>,
): Promise<Answer> {
  let what: string;
  try {
    what = await act();
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid' && refusal.kind !== 'refused' && refusal.kind !== 'not_found') throw error;
    const sentences = [...new Set(refusal.fields.values())];
    return render(sentences.length > 0 ? sentences.join(' ') : refusal.message);
  }
  return { kind: 'redirect', location: `${back}${back.includes('?') ? '&' : '?'}done=${encodeURIComponent(what)}` };
}
