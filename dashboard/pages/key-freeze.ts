/**
 * Unfreezing a key, for owners: a key the velocity brake (or the platform) froze answers every
 * call 403 KEY_FROZEN until an owner says here that its purchases were theirs. The core decides
 * who may (owners only) and asks for a current two-step code when it is on, as a roll does; a
 * secret that may have leaked is better rolled or revoked than unfrozen, which the page says.
 */
import type { HolderApiKey } from '../../gen/prepaid/v1/holder_pb.js';
import { html } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { type FieldError, formFields, page } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { refusalErrors, totpField } from './key-limits.js';
import { ended, findKey, notFound } from './keys.js';

function unfreezeForm(ctx: SignedInContext, key: HolderApiKey, errors: FieldError[]): Answer {
  const viewer = ctx.viewer;
  const body = html`<h1>Unfreeze <code class="break">${key.publicKey}</code></h1>
<p>This key was frozen: ${key.frozenReason}. Every request with it is refused until it is unfrozen.</p>
<p>Unfreeze it only if your own systems made these purchases. If they did not, its secret key may have \
leaked: <a href="${ctx.link(`/keys/roll?key=${encodeURIComponent(key.publicKey)}`)}">roll it</a> or revoke it \
instead.</p>
<form method="post" action="${ctx.link('/keys/unfreeze')}" novalidate>
  ${formFields(viewer)}
  <input type="hidden" name="key" value="${key.publicKey}">
  ${totpField(ctx, errors, 'unfreezing a key')}
  <div class="button-group">
    <button type="submit" class="button">Unfreeze this key</button>
    <a href="${ctx.link('/keys')}" class="link-button">Cancel</a>
  </div>
</form>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Unfreeze a key', current: '/keys', viewer, errors }, body),
  };
}

async function unfreeze(ctx: SignedInContext): Promise<Answer> {
  const publicKey = ctx.form.get('key') ?? '';
  let errors: FieldError[];
  try {
    await ctx.core.holder.unfreezeApiKey({
      sessionToken: ctx.sessionToken,
      formAccountId: ctx.formAccountId,
      publicKey,
      totpCode: (ctx.form.get('totp_code') ?? '').replace(/\s+/g, ''),
    });
    return { kind: 'redirect', location: ctx.link('/keys?done=unfrozen') };
  } catch (error) {
    errors = refusalErrors(error, ['totp_code'], 'totp_code');
  }
  const key = await findKey(ctx, publicKey);
  if (key === undefined || ended(key) || key.frozenAt === undefined) return notFound(ctx);
  return unfreezeForm(ctx, key, errors);
}

export const keyFreezeRoutes: Route[] = [
  {
    method: 'GET',
    path: '/keys/unfreeze',
    name: 'keys_unfreeze',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const key = await findKey(ctx, ctx.url.searchParams.get('key') ?? '');
      if (key === undefined || ended(key) || key.frozenAt === undefined) return notFound(ctx);
      return unfreezeForm(ctx, key, []);
    },
  },
  { method: 'POST', path: '/keys/unfreeze', name: 'keys_unfreeze', signedIn: true, testMode: true, handler: unfreeze },
];
