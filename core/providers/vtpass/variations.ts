/**
 * Reading VTpass's `service-variations` answers into the plans a network sells. The list
 * is `content.variations`, or `content.varations` in older answers (VTpass's documentation). An entry
 * that is not a usable plan (no code, no name, an amount that is not Naira) is skipped and
 * counted, never guessed; a missing list is an error, never "no plans", because the plans
 * sync deactivates what vanished and must not act on a broken answer.
 */
import type { UpstreamPlan } from '../port.js';
import type { HttpAnswer } from '../upstream-http.js';
import { asObject } from './codes.js';
import { naira } from './verify.js';

/** The plans sync's own bound on one network's list; real lists have tens to a few hundred. */
const MAX_VARIATIONS = 2_000;
/** Upstream codes as the catalog accepts them (core/catalog/service.ts). */
const VARIATION_CODE = /^[A-Za-z0-9._ -]{1,60}$/;
const MAX_NAME_LENGTH = 200;

/** The usable plans of one answer and how many entries were skipped, or why there are none. */
export type VariationsResult = { ok: true; plans: UpstreamPlan[]; skipped: number } | { ok: false; reason: string };

/** Reads a service-variations exchange. Never throws. */
export function readVariations(answer: HttpAnswer): VariationsResult {
  if (answer.kind === 'no_answer') return { ok: false, reason: answer.reason };
  if (answer.status < 200 || answer.status >= 300)
    return { ok: false, reason: `the provider answered HTTP ${answer.status}` };
  const body = asObject(answer.json);
  if (body === undefined)
    return { ok: false, reason: `malformed answer from the provider: ${answer.problem ?? 'not a JSON object'}` };
  const content = asObject(body['content']);
  if (content === undefined) {
    const code = typeof body['code'] === 'string' ? ` (code ${body['code'].slice(0, 8)})` : '';
    return { ok: false, reason: `the provider sent no plans${code}` };
  }
  const list = content['variations'] ?? content['varations'];
  if (!Array.isArray(list)) return { ok: false, reason: 'malformed answer from the provider: no variations list' };
  if (list.length > MAX_VARIATIONS)
    return { ok: false, reason: `the provider sent ${list.length} plans, more than the ${MAX_VARIATIONS} accepted` };
  const plans: UpstreamPlan[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const item of list) {
    const entry = asObject(item);
    const code = typeof entry?.['variation_code'] === 'string' ? entry['variation_code'].trim() : '';
    const name = typeof entry?.['name'] === 'string' ? entry['name'].replace(/\s+/g, ' ').trim() : '';
    const amountKobo = naira(entry?.['variation_amount']);
    if (
      !VARIATION_CODE.test(code) ||
      name === '' ||
      name.length > MAX_NAME_LENGTH ||
      amountKobo === undefined ||
      seen.has(code)
    ) {
      skipped += 1;
      continue;
    }
    seen.add(code);
    plans.push({ code, name, amountKobo });
  }
  return { ok: true, plans, skipped };
}
