import type { AccountWebhookState } from '../../gen/prepaid/v1/console_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { when } from '../time.js';

function lastDelivery(w: AccountWebhookState): SafeHtml | string {
  if (w.lastDelivery === '') return 'none yet';
  const answer =
    w.lastAttemptAt === undefined
      ? 'no attempt yet'
      : html`${when(w.lastAttemptAt)}, ${w.lastStatus === 0 ? 'no answer' : `HTTP ${w.lastStatus}`}${
          w.lastError === '' ? '' : html`: <code>${w.lastError}</code>`
        }`;
  return html`${w.lastDelivery} (${answer})`;
}

function destination(w: AccountWebhookState): SafeHtml | string {
  if (w.url === '') return 'none set';
  return html`<code>${w.url}</code>${w.enabled ? '' : ' (disabled)'}`;
}

function backlog(w: AccountWebhookState): SafeHtml | string {
  return w.undelivered === 0 ? '0' : html`${w.undelivered}, since ${when(w.undeliveredSince)}`;
}

export function webhooksStateSection(webhooks: readonly AccountWebhookState[]): SafeHtml {
  return html`<section><h2>Webhooks</h2>${webhooks.map(
    (w) => html`<dl class="webhook" data-webhook-mode="${w.mode}"><dt>Mode</dt><dd>${w.mode}</dd>
<dt>Destination</dt><dd>${destination(w)}</dd>
<dt>Newest delivery</dt><dd>${lastDelivery(w)}</dd>
<dt>Waiting for delivery</dt><dd>${backlog(w)}</dd></dl>`,
  )}</section>`;
}
