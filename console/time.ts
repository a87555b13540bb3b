/**
 * How the console writes a time and an account: Lagos time (Africa/Lagos, West Africa Time,
 * UTC+1 all year) as people at the platform read it, with the UTC instant in the `title` (shown
 * on hover) and in `datetime`; an account as its name linking to its page, its id beside it.
 */
import { type Timestamp, timestampDate } from '@bufbuild/protobuf/wkt';
import { html, type SafeHtml } from '../web/html.js';

const LAGOS = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Africa/Lagos',
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});

/** A date in Lagos time, as text: "02 Dec 2026, 17:05:09 WAT". */
function lagosText(date: Date): string {
  return `${LAGOS.format(date)} WAT`;
}

/** A time as the console shows it; "-" when there is none. */
export function when(at: Timestamp | Date | undefined): SafeHtml {
  if (at === undefined) return html`-`;
  const date = at instanceof Date ? at : timestampDate(at);
  const utc = date.toISOString();
  return html`<time datetime="${utc}" title="${utc.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC')}">${lagosText(date)}</time>`;
}

/** An account by its name (when known), linking to its page, with its id. */
export function accountLink(accountId: string, names: Readonly<Record<string, string>> = {}, name = ''): SafeHtml {
  if (accountId === '') return html`-`;
  const shown = name || names[accountId] || '';
  const href = `/accounts/${encodeURIComponent(accountId)}`;
  return shown === ''
    ? html`<a href="${href}">${accountId}</a>`
    : html`<a href="${href}">${shown}</a> <span class="id">${accountId}</span>`;
}

const LAGOS_OFFSET_MS = 3_600_000;

/**
 * A Lagos wall time as typed in a form ("2026-12-02" is its midnight, "2026-12-02T09:30" a
 * datetime-local field) as the instant it names; undefined when empty or not such a time.
 */
export function lagosInput(text: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/.exec(text.trim());
  if (match === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0'] = match;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi)) - LAGOS_OFFSET_MS;
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** An instant as a datetime-local field's value in Lagos time ("2026-12-02T09:30"). */
export function lagosInputValue(date: Date): string {
  return new Date(date.getTime() + LAGOS_OFFSET_MS).toISOString().slice(0, 16);
}
