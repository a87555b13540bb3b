/**
 * Compatible tokens (docs/compat.md): for reseller software written for another site's API
 * shape, a token of that dialect bound to one of the account's key pairs, whose mode, IP lock,
 * scopes and caps it inherits. Owners make one (post/redirect/get as key pairs: the token is held
 * for one showing, once.ts, never put in a URL) and revoke one after a confirmation page; anyone
 * signed in sees the list and the account's plan aliases (which the operator sets). The core
 * decides who may and checks every field; its refusals are shown beside the fields.
 */
import { AVAILABLE_DIALECTS, type Dialect, IN_FLIGHT_WORDS } from '../../core/domain/compat.js';
import type { CompatToken, PlanAlias } from '../../gen/prepaid/v1/admin_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { coreMode } from '../core-client.js';
import { isoTime, lagosTime } from '../format.js';
import { confirmPage, empty, type FieldError, formFields, isOwner, page, secretBox, select } from '../layout.js';
import { OnceBox } from '../once.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { refusalErrors, totpField } from './key-limits.js';
import { ended } from './keys.js';

/** A token made, held for its one showing on the page the browser is sent to. */
const newTokens = new OnceBox<{ token: string; dialect: string }>();

const DIALECT_NAMES: Readonly<Record<Dialect, string>> = {
  msorg: 'MSORG (Django VTU sites: Authorization: Token)',
  adex: 'Adex (PHP VTU sites: Basic login, AccessToken)',
  vtpass: 'VTpass (api-key, public-key, secret-key)',
};

const IN_FLIGHT_HINTS: Readonly<Record<string, string>> = {
  pending: 'pending (for software that refunds on "processing")',
  processing: 'processing (for software that refunds on "pending")',
};

const NOTICES: Readonly<Record<string, string>> = {
  revoked: 'The token is revoked. Requests with it are now refused.',
  shown:
    'The new token is listed below. It was shown once and is not shown again; if it was not copied, revoke it and make another.',
};

const FIELDS = ['public_key', 'dialect', 'in_flight', 'totp_code'];

interface FormValues {
  publicKey: string;
  dialect: string;
  inFlight: string;
}

/** The token as its software is set up with it: VTpass's three keys each in its own box, else the one token. */
function createdSecrets(created: { token: string; dialect: string }): SafeHtml {
  const parts = created.token.split(':');
  if (created.dialect !== 'vtpass' || parts.length !== 3) return secretBox('Token', 'new-compat-token', created.token);
  return html`${secretBox('api-key', 'new-vtpass-api-key', parts[0]!)}
  ${secretBox('public-key', 'new-vtpass-public-key', parts[1]!)}
  ${secretBox('secret-key', 'new-vtpass-secret-key', parts[2]!)}`;
}

function tokenRow(ctx: SignedInContext, token: CompatToken): SafeHtml {
  const revoked = token.revokedAt !== undefined;
  return html`<tr>
  <th scope="row" data-label="Dialect">${token.dialect}</th>
  <td data-label="Key pair"><code>${token.publicKey}</code></td>
  <td data-label="Ends with"><code>…${token.lastFour}</code></td>
  <td data-label="In flight">${token.inFlight}</td>
  <td data-label="Created"><time datetime="${isoTime(token.createdAt)}">${lagosTime(token.createdAt)}</time></td>
  <td data-label="State">${
    revoked
      ? html`<strong class="tag tag--grey">Revoked</strong>`
      : html`<strong class="tag tag--green">Active</strong>`
  }</td>
  <td class="table__actions">${
    !revoked && isOwner(ctx.viewer)
      ? html`<a href="${ctx.link(`/keys/compat/revoke?token=${encodeURIComponent(token.tokenId)}`)}" \
class="danger-link">Revoke<span class="visually-hidden"> the ${token.dialect} token ending ${token.lastFour}</span></a>`
      : ''
  }</td>
</tr>`;
}

function aliasTable(aliases: readonly PlanAlias[]): SafeHtml {
  if (aliases.length === 0)
    return html`<p>No plan aliases: the dialects take the plan ids of <code>action=plans</code>. If your software \
already sends another site's plan ids, ask us to map them to ours.</p>`;
  return html`<div class="table-wrap" role="region" aria-label="Plan aliases" tabindex="0"><table class="table table--cards">
<caption class="visually-hidden">Plan aliases</caption>
<thead><tr><th scope="col">Dialect</th><th scope="col">Plan id your software sends</th><th scope="col">Our \
plan</th></tr></thead>
<tbody>${aliases.map(
    (alias) =>
      html`<tr><th scope="row" data-label="Dialect">${alias.dialect}</th><td data-label="Sent"><code>${
        alias.aliasId
      }</code></td><td data-label="Our plan">${String(alias.planId)}</td></tr>`,
  )}</tbody>
</table></div>`;
}

async function createForm(ctx: SignedInContext, values: FormValues, errors: FieldError[]): Promise<SafeHtml> {
  const viewer = ctx.viewer;
  if (!viewer.session.apiAccess)
    return html`<p class="inset">Compatible tokens are for accounts with API access: see <a \
href="${ctx.link('/keys')}">API keys</a>.</p>`;
  if (!isOwner(viewer)) return html`<p class="inset">Only an owner of the account can make or revoke tokens.</p>`;
  const { keys } = await ctx.core.holder.listApiKeys({ sessionToken: ctx.sessionToken, mode: coreMode(ctx.mode) });
  const usable = keys.filter((key) => !ended(key));
  if (usable.length === 0)
    return html`<p class="inset">A token is bound to a key pair: <a href="${ctx.link('/keys')}">create a key \
pair</a> first.</p>`;
  return html`<h2>Make a token</h2>
<form method="post" action="${ctx.link('/keys/compat')}" novalidate>
  ${formFields(viewer)}
  ${select({
    name: 'public_key',
    label: 'Key pair it acts as',
    options: usable.map((key) => [key.publicKey, key.publicKey] as const),
    value: values.publicKey,
    errors,
  })}
  ${select({
    name: 'dialect',
    label: 'Your software speaks',
    options: AVAILABLE_DIALECTS.map((dialect) => [dialect, DIALECT_NAMES[dialect]] as const),
    value: values.dialect,
    errors,
  })}
  ${select({
    name: 'in_flight',
    label: 'A purchase still in flight after the wait is answered',
    options: IN_FLIGHT_WORDS.map((word) => [word, IN_FLIGHT_HINTS[word] ?? word] as const),
    value: values.inFlight,
    errors,
  })}
  ${totpField(ctx, errors, 'a new token')}
  <button type="submit" class="button">Make a token</button>
</form>`;
}

async function compatPage(
  ctx: SignedInContext,
  extra: {
    created?: { token: string; dialect: string };
    errors?: FieldError[];
    values?: FormValues;
    notice?: string;
  } = {},
): Promise<Answer> {
  const viewer = ctx.viewer;
  const errors = extra.errors ?? [];
  const { tokens, aliases } = await ctx.core.holder.listCompatTokens({
    sessionToken: ctx.sessionToken,
    mode: coreMode(ctx.mode),
  });
  const created = extra.created
    ? html`<div class="panel panel--secret" role="region" aria-labelledby="new-token-title">
  <h2 id="new-token-title">Your new ${extra.created.dialect} token</h2>
  <p class="warning"><strong>Copy the token now. It will not be shown again.</strong> Anyone with it can buy \
with the key pair it is bound to.</p>
  ${createdSecrets(extra.created)}
</div>`
    : '';
  const values = extra.values ?? { publicKey: '', dialect: AVAILABLE_DIALECTS[0] ?? 'msorg', inFlight: 'pending' };
  const body = html`<h1>Compatible tokens</h1>
${created}
<p>Reseller software written for another VTU site's API buys from us when its base URL points here and it \
carries one of these tokens. Each token acts as one of your key pairs, with that pair's mode, IP lock, scopes \
and caps. <a href="${ctx.link('/keys')}">Back to API keys</a>.</p>
${
  tokens.length === 0
    ? empty('This account has no compatible tokens yet.')
    : html`<div class="table-wrap" role="region" aria-label="Compatible tokens" tabindex="0"><table class="table table--cards">
<caption class="visually-hidden">Compatible tokens</caption>
<thead><tr><th scope="col">Dialect</th><th scope="col">Key pair</th><th scope="col">Ends with</th><th \
scope="col">In flight</th><th scope="col">Created</th><th scope="col">State</th><th scope="col"><span \
class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${tokens.map((token) => tokenRow(ctx, token))}</tbody>
</table></div>`
}
${await createForm(ctx, values, errors)}
<h2>Plan aliases</h2>
${aliasTable(aliases)}`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page(
      {
        title: 'Compatible tokens',
        current: '/keys',
        viewer,
        errors,
        ...(extra.notice ? { notice: extra.notice } : {}),
      },
      body,
    ),
  };
}

async function findToken(ctx: SignedInContext, tokenId: string): Promise<CompatToken | undefined> {
  const { tokens } = await ctx.core.holder.listCompatTokens({
    sessionToken: ctx.sessionToken,
    mode: coreMode(ctx.mode),
  });
  return tokens.find((token) => token.tokenId === tokenId && token.revokedAt === undefined);
}

function tokenNotFound(ctx: SignedInContext): Answer {
  return {
    kind: 'page',
    status: 404,
    body: page(
      { title: 'Token not found', current: '/keys', viewer: ctx.viewer },
      html`<h1>Token not found</h1><p>This account has no such token. <a href="${ctx.link('/keys/compat')}">Back \
to compatible tokens</a></p>`,
    ),
  };
}

async function create(ctx: SignedInContext): Promise<Answer> {
  const values = {
    publicKey: ctx.form.get('public_key') ?? '',
    dialect: ctx.form.get('dialect') ?? '',
    inFlight: ctx.form.get('in_flight') ?? '',
  };
  try {
    const made = await ctx.core.holder.createCompatToken({
      sessionToken: ctx.sessionToken,
      formAccountId: ctx.formAccountId,
      totpCode: (ctx.form.get('totp_code') ?? '').replace(/\s+/g, ''),
      publicKey: values.publicKey,
      dialect: values.dialect,
      inFlight: values.inFlight,
    });
    const handle = newTokens.put(ctx.sessionToken, { token: made.token, dialect: made.record?.dialect ?? '' });
    return { kind: 'redirect', location: ctx.link(`/keys/compat?created=${handle}`) };
  } catch (error) {
    const errors = refusalErrors(error, FIELDS, 'public_key');
    return compatPage(ctx, { errors, values });
  }
}

export const compatTokenRoutes: Route[] = [
  {
    method: 'GET',
    path: '/keys/compat',
    name: 'keys_compat',
    signedIn: true,
    testMode: true,
    handler: async (ctx) => {
      const handle = ctx.url.searchParams.get('created');
      if (handle !== null) {
        const created = newTokens.take(ctx.sessionToken, handle);
        // Shown once: a reload of this address finds nothing and says so.
        return compatPage(ctx, created ? { created } : { notice: NOTICES.shown ?? '' });
      }
      const notice = NOTICES[ctx.url.searchParams.get('done') ?? ''];
      return compatPage(ctx, notice ? { notice } : {});
    },
  },
  { method: 'POST', path: '/keys/compat', name: 'keys_compat_create', signedIn: true, testMode: true, handler: create },
  {
    method: 'GET',
    path: '/keys/compat/revoke',
    name: 'keys_compat_revoke',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const token = await findToken(ctx, ctx.url.searchParams.get('token') ?? '');
      if (token === undefined) return tokenNotFound(ctx);
      const body = confirmPage({
        viewer: ctx.viewer,
        title: 'Revoke a token',
        current: '/keys',
        question: html`Revoke the ${token.dialect} token ending <code>${token.lastFour}</code>?`,
        warning:
          'Every request with this token will be refused from now on. This cannot be undone; a new token can be ' +
          'made instead.',
        action: ctx.link('/keys/compat/revoke'),
        hidden: { token: token.tokenId },
        confirm: 'Revoke this token for good?',
        yes: 'Yes, revoke this token',
        no: { label: 'No, keep it', href: ctx.link('/keys/compat') },
      });
      return { kind: 'page', body };
    },
  },
  {
    method: 'POST',
    path: '/keys/compat/revoke',
    name: 'keys_compat_revoke',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      await ctx.core.holder.revokeCompatToken({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        tokenId: ctx.form.get('token') ?? '',
      });
      return { kind: 'redirect', location: ctx.link('/keys/compat?done=revoked') };
    },
  },
];
