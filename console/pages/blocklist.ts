/**
 * The platform's blocklist (docs/console.md, Blocked numbers): phone, meter and smart-card
 * numbers no account may buy for. Every role reads it; blocking (with a required reason) and
 * unblocking are an admin's, checked by the core whatever the page shows, and audited
 * (`recipient.block`, `recipient.unblock`). The same list as `prepaid recipients block`.
 */
import type { RecipientBlock } from '../../gen/prepaid/v1/admin_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { csrfField, page, type StaffViewer } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { when } from '../time.js';
import { change, doneNotice, errorSummary, field, pageAnswer, session } from './forms.js';

const BACK = '/blocklist';

function blockItem(viewer: StaffViewer, block: RecipientBlock): SafeHtml {
  return html`<div class="item" data-blocked="${block.value}"><dl><dt>Number</dt><dd>${block.value}</dd>
<dt>Why</dt><dd>${block.reason || '-'}</dd><dt>Blocked by</dt><dd>${block.blockedBy}</dd>
<dt>Since</dt><dd>${when(block.createdAt)}</dd></dl>
<form method="post" action="/blocklist/unblock">${csrfField(viewer)}<input type="hidden" name="value" \
value="${block.value}"><button type="submit" class="warning">Unblock ${block.value}</button></form></div>`;
}

/** The list and the block form; `typed` keeps what the member typed when the core refused it. */
async function blocklistPage(ctx: SignedInContext, problem = '', typed = { value: '', reason: '' }): Promise<Answer> {
  const { viewer } = ctx;
  const { blocks } = await ctx.core.listPlatformBlocks(session(ctx));
  const body = html`<h1>Blocked numbers</h1>
${doneNotice(ctx)}${errorSummary(problem)}
<p>A purchase of any account to a number on this list is refused before anything is charged (422 \
<code>RECIPIENT_BLOCKED</code>); the partner is not told who blocked it or why. Accounts keep lists of their own \
in the developer area, which are not shown here. Only an admin can change this list.</p>
<section><h2>Block a number</h2>
<form method="post" action="${BACK}" novalidate>${csrfField(viewer)}
<label for="block_value">Phone, meter or smart-card number (6 to 20 digits)</label>
<input id="block_value" name="value" inputmode="numeric" autocomplete="off" value="${typed.value}" required>
<label for="block_reason">Why (required; kept on the list and in the audit log, at most 200 characters)</label>
<input id="block_reason" name="reason" value="${typed.reason}" required>
<button type="submit" class="warning">Block the number</button></form></section>
<section><h2>On the list (${blocks.length}${blocks.length >= 500 ? ', the newest 500' : ''})</h2>${
    blocks.length === 0 ? html`<p>No number is blocked.</p>` : blocks.map((b) => blockItem(viewer, b))
  }</section>`;
  return pageAnswer(page('Blocked numbers', body, viewer), problem);
}

export const blocklistRoutes: Route[] = [
  { method: 'GET', path: BACK, name: 'blocklist', signedIn: true, handler: (ctx) => blocklistPage(ctx) },
  {
    method: 'POST',
    path: BACK,
    name: 'blocklist_block',
    signedIn: true,
    handler(ctx) {
      const typed = { value: field(ctx, 'value'), reason: field(ctx, 'reason') };
      return change(
        BACK,
        (problem) => blocklistPage(ctx, problem, typed),
        async () => {
          const { block } = await ctx.core.blockPlatformRecipient({ ...session(ctx), ...typed });
          return `${block?.value ?? typed.value} is blocked for every account`;
        },
      );
    },
  },
  {
    method: 'POST',
    path: '/blocklist/unblock',
    name: 'blocklist_unblock',
    signedIn: true,
    handler(ctx) {
      const value = field(ctx, 'value');
      return change(
        BACK,
        (problem) => blocklistPage(ctx, problem),
        async () => {
          const { removed } = await ctx.core.unblockPlatformRecipient({ ...session(ctx), value });
          return removed ? `${value} is unblocked` : `${value} was not on the list`;
        },
      );
    },
  },
];
