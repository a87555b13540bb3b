/**
 * Finding a purchase's record at a ported-number family site (docs/upstreams.md says what is
 * known of the family and what is unsure). The family documents lookups by the
 * site's own id only: `GET /api/data/{id}`, `/api/topup/{id}`, `/api/billpayment/{id}` answer
 * the purchase record, and a record that is not ours or does not exist is HTTP 404 (unsure:
 * script source). A purchase whose answer was lost never got that id; the only fallback is the
 * history list (`GET /api/data/` ..., newest first, DRF page-number pages
 * `{"count","next","previous","results"}`: unsure), matched on our reference echoed as `ident`
 * (echoed by some sites only: unsure). It is walked by its `next` links until the reference
 * is found, an entry older than our purchase shows the list has passed it, or
 * MAX_HISTORY_PAGES were read.
 */
import { referenceMinute } from '../../domain/reference.js';
import type { ProviderRequest } from '../port.js';
import type { HttpAnswer } from '../upstream-http.js';
import { asObject } from '../vtpass/codes.js';

/** A site's own purchase id: an integer in every sample. */
export const SITE_ID = /^\d{1,18}$/;

/**
 * History pages one re-query reads at most: 1,000 purchases at DRF's usual 50 a page. A lost
 * answer older than that at a busy site stays pending (for a person past the deadline) rather
 * than every re-query reading megabytes.
 */
const MAX_HISTORY_PAGES = 20;
const MAX_LIST_BYTES = 1024 * 1024;
/**
 * A history entry's date is the site's naive local time (a Django `create_date` without a
 * zone; which zone is unsure, Lagos most likely), so an entry counts as made before our
 * purchase only when it is older by more than a day: no zone is that far off.
 */
const HISTORY_DATE_SLACK_MS = 24 * 60 * 60_000;

/** A GET to the site with its token, at a path under its API base or a URL on it. */
type SiteGet = (
  method: 'GET',
  path: string,
  signal: AbortSignal,
  body?: undefined,
  maxBytes?: number,
) => Promise<HttpAnswer>;

/**
 * What a look-up found: the site's record of the purchase (none: `reason`), the last answer read,
 * how many pages, and whether the site answered that it has no such record (a 404 by id, or a
 * history read to its end or past our purchase). `matches`: the history's entries under our
 * reference, when the walk looked for every one.
 */
export interface Found {
  record: Record<string, unknown> | undefined;
  reason: string;
  answer: HttpAnswer;
  pages?: number;
  noRecord?: true;
  matches?: number;
}

/**
 * The site's record of a purchase at `path` (such as `data/`): by its own id when an answer gave
 * one, else through the history; for the daily match (`everyCharge`) through the history first,
 * counting every entry under our reference, and by id only when the history does not echo it.
 */
export async function findPurchase(
  get: SiteGet,
  base: URL,
  path: string,
  request: Pick<ProviderRequest, 'reference' | 'upstreamReference' | 'everyCharge'>,
  signal: AbortSignal,
): Promise<Found> {
  const id = request.upstreamReference;
  const byId = id !== undefined && SITE_ID.test(id);
  const list = new URL(path, base);
  if (!request.everyCharge)
    return byId ? findById(get, path, id, signal) : findInHistory(get, list, request.reference, signal);
  const listed = await findInHistory(get, list, request.reference, signal, true);
  return listed.record !== undefined || !byId ? listed : findById(get, path, id, signal);
}

/** The record under the site's own id (`path` such as `data/`). */
async function findById(get: SiteGet, path: string, id: string, signal: AbortSignal): Promise<Found> {
  const answer = await get('GET', `${path}${id}`, signal);
  const body = answer.kind === 'answer' && answer.status === 200 ? asObject(answer.json) : undefined;
  const record = body !== undefined && String(body['id']) === id ? body : undefined;
  const reason =
    answer.kind === 'no_answer'
      ? answer.reason
      : `the provider has no record ${id} of the purchase (HTTP ${answer.status})`;
  return { record, reason, answer, ...(answer.kind === 'answer' && answer.status === 404 ? { noRecord: true } : {}) };
}

/**
 * Our reference in the history list at `list`, page after page, until found or passed. With
 * `every` (the daily match), the walk goes on past the first entry found until the list has
 * passed our purchase, counting every entry under our reference: a site that charged twice
 * for one order shows two.
 */
async function findInHistory(
  get: SiteGet,
  list: URL,
  reference: string,
  signal: AbortSignal,
  every = false,
): Promise<Found> {
  const made = referenceMinute(reference);
  let target: URL | null = list;
  let pages = 0;
  let answer: HttpAnswer;
  let record: Record<string, unknown> | undefined;
  let matches = 0;
  let ended = false;
  do {
    pages += 1;
    answer = await get('GET', target.href, signal, undefined, MAX_LIST_BYTES);
    const body = answer.kind === 'answer' && answer.status === 200 ? asObject(answer.json) : undefined;
    const results = Array.isArray(body?.['results']) ? (body['results'] as unknown[]).map(asObject) : [];
    const ours = results.filter((entry) => entry?.['ident'] === reference);
    record ??= ours[0];
    matches += ours.length;
    target = body === undefined || passedBy(results, made) ? null : nextPage(body['next'], list);
    ended = body !== undefined && target === null;
  } while ((every || record === undefined) && target !== null && pages < MAX_HISTORY_PAGES);
  return {
    record,
    reason: 'the provider has no record of the purchase under our reference (yet)',
    answer,
    pages,
    ...(record === undefined && ended ? { noRecord: true } : {}),
    ...(every && ended ? { matches } : {}),
  };
}

/**
 * The next history page, only on the list's own address (the link is followed with our
 * token, so never to another host or path); null at the end, or for anything else.
 */
function nextPage(next: unknown, list: URL): URL | null {
  if (typeof next !== 'string' || next === '') return null;
  let url: URL;
  try {
    url = new URL(next, list);
  } catch {
    return null;
  }
  return url.origin === list.origin && url.pathname === list.pathname && url.href !== list.href ? url : null;
}

/** Whether a page (newest first) reaches entries made before our purchase: the list has passed it. */
function passedBy(results: readonly (Record<string, unknown> | undefined)[], made: Date | null): boolean {
  if (made === null) return false;
  return results.some((entry) => {
    const at = siteTime(entry?.['create_date'] ?? entry?.['date_created']);
    return at !== null && at < made.getTime() - HISTORY_DATE_SLACK_MS;
  });
}

/** A site's naive date-time ("2024-09-10T10:47:01.643585") read as if UTC; the slack covers its zone. */
function siteTime(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})/.exec(value);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  return Number.isFinite(ms) ? ms : null;
}
