/**
 * The Verify page's identity level (docs/kyc.md): the account's level and its live wallet's
 * limits, what the next level allows, the request waiting for staff or the last refusal's
 * reason, the credits held over the limits, and the form asking for the next level (a BVN or
 * NIN for level 2, a CAC number and its document for level 3). The number goes to the core once
 * and is never put back into the form; every rule is the core's.
 */
import { heldNotice, type Level, type LevelLimits as Limits } from '../../core/domain/levels.js';
import { formatNaira, type Kobo } from '../../core/domain/money.js';
import type { GetLevelResponse, LevelLimits } from '../../gen/prepaid/v1/kyc_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { type FieldError, field, formFields, isOwner } from '../layout.js';
import type { SignedInContext } from '../route.js';

const limitText = (value: bigint | undefined) =>
  value === undefined ? 'no limit' : `₦${formatNaira(Number(value) as Kobo)}`;

function limitsRows(limits: LevelLimits): SafeHtml {
  return html`<dl class="summary">
  <div><dt>Most the wallet may hold</dt><dd>${limitText(limits.maxBalanceKobo)}</dd></div>
  <div><dt>Most bank transfers may credit in all</dt><dd>${limitText(limits.maxInflowKobo)}</dd></div>
  <div><dt>Most purchases may charge in a day</dt><dd>${limitText(limits.maxDailySpendKobo)}</dd></div>
</dl>`;
}

const toLimits = (limits: LevelLimits): Limits => ({
  level: limits.level as Level,
  maxBalanceKobo: limits.maxBalanceKobo === undefined ? null : (Number(limits.maxBalanceKobo) as Kobo),
  maxInflowKobo: limits.maxInflowKobo === undefined ? null : (Number(limits.maxInflowKobo) as Kobo),
  maxDailySpendKobo: limits.maxDailySpendKobo === undefined ? null : (Number(limits.maxDailySpendKobo) as Kobo),
});

/** What was held, in the one sentence the holder is told ("₦20,000 received, ₦10,000 held: verify ..."). */
function heldPart(state: GetLevelResponse): SafeHtml | '' {
  if (state.held.length === 0 || state.limits === undefined) return '';
  const heldKobo = state.held.reduce((sum, h) => sum + Number(h.amountKobo), 0);
  return html`<div class="warning" role="alert" data-held><p>${heldNotice(
    Number(state.inflowKobo),
    heldKobo,
    state.level as Level,
    toLimits(state.limits),
  )}</p></div>`;
}

function requestForm(ctx: SignedInContext, state: GetLevelResponse, errors: FieldError[]): SafeHtml {
  if (!isOwner(ctx.viewer)) return html`<p>An owner of the account asks for the next level.</p>`;
  if (state.open !== undefined)
    return html`<p data-level-request>Your ${state.open.maskedNumber} is waiting for our staff to check it \
(asked for level ${state.open.level}).</p>`;
  if (state.level >= 3) return html`<p>This is the highest level.</p>`;
  const wantsBusiness = state.level === 2;
  const kindField = wantsBusiness
    ? html`<input type="hidden" name="kind" value="cac">`
    : html`<div class="form-group">
  <fieldset class="fieldset"><legend class="label">Which number</legend>
    <label><input type="radio" name="kind" value="bvn" checked> BVN (Bank Verification Number)</label>
    <label><input type="radio" name="kind" value="nin"> NIN (National Identification Number)</label>
  </fieldset>
</div>`;
  return html`<form method="post" action="/verify/level" novalidate>
  ${formFields(ctx.viewer)}
  ${kindField}
  ${field({
    name: 'number',
    label: wantsBusiness ? 'CAC registration number' : 'The 11 digits of your BVN or NIN',
    hint: wantsBusiness
      ? 'For example RC 1234567 or BN 2345678.'
      : 'Our staff check it against your name. We keep only its last four digits.',
    inputmode: wantsBusiness ? undefined : 'numeric',
    autocomplete: 'off',
    width: 'input--short',
    errors,
  })}
  ${
    wantsBusiness
      ? field({
          name: 'document_reference',
          label: 'Registration document',
          hint: 'The certificate of incorporation or registration as you sent it to us: its name or link.',
          errors,
        })
      : ''
  }
  <button type="submit" class="button">Ask for level ${state.level + 1}</button>
</form>`;
}

/** The Verify page's level section. */
export function levelSection(
  ctx: SignedInContext,
  state: GetLevelResponse,
  errors: FieldError[],
  proven: boolean,
): SafeHtml {
  const refused =
    state.open === undefined && state.last?.status === 'refused'
      ? html`<p class="error-message" data-level-refused>Your last request was refused: ${state.last.note}</p>`
      : '';
  return html`<h2>Identity level</h2>
<p data-level>Your account is at level ${String(state.level)}.</p>
${heldPart(state)}
${state.limits === undefined ? '' : limitsRows(state.limits)}
${
  state.nextLimits === undefined
    ? ''
    : html`<h3>Level ${String(state.nextLimits.level)} allows</h3>
${limitsRows(state.nextLimits)}`
}
${refused}
${
  proven
    ? requestForm(ctx, state, errors)
    : html`<p>Once your email address and mobile number are verified you can \
ask for the next level here.</p>`
}`;
}

export function levelOf(ctx: SignedInContext): Promise<GetLevelResponse> {
  return ctx.core.kyc.getLevel({ sessionToken: ctx.sessionToken });
}

/** The request's form sent: done, back to the page; a bad field or a refusal, its sentence beside the field. */
export async function askForLevel(ctx: SignedInContext): Promise<{ done: true } | { errors: FieldError[] }> {
  try {
    await ctx.core.kyc.requestLevel({
      sessionToken: ctx.sessionToken,
      formAccountId: ctx.formAccountId,
      kind: (ctx.form.get('kind') ?? '').slice(0, 10),
      number: (ctx.form.get('number') ?? '').slice(0, 40),
      documentReference: (ctx.form.get('document_reference') ?? '').slice(0, 200),
    });
    return { done: true };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid' && refusal.kind !== 'refused') throw error;
    const documentError = refusal.fields.get('document_reference');
    return {
      errors: [
        ...(documentError === undefined ? [] : [{ field: 'document_reference', message: documentError }]),
        ...(documentError === undefined || refusal.fields.has('number')
          ? [{ field: 'number', message: refusal.fields.get('number') ?? refusal.message }]
          : []),
      ],
    };
  }
}
