/**
 * API reference: every action of the public API with its parameters, its request and answer
 * fields, an example request (a curl to copy) and an example answer, and the error statuses.
 * Rendered on the server from the OpenAPI document the gateway serves at /openapi.json
 * (dashboard/api-reference.ts), so it says exactly what the API's own description says; no
 * script and nothing from another origin (the CSP allows neither).
 */

import { html, type SafeHtml } from '../../web/html.js';
import { type ApiReference, type ReferenceAction, type ReferenceField, referenceSource } from '../api-reference.js';
import { page } from '../layout.js';
import type { PageContext, Route } from '../route.js';

/** One source per document address (one per dashboard in practice), so the document is fetched once per few minutes. */
const sources = new Map<string, ReturnType<typeof referenceSource>>();

function documentUrl(ctx: PageContext): string {
  return `${new URL(ctx.config.apiUrl).origin}/openapi.json`;
}

/** The document's `code` spans (between backticks) as <code>, the rest as text. */
function prose(text: string): SafeHtml {
  return html`${text.split('`').map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}

/** A scrollable code block: a labelled region the keyboard can reach, with a copy button (the script shows it). */
function codeBlock(id: string, label: string, text: string): SafeHtml {
  return html`<div class="code-block"><pre class="scroll-region" role="region" aria-label="${label}" \
tabindex="0"><code id="${id}">${text}</code></pre><button type="button" class="button button--secondary" \
data-copy="${id}" hidden>Copy<span class="visually-hidden"> ${label.toLowerCase()}</span></button></div>`;
}

function fieldsTable(caption: string, fields: readonly ReferenceField[]): SafeHtml {
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0"><table class="table \
table--reference">
<caption class="table__caption">${caption}</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead>
<tbody>${fields.map(
    (f) =>
      html`<tr><th scope="row"><code>${f.name}</code>${
        f.required
          ? ''
          : html` <span \
class="hint">optional</span>`
      }</th><td>${prose(f.type)}</td><td>${prose(f.description)}</td></tr>`,
  )}</tbody>
</table></div>`;
}

/** A parameter value worth showing in an example query (a placeholder "string" is not). */
const shownValue = (value: unknown): value is string | number | boolean =>
  (typeof value === 'string' && value !== 'string') || typeof value === 'number' || typeof value === 'boolean';

function exampleCommand(base: string, action: ReferenceAction): string {
  const query = new URLSearchParams({ action: action.name });
  for (const p of action.parameters)
    if (p.in === 'query' && shownValue(p.example)) query.set(p.name, String(p.example));
  const keys = `-H 'X-Public-Key: YOUR_PUBLIC_KEY' -H 'X-Secret-Key: YOUR_SECRET_KEY'`;
  if (action.method === 'GET') return `curl -s '${base}?${query.toString()}' \\\n  ${keys}`;
  // A JSON body in single quotes: an apostrophe inside is closed, escaped and reopened.
  const body = JSON.stringify(action.requestExample).replaceAll("'", "'\\''");
  return (
    `curl -s -X POST '${base}?${query.toString()}' \\\n  ${keys} \\\n  -H 'Content-Type: ` +
    `application/json' \\\n  -d '${body}'`
  );
}

function actionSection(base: string, action: ReferenceAction): SafeHtml {
  const id = `action-${action.name}`;
  return html`<section class="reference-action" aria-labelledby="${id}">
<h2 id="${id}"><code>${action.name}</code> <span class="tag tag--grey">${action.method}</span></h2>
<p>${prose(action.summary)}</p>
${
  action.parameters.length === 0
    ? ''
    : html`<div class="table-wrap" role="region" aria-label="Parameters of ${action.name}" tabindex="0"><table \
class="table table--reference">
<caption class="table__caption">Parameters</caption>
<thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Description</th></tr></thead>
<tbody>${action.parameters.map(
        (p) =>
          html`<tr><th scope="row"><code>${p.name}</code>${
            p.required ? '' : html` <span class="hint">optional</span>`
          }</th><td>${p.in}</td><td>${prose(p.description)}</td></tr>`,
      )}</tbody></table></div>`
}
${action.requestFields.length === 0 ? '' : fieldsTable('Request body', action.requestFields)}
<h3>Example request</h3>
${codeBlock(`${id}-request`, `Example request of ${action.name}`, exampleCommand(base, action))}
${action.answers.map(
  (answer) => html`<h3>Example answer: HTTP ${answer.status}${answer.status === '202' ? ' (pending)' : ''}</h3>
${codeBlock(
  `${id}-${answer.status}`,
  `Example answer ${answer.status} of ${action.name}`,
  JSON.stringify(answer.example, null, 2),
)}
${
  answer.status === '200'
    ? html`<details class="details"><summary>Fields of the answer \
(${answer.schemaName})</summary>${fieldsTable(`Fields of ${answer.schemaName}`, answer.fields)}</details>`
    : ''
}`,
)}
</section>`;
}

function referenceBody(ctx: PageContext, reference: ApiReference): SafeHtml {
  const base = ctx.config.apiUrl;
  return html`<h1>API reference</h1>
<p>${prose(reference.description)}</p>
<p>This reference is read from the API's own description, <a \
href="${documentUrl(ctx)}">${documentUrl(ctx)}</a> (OpenAPI 3.1), which code generators can read too. The base \
URL is <code>${base}</code>; every request carries your public key (<code>X-Public-Key</code>) and secret key \
(<code>X-Secret-Key</code>). Examples use sandbox values.</p>
<nav aria-label="Actions" class="contents"><ul>
${reference.actions.map((a) => html`<li><a href="#action-${a.name}">${a.name}</a></li>`)}
<li><a href="#errors">Errors</a></li>
</ul></nav>
${reference.actions.map((action) => actionSection(base, action))}
<section aria-labelledby="errors">
<h2 id="errors">Errors</h2>
<p>Every error answers with this body; <code>code</code> is the one to act on, <code>message</code> a sentence \
to log or show.</p>
${codeBlock('error-example', 'Example error answer', JSON.stringify(reference.errorExample, null, 2))}
<div class="table-wrap" role="region" aria-label="Error statuses" tabindex="0"><table class="table table--reference">
<caption class="table__caption">Error statuses</caption>
<thead><tr><th scope="col">Status</th><th scope="col">When</th></tr></thead>
<tbody>${reference.errors.map(
    (e) => html`<tr><th \
scope="row">${e.status}</th><td>${prose(e.description)}</td></tr>`,
  )}</tbody>
</table></div>
</section>`;
}

export const referenceRoutes: Route[] = [
  {
    method: 'GET',
    path: '/developers/reference',
    name: 'developers.reference',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const url = documentUrl(ctx);
      let source = sources.get(url);
      if (source === undefined) {
        source = referenceSource(url);
        sources.set(url, source);
      }
      const reference = await source.get();
      const options = { title: 'API reference', current: '/developers', viewer: ctx.viewer };
      if (reference === undefined) {
        const body = html`<h1>API reference</h1>
<p>The API's description could not be read from <a href="${url}">${url}</a> just now. Try again in a minute; \
the <a href="${ctx.link('/developers')}">Developers</a> page has the commands to start with.</p>`;
        return { kind: 'page', status: 503, body: page(options, body) };
      }
      return { kind: 'page', body: page(options, referenceBody(ctx, reference)) };
    },
  },
];
