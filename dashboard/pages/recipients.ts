/**
 * Recipients (docs/developer-area.md, Recipients): the account's own blocklist of phone, meter
 * and smart-card numbers, and its limits per recipient per Lagos day with the duplicate guard.
 * They bound what a leaked key or a compromised server can send to one number. Owners block a
 * number with an optional reason, lift a block after a confirmation page, and change the limits;
 * lifting a block and changing the limits ask for a current code when two-step sign-in is on (the
 * core decides, as it does for a key's limits). Viewers see the list and the limits only. Every
 * value is checked by the core by the operator's own rule; this page turns typed Naira into kobo
 * and shows the core's refusals beside their fields. The platform's own list is never shown.
 */
import type { RecipientBlock } from '../../gen/prepaid/v1/admin_pb.js';
import type { GetRecipientControlsResponse } from '../../gen/prepaid/v1/holder_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { isoTime, lagosTime, naira } from '../format.js';
import { empty, type FieldError, field, formFields, isOwner, page } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { koboOfInput } from './funds.js';
import { nairaValue, refusalErrors, totpField } from './key-limits.js';

const PATH = '/recipients';

const NOTICES: Readonly<Record<string, string>> = {
  blocked: 'The number is blocked. Purchases of this account to it are refused from now on.',
  unblocked: 'The block is lifted. Purchases to the number are taken again.',
  absent: 'That number was not on the list; nothing changed.',
  limited: 'The limits are saved. Purchases are checked against them from now on.',
};

interface BlockValues {
  value: string;
  reason: string;
}

interface LimitsValues {
  perDayCount: string;
  perDayNaira: string;
  duplicateGuard: boolean;
}

/** Spaces as a person types a number ("0803 123 4567") are not part of it; every other character is the core's to judge. */
const typedNumber = (text: string) => text.replace(/\s+/g, '');
const typedCode = (ctx: SignedInContext) => (ctx.form.get('totp_code') ?? '').replace(/\s+/g, '');

function controlsOf(ctx: SignedInContext): Promise<GetRecipientControlsResponse> {
  return ctx.core.holder.getRecipientControls({ sessionToken: ctx.sessionToken });
}

function limitsSummary(controls: GetRecipientControlsResponse): SafeHtml {
  const count = controls.perDayCount === 0 ? 'No limit' : `At most ${controls.perDayCount}`;
  const kobo = controls.perDayKobo === 0n ? 'No limit' : `At most ${naira(controls.perDayKobo)}`;
  return html`<dl class="summary-list">
  <div><dt>Purchases per number a day</dt><dd>${count}</dd></div>
  <div><dt>Charged per number a day</dt><dd>${kobo}</dd></div>
  <div><dt>Duplicate guard</dt><dd>${
    controls.duplicateGuard
      ? `On: the same purchase again within ${controls.duplicateWindowSeconds} seconds needs a new request_id`
      : 'Off'
  }</dd></div>
</dl>`;
}

function blockRow(ctx: SignedInContext, block: RecipientBlock): SafeHtml {
  return html`<tr>
  <th scope="row" data-label="Number"><code>${block.value}</code></th>
  <td data-label="Why">${block.reason || html`<span class="hint">No reason given</span>`}</td>
  <td data-label="Blocked by">${block.blockedBy.replace(/^owner:/, '')}</td>
  <td data-label="Since"><time datetime="${isoTime(block.createdAt)}">${lagosTime(block.createdAt)}</time></td>
  <td class="table__actions">${
    isOwner(ctx.viewer)
      ? html`<a href="${PATH}/unblock?value=${encodeURIComponent(block.value)}" class="danger-link">Unblock<span \
class="visually-hidden"> ${block.value}</span></a>`
      : ''
  }</td>
</tr>`;
}

function blockForm(ctx: SignedInContext, values: BlockValues, errors: readonly FieldError[]): SafeHtml {
  return html`<h2>Block a number</h2>
<form method="post" action="${PATH}" novalidate>
  ${formFields(ctx.viewer)}
  ${field({
    name: 'value',
    label: 'Phone, meter or smart-card number',
    hint: 'As your purchases send it: 6 to 20 digits, for example 08031234567.',
    value: values.value,
    inputmode: 'numeric',
    autocomplete: 'off',
    errors,
  })}
  ${field({
    name: 'reason',
    label: 'Why (optional)',
    hint: 'For your team: at most 200 characters. The buyer is never told.',
    value: values.reason,
    errors,
  })}
  <button type="submit" class="button button--warning">Block this number</button>
</form>`;
}

async function recipientsPage(
  ctx: SignedInContext,
  extra: { values?: BlockValues; errors?: FieldError[]; notice?: string } = {},
): Promise<Answer> {
  const viewer = ctx.viewer;
  const controls = await controlsOf(ctx);
  const errors = extra.errors ?? [];
  const owner = isOwner(viewer);
  const body = html`<h1>Recipients</h1>
<p>Limit what this account's purchases can send to one phone, meter or smart card, from the API and from this \
site, in live and test mode (each mode counts its own purchases). A refused purchase is answered before any money moves: 422 \
<code>RECIPIENT_BLOCKED</code> for a blocked number, 422 <code>RECIPIENT_LIMIT</code> past a limit.</p>
<h2>Limits per number</h2>
${limitsSummary(controls)}
${owner ? html`<p><a href="${PATH}/limits">Change the limits</a></p>` : ''}
${owner ? blockForm(ctx, extra.values ?? { value: '', reason: '' }, errors) : ''}
<h2>Blocked numbers</h2>
${
  controls.blocks.length === 0
    ? empty('This account has blocked no number.')
    : html`<div class="table-wrap" role="region" aria-label="Blocked numbers" tabindex="0"><table \
class="table table--cards">
<caption class="visually-hidden">Blocked numbers</caption>
<thead><tr><th scope="col">Number</th><th scope="col">Why</th><th scope="col">Blocked by</th><th \
scope="col">Since</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${controls.blocks.map((block) => blockRow(ctx, block))}</tbody>
</table></div>`
}
${
  owner
    ? ''
    : html`<p class="inset">You are a viewer on this account: you can see its controls, but only an owner can \
change them.</p>`
}`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page(
      { title: 'Recipients', current: PATH, viewer, errors, ...(extra.notice ? { notice: extra.notice } : {}) },
      body,
    ),
  };
}

function unblockForm(ctx: SignedInContext, value: string, errors: FieldError[]): Answer {
  const viewer = ctx.viewer;
  const body = html`<h1>Unblock <code class="break">${value}</code>?</h1>
<div class="warning"><p>Purchases of this account to this number will be taken again. You can block it again at \
any time.</p></div>
<form method="post" action="${PATH}/unblock" novalidate>
  ${formFields(viewer)}
  <input type="hidden" name="value" value="${value}">
  ${totpField(ctx, errors, 'lifting a block')}
  <div class="button-group">
    <button type="submit" class="button button--warning">Yes, unblock this number</button>
    <a href="${PATH}" class="link-button">No, keep it blocked</a>
  </div>
</form>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Unblock a number', current: PATH, viewer, errors }, body),
  };
}

function limitsForm(
  ctx: SignedInContext,
  values: LimitsValues,
  windowSeconds: number,
  errors: readonly FieldError[],
): Answer {
  const viewer = ctx.viewer;
  const body = html`<h1>Limits per number</h1>
<p>How much this account's purchases may send to any one phone, meter or smart card in a day, midnight to \
midnight in Lagos. A refunded purchase gives its count and amount back to the day.</p>
<form method="post" action="${PATH}/limits" novalidate>
  ${formFields(viewer)}
  ${field({
    name: 'per_day_count',
    label: 'Most purchases to one number in a day (optional)',
    hint: 'A whole number. Empty or 0: no limit.',
    value: values.perDayCount,
    inputmode: 'numeric',
    width: 'input--short',
    errors,
  })}
  ${field({
    name: 'per_day_naira',
    label: 'Most charged for one number in a day, in Naira (optional)',
    hint: 'Empty or 0: no limit.',
    value: values.perDayNaira,
    width: 'input--short',
    errors,
  })}
  <div class="form-group checkbox">
    <input type="checkbox" id="duplicate_guard" name="duplicate_guard" value="on" aria-describedby="duplicate_guard-hint"${
      values.duplicateGuard ? html` checked` : ''
    }>
    <label for="duplicate_guard">Refuse the same purchase sent twice</label>
    <p class="hint" id="duplicate_guard-hint">The same product, number and amount again within ${windowSeconds} \
seconds is refused (409 <code>DUPLICATE_PURCHASE</code>) unless it has a new <code>request_id</code>.</p>
  </div>
  ${totpField(ctx, errors, 'a change of limits')}
  <div class="button-group">
    <button type="submit" class="button">Save limits</button>
    <a href="${PATH}" class="link-button">Cancel</a>
  </div>
</form>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Limits per number', current: PATH, viewer, errors }, body),
  };
}

async function block(ctx: SignedInContext): Promise<Answer> {
  const values = { value: ctx.form.get('value') ?? '', reason: ctx.form.get('reason') ?? '' };
  try {
    await ctx.core.holder.blockRecipient({
      sessionToken: ctx.sessionToken,
      formAccountId: ctx.formAccountId,
      value: typedNumber(values.value),
      reason: values.reason,
    });
    return { kind: 'redirect', location: `${PATH}?done=blocked` };
  } catch (error) {
    return recipientsPage(ctx, { values, errors: refusalErrors(error, ['value', 'reason'], 'value') });
  }
}

async function unblock(ctx: SignedInContext): Promise<Answer> {
  const value = ctx.form.get('value') ?? '';
  try {
    const { removed } = await ctx.core.holder.unblockRecipient({
      sessionToken: ctx.sessionToken,
      formAccountId: ctx.formAccountId,
      value,
      totpCode: typedCode(ctx),
    });
    return { kind: 'redirect', location: `${PATH}?done=${removed ? 'unblocked' : 'absent'}` };
  } catch (error) {
    const errors = refusalErrors(error, ['totp_code', 'value'], 'totp_code');
    // A value that is not a number at all (an edited address) has nothing to confirm: back to the list.
    if (errors.some((e) => e.field === 'value')) return recipientsPage(ctx, { errors });
    return unblockForm(ctx, value, errors);
  }
}

/** A typed count: empty is 0 (no limit); anything but digits is sent as -1, which the core refuses with its own sentence. */
function countOf(text: string): number {
  const trimmed = text.trim();
  if (trimmed === '') return 0;
  return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : -1;
}

async function saveLimits(ctx: SignedInContext): Promise<Answer> {
  const values: LimitsValues = {
    perDayCount: ctx.form.get('per_day_count') ?? '',
    perDayNaira: ctx.form.get('per_day_naira') ?? '',
    duplicateGuard: ctx.form.get('duplicate_guard') === 'on',
  };
  const perDayKobo = values.perDayNaira.trim() === '' ? 0n : koboOfInput(values.perDayNaira);
  let errors: FieldError[] = [];
  if (perDayKobo === undefined)
    errors = [{ field: 'per_day_naira', message: 'Enter the limit in Naira, for example 5000, or leave it empty.' }];
  else {
    try {
      await ctx.core.holder.setRecipientLimits({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        perDayCount: countOf(values.perDayCount),
        perDayKobo,
        duplicateGuard: values.duplicateGuard,
        totpCode: typedCode(ctx),
      });
      return { kind: 'redirect', location: `${PATH}?done=limited` };
    } catch (error) {
      errors = refusalErrors(error, ['per_day_count', 'per_day_naira', 'totp_code'], 'per_day_count');
    }
  }
  return limitsForm(ctx, values, (await controlsOf(ctx)).duplicateWindowSeconds, errors);
}

export const recipientRoutes: Route[] = [
  {
    method: 'GET',
    path: PATH,
    name: 'recipients',
    signedIn: true,
    handler: (ctx) => {
      const notice = NOTICES[ctx.url.searchParams.get('done') ?? ''];
      return recipientsPage(ctx, notice ? { notice } : {});
    },
  },
  { method: 'POST', path: PATH, name: 'recipients_block', signedIn: true, handler: block },
  {
    method: 'GET',
    path: `${PATH}/unblock`,
    name: 'recipients_unblock',
    signedIn: true,
    async handler(ctx) {
      const value = ctx.url.searchParams.get('value') ?? '';
      const listed = (await controlsOf(ctx)).blocks.some((b) => b.value === value);
      if (!listed) return { kind: 'redirect', location: `${PATH}?done=absent` };
      return unblockForm(ctx, value, []);
    },
  },
  { method: 'POST', path: `${PATH}/unblock`, name: 'recipients_unblock', signedIn: true, handler: unblock },
  {
    method: 'GET',
    path: `${PATH}/limits`,
    name: 'recipients_limits',
    signedIn: true,
    async handler(ctx) {
      const controls = await controlsOf(ctx);
      const values = {
        perDayCount: controls.perDayCount === 0 ? '' : String(controls.perDayCount),
        perDayNaira: nairaValue(controls.perDayKobo),
        duplicateGuard: controls.duplicateGuard,
      };
      return limitsForm(ctx, values, controls.duplicateWindowSeconds, []);
    },
  },
  { method: 'POST', path: `${PATH}/limits`, name: 'recipients_limits', signedIn: true, handler: saveLimits },
];
