/**
 * Developers: where the API is, its OpenAPI document, and curl commands to copy, filled with
 * one of the holder's own public keys (the secret is never shown again, so it stays a
 * placeholder the holder fills in).
 */

import { html, type SafeHtml } from '../../web/html.js';
import { coreMode } from '../core-client.js';
import { page } from '../layout.js';
import type { Route } from '../route.js';

/** A command block with a copy button (the script shows it); a labelled region the keyboard can scroll. */
function command(id: string, text: string): SafeHtml {
  return html`<div class="code-block"><pre class="scroll-region" role="region" aria-label="Command" \
tabindex="0"><code id="${id}">${text}</code></pre><button type="button" class="button button--secondary" \
data-copy="${id}" hidden>Copy command</button></div>`;
}

export const developerRoutes: Route[] = [
  {
    method: 'GET',
    path: '/developers',
    name: 'developers',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      // In test mode, the commands carry a test public key: they spend test money only.
      const { keys } = await ctx.core.holder.listApiKeys({ sessionToken: ctx.sessionToken, mode: coreMode(ctx.mode) });
      const live = keys.find((key) => !key.revoked);
      const publicKey = live?.publicKey ?? (ctx.mode === 'test' ? 'pk_test_your_public_key' : 'pk_your_public_key');
      const base = ctx.config.apiUrl;
      const openapi = `${new URL(base).origin}/openapi.json`;
      const keyHeaders = `-H 'X-Public-Key: ${publicKey}' -H 'X-Secret-Key: YOUR_SECRET_KEY'`;
      const body = html`<h1>Developers</h1>
<dl class="summary-list">
<div><dt>API base URL</dt><dd><code>${base}</code></dd></div>
<div><dt>API reference</dt><dd><a href="${ctx.link('/developers/reference')}">Every action, with an example \
request and answer</a></dd></div>
<div><dt>OpenAPI document</dt><dd><a href="${openapi}">${openapi}</a></dd></div>
<div><dt>Your public key</dt><dd>${
        live ? html`<code>${publicKey}</code>` : html`No key yet. <a href="${ctx.link('/keys')}">Create a key pair</a>.`
      }</dd></div>
</dl>
<p>Every request carries your public key and your secret key as headers. Your secret key was shown once when \
the key was created; put it where these commands say <code>YOUR_SECRET_KEY</code>. Amounts are in Naira.</p>
<h2>Check your balance</h2>
${command('curl-balance', `curl -s '${base}?action=balance' ${keyHeaders}`)}
<h2>Buy airtime</h2>
${command(
  'curl-airtime',
  `curl -s -X POST '${base}?action=airtime' ${keyHeaders} \\\n  -H 'Content-Type: application/json' \\\n  -d ` +
    `'{"network":"mtn","phone":"08031234567","amount":100,"request_id":"order-1001"}'`,
)}
<h2>List data plans</h2>
${command('curl-plans', `curl -s '${base}?action=plans&network=mtn' ${keyHeaders}`)}
<h2>Look up a transaction</h2>
${command('curl-transaction', `curl -s '${base}?action=transaction&reference=REFERENCE' ${keyHeaders}`)}
<p>The <code>request_id</code> makes a purchase safe to retry: the same request_id never charges twice.</p>`;
      return { kind: 'page', body: page({ title: 'Developers', current: '/developers', viewer: ctx.viewer }, body) };
    },
  },
];
