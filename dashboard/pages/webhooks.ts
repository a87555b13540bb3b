/**
 * Webhooks: the endpoint of the page's mode (URL, enabled, the end of the secret, a rotation in
 * progress) and its delivery log, newest first, page by page. The mode lives in the address, as
 * on every page: /webhooks is live, /test/webhooks the test endpoint and its deliveries. Owners
 * set or replace a URL and rotate a secret (the new secret is shown on the answer to that
 * POST, once, with a copy button, never in a URL), disable an endpoint, send a test event and
 * resend one event. Viewers see everything without the buttons, and the core refuses their
 * POSTs all the same. The URL checks, the secrets and the retries are the core's.
 */

import type { Delivery, Webhook } from '../../gen/prepaid/v1/webhooks_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { type CoreRefusal, refusalOf } from '../../web/refusal.js';
import { coreMode } from '../core-client.js';
import { isoTime, lagosTime } from '../format.js';
import { type DashboardMode, empty, type FieldError, formFields, isOwner, page, secretBox } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { signatureSamples } from '../samples.js';

type ModeName = DashboardMode;
const MODE_LABEL: Readonly<Record<ModeName, string>> = { live: 'Live', test: 'Test' };

/**
 * The documentation's section with the whole contract of events and signatures (linked only when
 * DASHBOARD_DOCS_URL is set).
 */
const README_SECTION = 'Webhooks and events';

const NOTICES: Readonly<Record<string, string>> = {
  disabled: 'The webhook is disabled. Events are still recorded; set the URL again to turn deliveries back on.',
  test: 'A test event (type ping) is queued. It shows in the delivery log below.',
  resent: 'The event is queued again and will be delivered in a moment.',
};

/** The core's sentence about a field, as the page says it ("url must ..." -> "The URL must ..."). */
function plainSentence(text: string): string {
  return text.replace(/^url\b/, 'The URL');
}

interface Extra {
  /** A secret just made: shown this once. */
  secret?: { value: string; rotated: boolean };
  errors?: FieldError[];
  /** What the owner typed, kept after a refusal. */
  typed?: { url: string };
  notice?: string;
}

function stateTag(delivery: Delivery): SafeHtml {
  if (delivery.state === 'delivered') return html`<strong class="tag tag--green">Delivered</strong>`;
  if (delivery.state === 'failed') return html`<strong class="tag tag--grey">Failed</strong>`;
  return delivery.attempts > 0
    ? html`<strong class="tag tag--yellow">Retrying</strong>`
    : html`<strong class="tag tag--yellow">Pending</strong>`;
}

function time(ts: Delivery['createdAt']): SafeHtml | string {
  return ts ? html`<time datetime="${isoTime(ts)}">${lagosTime(ts)}</time>` : '—';
}

function endpointSection(ctx: SignedInContext, webhook: Webhook | undefined, extra: Extra): SafeHtml {
  const { viewer, mode } = ctx;
  const label = MODE_LABEL[mode];
  const lower = label.toLowerCase();
  const fieldId = `url_${mode}`;
  const error = extra.errors?.find((e) => e.field === fieldId);
  const value = extra.typed !== undefined ? extra.typed.url : (webhook?.url ?? '');
  const summary = webhook
    ? html`<dl class="summary-list">
<div><dt>URL</dt><dd><code class="break">${webhook.url}</code></dd></div>
<div><dt>State</dt><dd>${
        webhook.enabled
          ? html`<strong class="tag tag--green">Enabled</strong>`
          : html`<strong class="tag tag--grey">Disabled</strong>`
      }</dd></div>
<div><dt>Secret</dt><dd>Ends in <code>${webhook.secretHint}</code></dd></div>
<div><dt>Rotation</dt><dd>${
        webhook.previousSecretUntil
          ? html`The previous secret signs too until ${time(webhook.previousSecretUntil)}`
          : 'None in progress'
      }</dd></div>
</dl>`
    : empty(
        `No ${lower} webhook is set. ${
          mode === 'test' ? 'Test events' : 'Events'
        } are still listed by the API's events feed.`,
      );
  if (!isOwner(viewer))
    return html`<section aria-labelledby="webhook-${mode}"><h2 id="webhook-${mode}">${label} \
webhook</h2>${summary}</section>`;
  const describedBy = [`${fieldId}-hint`, error ? `${fieldId}-error` : ''].filter((id) => id !== '').join(' ');
  const setForm = html`<form method="post" action="${ctx.link('/webhooks/url')}" novalidate>
  ${formFields(viewer)}
  <div class="form-group${error ? ' form-group--error' : ''}">
    <label class="label" for="${fieldId}">${label} webhook URL</label>
    <p class="hint" id="${fieldId}-hint">An https address on the public internet, for example \
https://example.com/prepaid/events.${
    webhook ? ' A new secret is made; the old one keeps signing for 24 hours.' : ''
  }</p>
    ${
      error
        ? html`<p class="error-message" id="${fieldId}-error"><span class="visually-hidden">Error:</span> \
${error.message}</p>`
        : ''
    }
    <input class="input${error ? ' input--error' : ''}" id="${fieldId}" name="url" type="url" value="${value}" \
autocomplete="off" spellcheck="false" aria-describedby="${describedBy}"${error ? html` aria-invalid="true"` : ''}>
  </div>
  <button type="submit" class="button">${
    webhook ? (webhook.enabled ? `Replace ${lower} URL` : `Enable ${lower} webhook`) : `Set ${lower} URL`
  }</button>
</form>`;
  const actions = webhook?.enabled
    ? html`<div class="button-group webhook-actions">
  <form method="post" action="${ctx.link('/webhooks/test')}" \
class="inline-form">${formFields(viewer)}<button type="submit" class="button button--secondary">Send \
a test event to the ${lower} URL</button></form>
  <form method="post" action="${ctx.link('/webhooks/rotate')}" class="inline-form" data-confirm="Make a new \
${lower} secret? The old one keeps signing for 24 hours.">${formFields(viewer)}<button type="submit" \
class="button button--secondary">Rotate ${lower} secret</button></form>
  <form method="post" action="${ctx.link('/webhooks/disable')}" class="inline-form" data-confirm="Stop \
${lower} deliveries?">${formFields(viewer)}<button type="submit" class="button \
button--warning">Disable ${lower} webhook</button></form>
</div>`
    : '';
  return html`<section aria-labelledby="webhook-${mode}"><h2 id="webhook-${mode}">${label} \
webhook</h2>${summary}${actions}${setForm}</section>`;
}

function secretPanel(mode: ModeName, secret: NonNullable<Extra['secret']>): SafeHtml {
  const lower = MODE_LABEL[mode].toLowerCase();
  return html`<div class="panel panel--secret" role="region" aria-labelledby="new-secret-title">
  <h2 id="new-secret-title">Your new ${lower} webhook secret</h2>
  <p class="warning"><strong>Copy the secret now. It will not be shown again.</strong> Your receiver uses it \
to check that each delivery comes from us.${
    secret.rotated ? ' The previous secret keeps signing too for 24 hours, while you deploy this one.' : ''
  }</p>
  ${secretBox('Webhook secret', 'webhook-secret', secret.value)}
</div>`;
}

function deliveryRow(ctx: SignedInContext, d: Delivery): SafeHtml {
  const { viewer } = ctx;
  return html`<tr>
  <td data-label="State">${stateTag(d)}</td>
  <th scope="row" data-label="Event"><code>${d.eventId}</code></th>
  <td data-label="Type"><code class="nowrap">${d.type}</code></td>
  <td data-label="Attempts">${d.attempts}</td>
  <td data-label="Last answer">${
    d.lastStatus !== 0 ? String(d.lastStatus) : d.lastError !== '' ? d.lastError : '—'
  }${d.lastStatus !== 0 && d.lastError !== '' ? html`<br><span class="hint">${d.lastError}</span>` : ''}</td>
  <td data-label="Next attempt">${d.nextAttemptAt ? time(d.nextAttemptAt) : '—'}</td>
  <td data-label="Recorded">${time(d.createdAt)}</td>
  <td class="table__actions" data-label="Actions">${
    isOwner(viewer)
      ? html`<form method="post" action="${ctx.link('/webhooks/resend')}" \
class="inline-form">${formFields(viewer)}<input type="hidden" name="event_id" \
value="${d.eventId}"><button type="submit" class="button button--secondary">Resend<span \
class="visually-hidden"> ${d.eventId}</span></button></form>`
      : ''
  }</td>
</tr>`;
}

async function webhooksPage(ctx: SignedInContext, extra: Extra = {}, status = 200): Promise<Answer> {
  const viewer = ctx.viewer;
  const query = ctx.url.searchParams;
  const logMode = ctx.mode;
  const failedOnly = query.get('failed') === '1';
  const after = query.get('after') ?? '';
  const sessionToken = ctx.sessionToken;
  const [endpoint, log] = await Promise.all([
    ctx.core.holder.getWebhook({ sessionToken, mode: coreMode(logMode) }),
    ctx.core.holder.listDeliveries({ sessionToken, mode: coreMode(logMode), failedOnly, pageToken: after }),
  ]);
  const base = new URLSearchParams(failedOnly ? { failed: '1' } : {});
  const next = new URLSearchParams(base);
  next.set('after', log.nextPageToken);
  const body = html`<h1>Webhooks</h1>
${extra.secret ? secretPanel(logMode, extra.secret) : ''}
<p>When a purchase reaches its final state, or your wallet is credited, we send a signed event to your webhook \
URL. Live and test each have their own URL and secret: ${
    logMode === 'test'
      ? html`this is the test webhook, for events of test purchases, which carry <code>"livemode": false</code>; \
the live one is on the <a href="/webhooks">live side</a>.`
      : html`this is the live webhook; the test one, for test purchases, is on the <a href="/test/webhooks">test \
side</a>.`
  }</p>
${
  isOwner(viewer)
    ? ''
    : html`<p class="inset">You are a viewer on this account: you can see its webhooks and \
deliveries, but only an owner can change them.</p>`
}
${endpointSection(ctx, endpoint.webhook, extra)}
<section aria-labelledby="verifying">
<h2 id="verifying">Checking a delivery</h2>
<p>Each delivery carries a <code>Prepaid-Signature: t=&lt;unix seconds&gt;,v1=&lt;hex&gt;</code> header. \
Compute HMAC-SHA256 of <code>&lt;t&gt;.&lt;raw body&gt;</code> with your secret, over the body exactly as \
received (before parsing it), and compare it in constant time with each <code>v1</code>: during a rotation \
there is one per secret, and one match is enough. Refuse a <code>t</code> more than five minutes from your \
clock, and use the event's <code>id</code> to ignore repeats. ${
    ctx.config.docsUrl === ''
      ? ''
      : html`The whole contract is in the documentation, section <a \
href="${ctx.config.docsUrl}#webhooks-and-events">${README_SECTION}</a>.`
  }</p>
<p>The same check, ready to copy into your receiver:</p>
${signatureSamples()}
</section>
<section aria-labelledby="deliveries">
<h2 id="deliveries">Deliveries</h2>
<form method="get" action="${ctx.link('/webhooks')}" class="toolbar">
  <div class="form-group checkbox">
    <input type="checkbox" id="failed" name="failed" value="1"${failedOnly ? html` checked` : ''}>
    <label for="failed">Only deliveries that failed for good</label>
  </div>
  <p class="hint">Deliveries still being retried are not failed yet: they are in the full list, with their \
next attempt.</p>
  <button type="submit" class="button button--secondary">Show deliveries</button>
</form>
${
  log.deliveries.length === 0
    ? empty(
        failedOnly
          ? `No ${logMode} delivery has failed for good.`
          : endpoint.webhook === undefined
            ? `No ${logMode} delivery: set a ${logMode} webhook URL above to receive events.`
            : `No ${logMode} event yet.`,
      )
    : html`<div class="table-wrap" role="region" aria-label="${MODE_LABEL[logMode]} deliveries" \
tabindex="0"><table class="table table--cards">
<caption class="visually-hidden">${MODE_LABEL[logMode]} deliveries, newest first</caption>
<thead><tr><th scope="col">State</th><th scope="col">Event</th><th scope="col">Type</th><th \
scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Next attempt</th><th \
scope="col">Recorded</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${log.deliveries.map((d) => deliveryRow(ctx, d))}</tbody>
</table></div>`
}
<nav class="pagination" aria-label="Pages">
${after !== '' ? html`<a href="${ctx.link(`/webhooks?${base.toString()}`)}#deliveries">First page</a>` : ''}
${
  log.nextPageToken !== ''
    ? html`<a href="${ctx.link(`/webhooks?${next.toString()}`)}#deliveries" \
rel="next">Next page</a>`
    : ''
}
</nav>
</section>`;
  const errors = extra.errors ?? [];
  return {
    kind: 'page',
    status,
    body: page(
      { title: 'Webhooks', current: '/webhooks', viewer, errors, ...(extra.notice ? { notice: extra.notice } : {}) },
      body,
    ),
  };
}

/** A refusal the page shows at the top (a disabled webhook, a bad URL); anything else is thrown on. */
function shownRefusal(error: unknown, field: string): { refusal: CoreRefusal; errors: FieldError[] } {
  const refusal = refusalOf(error);
  if (refusal.kind !== 'invalid' && refusal.kind !== 'refused') throw error;
  return {
    refusal,
    errors: [
      {
        field,
        message: plainSentence(refusal.fields.get('url') ?? [...refusal.fields.values()][0] ?? refusal.message),
      },
    ],
  };
}

/** The POSTs that answer with a redirect and a notice once the core has done them. */
function action(
  path: string,
  name: string,
  done: string,
  call: (ctx: SignedInContext, mode: ModeName) => Promise<unknown>,
): Route {
  return {
    method: 'POST',
    path,
    name,
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      try {
        await call(ctx, ctx.mode);
      } catch (error) {
        return webhooksPage(ctx, { errors: shownRefusal(error, `webhook-${ctx.mode}`).errors }, 400);
      }
      return { kind: 'redirect', location: ctx.link(`/webhooks?done=${done}`) };
    },
  };
}

export const webhookRoutes: Route[] = [
  {
    method: 'GET',
    path: '/webhooks',
    name: 'webhooks',
    signedIn: true,
    testMode: true,
    handler: (ctx) => {
      const notice = NOTICES[ctx.url.searchParams.get('done') ?? ''];
      return webhooksPage(ctx, notice ? { notice } : {});
    },
  },
  {
    method: 'POST',
    path: '/webhooks/url',
    name: 'webhooks_set',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const { mode } = ctx;
      const url = (ctx.form.get('url') ?? '').trim();
      try {
        const set = await ctx.core.holder.setWebhook({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          mode: coreMode(mode),
          url,
        });
        // The secret is in this answer's body only (no-store, no redirect that could carry it).
        return webhooksPage(ctx, {
          secret: { value: set.secret, rotated: false },
          notice: `The ${mode} webhook URL is set and deliveries are on.`,
        });
      } catch (error) {
        return webhooksPage(ctx, { errors: shownRefusal(error, `url_${mode}`).errors, typed: { url } }, 400);
      }
    },
  },
  {
    method: 'POST',
    path: '/webhooks/rotate',
    name: 'webhooks_rotate',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const { mode } = ctx;
      try {
        const rotated = await ctx.core.holder.rotateWebhookSecret({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          mode: coreMode(mode),
        });
        return webhooksPage(ctx, { secret: { value: rotated.secret, rotated: true } });
      } catch (error) {
        return webhooksPage(ctx, { errors: shownRefusal(error, `webhook-${mode}`).errors }, 400);
      }
    },
  },
  action('/webhooks/disable', 'webhooks_disable', 'disabled', (ctx, mode) =>
    ctx.core.holder.disableWebhook({
      sessionToken: ctx.sessionToken,
      formAccountId: ctx.formAccountId,
      mode: coreMode(mode),
    }),
  ),
  action('/webhooks/test', 'webhooks_test', 'test', (ctx, mode) =>
    ctx.core.holder.sendTestEvent({
      sessionToken: ctx.sessionToken,
      formAccountId: ctx.formAccountId,
      mode: coreMode(mode),
    }),
  ),
  action('/webhooks/resend', 'webhooks_resend', 'resent', (ctx, mode) =>
    ctx.core.holder.resendEvent({
      sessionToken: ctx.sessionToken,
      formAccountId: ctx.formAccountId,
      mode: coreMode(mode),
      eventId: ctx.form.get('event_id') ?? '',
    }),
  ),
];
