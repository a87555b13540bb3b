/**
 * API keys: the account's key pairs; for owners, creating one (post/redirect/get: the POST
 * makes the key and the dashboard holds its secret for one showing on the page it redirects
 * to, once.ts; the secret is shown there once with a copy button, never in a URL, and a reload
 * neither shows it again nor makes another key), revoking one after
 * a confirmation page, and setting or clearing its IP lock. Viewers see the list without the
 * buttons, and the core refuses their POSTs all the same (PERMISSION_DENIED -> a 403 page).
 * The address list is checked by the core, by the same rule as the operator's.
 *
 * Under /test the same pages list and make test key pairs (pk_test_/sk_test_), which spend the
 * test wallet only; live and test keys are never listed together.
 *
 * On a phone the table's rows become cards (each cell labelled by its column, from data-label),
 * so the last column is never cut off.
 */
import { ApiAccessStatus } from '../../gen/prepaid/v1/access_pb.js';
import type { HolderApiKey } from '../../gen/prepaid/v1/holder_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { coreMode } from '../core-client.js';
import { isoTime, lagosTime, naira } from '../format.js';
import {
  confirmPage,
  empty,
  type FieldError,
  field,
  formFields,
  isOwner,
  page,
  secretBox,
  type Viewer,
} from '../layout.js';
import { newKeyPairs } from '../once.js';
import type { Answer, Route, SignedInContext } from '../route.js';

const NOTICES: Readonly<Record<string, string>> = {
  revoked: 'The key is revoked. Requests signed with it are now refused.',
  locked: 'The IP lock is saved. Requests with this key from any other address are now refused.',
  unlocked: 'The IP lock is cleared. Requests with this key are taken from any address.',
  approved: 'Your account now has API access. Here is its first key pair.',
  requested: 'Your request for API access is sent. We will look at it soon; this page shows when it is approved.',
  limited: 'The limits are saved. Requests with this key are checked against them from now on.',
  unfrozen: 'The key is unfrozen. Requests with it are taken again.',
  shown:
    'The new key pair is listed below. Its secret key was shown once and is not shown again; if it was not ' +
    'copied, revoke the key and create another.',
};

/** A rolled pair past its grace period works no more, as a revoked one. */
export function ended(key: HolderApiKey): boolean {
  return key.revoked || (key.expiresAt !== undefined && Number(key.expiresAt.seconds) * 1000 <= Date.now());
}

function scopesText(key: HolderApiKey): string {
  const scopes = key.limits?.scopes ?? [];
  return scopes.length === 0 || scopes.includes('all') ? 'Everything' : scopes.join(', ');
}

function capsText(key: HolderApiKey): SafeHtml {
  const perPurchase = key.limits?.capPerPurchaseKobo ?? 0n;
  const perDay = key.limits?.capPerDayKobo ?? 0n;
  if (perPurchase === 0n && perDay === 0n) return html`None`;
  return html`<ul class="plain-list">${perPurchase > 0n ? html`<li>${naira(perPurchase)} a purchase</li>` : ''}${
    perDay > 0n ? html`<li>${naira(perDay)} a day</li>` : ''
  }</ul>`;
}

function keyRow(ctx: SignedInContext, viewer: Viewer, key: HolderApiKey): SafeHtml {
  const owner = isOwner(viewer) && !ended(key);
  return html`<tr>
  <th scope="row" data-label="Public key"><code>${key.publicKey}</code></th>
  <td data-label="State">${
    key.revoked
      ? html`<strong class="tag tag--grey">Revoked</strong>`
      : ended(key)
        ? html`<strong class="tag tag--grey">Ended</strong>`
        : key.frozenAt
          ? html`<strong class="tag tag--red">Frozen</strong> <span class="hint">since <time \
datetime="${isoTime(key.frozenAt)}">${lagosTime(key.frozenAt)}</time>: ${key.frozenReason}</span>`
          : key.expiresAt
            ? html`<strong class="tag tag--yellow">Rolled</strong> <span class="hint">works until <time \
datetime="${isoTime(key.expiresAt)}">${lagosTime(key.expiresAt)}</time></span>`
            : html`<strong class="tag tag--green">Active</strong>`
  }</td>
  <td data-label="Created"><time datetime="${isoTime(key.createdAt)}">${lagosTime(key.createdAt)}</time></td>
  <td data-label="Last used">${
    key.lastUsedAt
      ? html`<time \
datetime="${isoTime(key.lastUsedAt)}">${lagosTime(key.lastUsedAt)}</time>`
      : 'Never'
  }</td>
  <td data-label="IP lock">${
    key.allowedIps.length === 0
      ? 'Any address'
      : html`<ul class="plain-list">${key.allowedIps.map((ip) => html`<li><code>${ip}</code></li>`)}</ul>`
  }</td>
  <td data-label="Scopes">${scopesText(key)}</td>
  <td data-label="Caps">${capsText(key)}</td>
  <td data-label="Spent today">${
    (key.limits?.capPerDayKobo ?? 0n) > 0n ? naira(key.spentTodayKobo) : html`<span class="hint">Not counted</span>`
  }</td>
  <td class="table__actions">${
    owner
      ? html`<ul class="actions">${
          key.frozenAt
            ? html`
      <li><a href="${ctx.link(`/keys/unfreeze?key=${encodeURIComponent(key.publicKey)}`)}">Unfreeze<span \
class="visually-hidden"> ${key.publicKey}</span></a></li>`
            : ''
        }
      <li><a href="${ctx.link(`/keys/limits?key=${encodeURIComponent(key.publicKey)}`)}">Change limits<span \
class="visually-hidden"> of ${key.publicKey}</span></a></li>
      <li><a href="${ctx.link(`/keys/roll?key=${encodeURIComponent(key.publicKey)}`)}">Roll<span \
class="visually-hidden"> ${key.publicKey}</span></a></li>
      <li><a href="${ctx.link(`/keys/ip-lock?key=${encodeURIComponent(key.publicKey)}`)}">Change IP lock<span \
class="visually-hidden"> of ${key.publicKey}</span></a></li>
      <li><a href="${ctx.link(`/keys/revoke?key=${encodeURIComponent(key.publicKey)}`)}" \
class="danger-link">Revoke<span class="visually-hidden"> ${key.publicKey}</span></a></li>
    </ul>`
      : ''
  }</td>
</tr>`;
}

async function keysPage(
  ctx: SignedInContext,
  extra: { created?: { publicKey: string; secretKey: string }; errors?: FieldError[]; notice?: string } = {},
): Promise<Answer> {
  const viewer = ctx.viewer;
  const { keys } = await ctx.core.holder.listApiKeys({ sessionToken: ctx.sessionToken, mode: coreMode(ctx.mode) });
  const test = ctx.mode === 'test';
  const errors = extra.errors ?? [];
  const totpOn = viewer.session.user?.totpEnabled === true;
  const created = extra.created
    ? html`<div class="panel panel--secret" role="region" aria-labelledby="new-key-title">
  <h2 id="new-key-title">Your new ${test ? 'test ' : ''}key pair</h2>
  <p class="warning"><strong>Copy the secret key now. It will not be shown again.</strong> ${
    test
      ? "Anyone with both keys can spend this account's test money."
      : "Keep it on your server only; anyone with both keys can spend this account's money."
  }</p>
  ${secretBox('Public key', 'new-public-key', extra.created.publicKey)}
  ${secretBox('Secret key', 'new-secret-key', extra.created.secretKey)}
</div>`
    : '';
  const createForm = !viewer.session.apiAccess
    ? await accessPanel(ctx)
    : isOwner(viewer)
      ? html`<h2>Create a ${test ? 'test ' : ''}key pair</h2>
<form method="post" action="${ctx.link('/keys')}" novalidate>
  ${formFields(viewer)}
  ${
    totpOn
      ? field({
          name: 'totp_code',
          label: 'Code from your authenticator app',
          hint: 'Two-step sign-in is on, so a new key needs a current code.',
          inputmode: 'numeric',
          autocomplete: 'one-time-code',
          width: 'input--short',
          errors,
        })
      : ''
  }
  <button type="submit" class="button">Create a ${test ? 'test ' : ''}key pair</button>
</form>`
      : html`<p class="inset">You are a viewer on this account: you can see its keys, but only an owner can \
create, lock or revoke them.</p>`;
  const body = html`<h1>${test ? 'Test API keys' : 'API keys'}</h1>
${created}
${
  test
    ? html`<p>Test key pairs start with <code>pk_test_</code> and <code>sk_test_</code>. Requests made with \
them run exactly as live ones, but spend your test balance only and are always answered by the sandbox: \
nothing is sent to a network or a biller. <a href="/test/funds">Add test funds</a>.</p>`
    : html`<p>Every request to the API carries a public key and its secret key. A key can be locked to the \
addresses of your servers. Test key pairs are in <a href="/test/keys">test mode</a>.</p>`
}
${
  viewer.session.apiAccess
    ? html`<p>Software written for another VTU site's API (MSORG, Adex or VTpass shapes) buys with a \
<a href="${ctx.link('/keys/compat')}">compatible token</a> bound to one of these key pairs.</p>`
    : ''
}
${
  keys.length === 0
    ? empty(test ? 'This account has no test keys yet.' : 'This account has no keys yet.')
    : html`<div class="table-wrap" role="region" aria-label="Key pairs" tabindex="0"><table class="table table--cards">
<caption class="visually-hidden">${test ? 'Test key pairs' : 'Key pairs'}</caption>
<thead><tr><th scope="col">Public key</th><th scope="col">State</th><th scope="col">Created</th><th \
scope="col">Last used</th><th scope="col">IP lock</th><th scope="col">Scopes</th><th scope="col">Caps</th><th \
scope="col">Spent today</th><th scope="col"><span \
class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${keys.map((key) => keyRow(ctx, viewer, key))}</tbody>
</table></div>`
}
${createForm}`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page(
      {
        title: test ? 'Test API keys' : 'API keys',
        current: '/keys',
        viewer,
        errors,
        ...(extra.notice ? { notice: extra.notice } : {}),
      },
      body,
    ),
  };
}

/**
 * For an account whose tier has no API access: what that means in plain words, where its
 * request stands, and (for an owner) the form that asks for access.
 */
async function accessPanel(ctx: SignedInContext): Promise<SafeHtml> {
  const viewer = ctx.viewer;
  const { request } = await ctx.core.access.getApiAccessRequest({ sessionToken: ctx.sessionToken });
  const intro = html`<h2>Use the API</h2>
<p>Your account can sell from this site: see <a href="${ctx.link('/buy')}">Buy</a>. To sell from your own \
website or app through the API, your account needs API access. Ask for it here; once it is approved, your \
first key pair appears on this page.</p>`;
  if (request?.status === ApiAccessStatus.PENDING) {
    return html`${intro}<p class="inset" role="status">You asked for API access on \
${lagosTime(request.createdAt)}. The request is waiting for approval.</p>`;
  }
  const refused =
    request?.status === ApiAccessStatus.REFUSED
      ? html`<p class="inset">Your request of ${lagosTime(request.createdAt)} was not approved. You may ask \
again; say a little more about what you will build.</p>`
      : '';
  if (!isOwner(viewer))
    return html`${intro}${refused}<p class="inset">Only an owner of the account can ask for API access.</p>`;
  return html`${intro}${refused}
<form method="post" action="${ctx.link('/keys/request-access')}" novalidate>
  ${formFields(viewer)}
  <div class="form-group">
    <label class="label" for="note">What will you build with the API? (optional)</label>
    <p class="hint" id="note-hint">For example: "our shop's website sells airtime and data". At most 500 characters.</p>
    <textarea class="textarea" id="note" name="note" rows="3" aria-describedby="note-hint"></textarea>
  </div>
  <button type="submit" class="button">Ask for API access</button>
</form>`;
}

/**
 * After an approval of API access, the account's first live key pair, issued to the first
 * owner who opens the keys page or the overview and held for its one showing; undefined when
 * there is none to show (the core hands it out once).
 */
export async function firstKeyRedirect(ctx: SignedInContext): Promise<Answer | undefined> {
  const viewer = ctx.viewer;
  if (ctx.mode !== 'live' || !viewer.session.apiAccess || !isOwner(viewer)) return undefined;
  const { issuedKey } = await ctx.core.access.claimFirstKey({
    sessionToken: ctx.sessionToken,
    formAccountId: ctx.formAccountId,
  });
  if (issuedKey === undefined) return undefined;
  const handle = newKeyPairs.put(ctx.sessionToken, { publicKey: issuedKey.publicKey, secretKey: issuedKey.secretKey });
  return { kind: 'redirect', location: `/keys?created=${handle}&first=1` };
}

/** The key named in the address, if it is one of this account's (the core's list says). */
export async function findKey(ctx: SignedInContext, publicKey: string): Promise<HolderApiKey | undefined> {
  const { keys } = await ctx.core.holder.listApiKeys({ sessionToken: ctx.sessionToken, mode: coreMode(ctx.mode) });
  return keys.find((key) => key.publicKey === publicKey);
}

export function notFound(ctx: SignedInContext): Answer {
  return {
    kind: 'page',
    status: 404,
    body: page(
      { title: 'Key not found', current: '/keys', viewer: ctx.viewer },
      html`<h1>Key not found</h1><p>This account has no such key. <a href="${ctx.link('/keys')}">Back to API \
keys</a></p>`,
    ),
  };
}

function ipLockForm(ctx: SignedInContext, key: HolderApiKey, value: string, errors: FieldError[]): Answer {
  const viewer = ctx.viewer;
  const body = html`<h1>IP lock of <code class="break">${key.publicKey}</code></h1>
<p>Requests with this key are taken only from these addresses. Leave the box empty to take requests from any \
address.</p>
<form method="post" action="${ctx.link('/keys/ip-lock')}" novalidate>
  ${formFields(viewer)}
  <input type="hidden" name="key" value="${key.publicKey}">
  ${field({
    name: 'allowed_ips',
    label: 'Allowed addresses',
    hint: 'IPv4 or IPv6 addresses, separated by commas or spaces, for example 203.0.113.7, 2001:db8::1',
    value,
    errors,
  })}
  <div class="button-group">
    <button type="submit" class="button">Save IP lock</button>
    <a href="${ctx.link('/keys')}" class="link-button">Cancel</a>
  </div>
</form>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'IP lock', current: '/keys', viewer, errors }, body),
  };
}

export const keyRoutes: Route[] = [
  {
    method: 'GET',
    path: '/keys',
    name: 'keys',
    signedIn: true,
    testMode: true,
    handler: async (ctx) => {
      const first = await firstKeyRedirect(ctx);
      if (first !== undefined) return first;
      const handle = ctx.url.searchParams.get('created');
      if (handle !== null) {
        const created = newKeyPairs.take(ctx.sessionToken, handle);
        // Shown once: a reload of this address finds nothing and says so.
        const approved = ctx.url.searchParams.get('first') === '1' ? { notice: NOTICES.approved ?? '' } : {};
        return keysPage(ctx, created ? { created, ...approved } : { notice: NOTICES.shown ?? '' });
      }
      const notice = NOTICES[ctx.url.searchParams.get('done') ?? ''];
      return keysPage(ctx, notice ? { notice } : {});
    },
  },
  {
    method: 'POST',
    path: '/keys',
    name: 'keys_create',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      try {
        const created = await ctx.core.holder.createApiKey({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          totpCode: (ctx.form.get('totp_code') ?? '').replace(/\s+/g, ''),
          mode: coreMode(ctx.mode),
        });
        const issued = created.issuedKey;
        if (issued === undefined) throw new Error('CreateApiKey answered without a key');
        // Held for one showing on the page the browser is sent to; the address carries a handle
        // bound to this session, never the secret, and every page is no-store.
        const handle = newKeyPairs.put(ctx.sessionToken, { publicKey: issued.publicKey, secretKey: issued.secretKey });
        return { kind: 'redirect', location: ctx.link(`/keys?created=${handle}`) };
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind === 'invalid' || refusal.kind === 'refused')
          return keysPage(ctx, {
            errors: [{ field: 'totp_code', message: refusal.fields.get('totp_code') ?? refusal.message }],
          });
        throw error;
      }
    },
  },
  {
    method: 'POST',
    path: '/keys/request-access',
    name: 'keys_request_access',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      try {
        await ctx.core.access.requestApiAccess({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          note: ctx.form.get('note') ?? '',
        });
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind !== 'invalid') throw error;
        return keysPage(ctx, { errors: [{ field: 'note', message: refusal.fields.get('note') ?? refusal.message }] });
      }
      return { kind: 'redirect', location: ctx.link('/keys?done=requested') };
    },
  },
  {
    method: 'GET',
    path: '/keys/revoke',
    name: 'keys_revoke',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const viewer = ctx.viewer;
      const key = await findKey(ctx, ctx.url.searchParams.get('key') ?? '');
      if (key === undefined || key.revoked) return notFound(ctx);
      const body = confirmPage({
        viewer,
        title: 'Revoke a key',
        current: '/keys',
        question: html`Revoke <code class="break">${key.publicKey}</code>?`,
        warning:
          'Every request signed with this key will be refused from now on. This cannot be undone; a new key ' +
          'pair can be created instead.',
        action: ctx.link('/keys/revoke'),
        hidden: { key: key.publicKey },
        confirm: 'Revoke this key for good?',
        yes: 'Yes, revoke this key',
        no: { label: 'No, keep it', href: ctx.link('/keys') },
      });
      return { kind: 'page', body };
    },
  },
  {
    method: 'POST',
    path: '/keys/revoke',
    name: 'keys_revoke',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      await ctx.core.holder.revokeApiKey({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        publicKey: ctx.form.get('key') ?? '',
      });
      return { kind: 'redirect', location: ctx.link('/keys?done=revoked') };
    },
  },
  {
    method: 'GET',
    path: '/keys/ip-lock',
    name: 'keys_ip_lock',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const key = await findKey(ctx, ctx.url.searchParams.get('key') ?? '');
      if (key === undefined || ended(key)) return notFound(ctx);
      return ipLockForm(ctx, key, key.allowedIps.join(', '), []);
    },
  },
  {
    method: 'POST',
    path: '/keys/ip-lock',
    name: 'keys_ip_lock',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const publicKey = ctx.form.get('key') ?? '';
      const value = ctx.form.get('allowed_ips') ?? '';
      const allowedIps = value.split(/[\s,]+/).filter((ip) => ip !== '');
      try {
        await ctx.core.holder.setApiKeyIpLock({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          publicKey,
          allowedIps,
        });
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind !== 'invalid') throw error;
        const key = await findKey(ctx, publicKey);
        if (key === undefined) return notFound(ctx);
        const message = [...refusal.fields.values()][0] ?? refusal.message;
        return ipLockForm(ctx, key, value, [{ field: 'allowed_ips', message }]);
      }
      return { kind: 'redirect', location: ctx.link(`/keys?done=${allowedIps.length === 0 ? 'unlocked' : 'locked'}`) };
    },
  },
];
