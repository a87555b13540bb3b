/**
 * Templates that escape by default. `html` is a tagged template: every interpolated value is
 * escaped for HTML text and attribute values, unless it is itself the result of `html` (a
 * fragment already built this way) or was marked with `trusted()` on purpose. Arrays are
 * joined, and null, undefined and false print nothing, so conditionals and lists read
 * naturally:
 *
 *   html`<li class="${cls}">${user.email}</li>`            // both escaped
 *   html`<ul>${rows.map((r) => html`<li>${r}</li>`)}</ul>`  // fragments kept
 *
 * The only way to put markup in unescaped is `trusted()`, and it is used for markup this
 * code made itself (an SVG chart built from numbers, a QR code from the uqr library).
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Markup that is already safe to send: built by `html` or marked by `trusted()`. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** Text escaped for HTML element content and quoted attribute values. */
function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (ch) => HTML_ESCAPES[ch]!);
}

/** What may stand in a template hole. */
export type HtmlValue = SafeHtml | string | number | bigint | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** The tagged template: escapes every hole unless it holds SafeHtml. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/**
 * Markup taken as it is. Only for markup this program generated from values it controls
 * (never for anything a user, the core or a query string supplied).
 */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
