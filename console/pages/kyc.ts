/**
 * Identity levels (docs/console.md, Identity levels): the holders' requests for the next level
 * with their evidence (numbers masked: the kind and last four digits; a CAC number's document
 * reference), and the credits held over the limits. Every role reads it; approving (which sets
 * the level and credits what the new level allows, in one transaction) and refusing (with the
 * reason the holder is shown) are for the members who approve money moves, checked by the core
 * (KycConsoleService) whatever the page shows, and audited (`kyc.level`, `kyc.refuse`).
 */
import type { HeldCredit, LevelRequest } from '../../gen/prepaid/v1/kyc_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { csrfField, page, type StaffViewer } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { when } from '../time.js';
import { change, doneNotice, errorSummary, field, naira, pageAnswer, session } from './forms.js';

const BACK = '/kyc';
const ID = '([A-Za-z0-9_.:-]{1,100})';

function requestItem(viewer: StaffViewer, request: LevelRequest): SafeHtml {
  const account = request.accountId;
  const evidence = request.documentReference === '' ? '' : html`<dt>Document</dt><dd>${request.documentReference}</dd>`;
  return html`<div class="item" data-level-request="${account}"><dl><dt>Account</dt><dd>${account}</dd>
<dt>Asks for</dt><dd>Level ${String(request.level)}</dd><dt>Number</dt><dd>${request.maskedNumber}</dd>${evidence}
<dt>Asked by</dt><dd>${request.requestedBy}</dd><dt>Since</dt><dd>${when(request.createdAt)}</dd></dl>
<form method="post" action="/kyc/${account}/approve">${csrfField(viewer)}
<label for="note-${account}">What you checked (required, kept in the audit log)</label>
<input id="note-${account}" name="note" required>
<button type="submit">Approve level ${String(request.level)}</button></form>
<form method="post" action="/kyc/${account}/refuse">${csrfField(viewer)}
<label for="reason-${account}">Why not (required, shown to the holder)</label>
<input id="reason-${account}" name="reason" required>
<button type="submit" class="warning">Refuse</button></form></div>`;
}

function heldItem(viewer: StaffViewer, held: HeldCredit): SafeHtml {
  return html`<tr data-held="${held.inflowId}"><td>${held.accountId}</td><td>${naira(held.amountKobo)}</td>\
<td>${held.provider}</td><td>${when(held.createdAt)}</td><td><form method="post" action="/kyc/return">\
${csrfField(viewer)}<input type="hidden" name="account_id" value="${held.accountId}">\
<input type="hidden" name="inflow_id" value="${held.inflowId}">\
<label for="return-${held.inflowId}">Why return it (required)</label>\
<input id="return-${held.inflowId}" name="note" required>\
<button type="submit" class="warning">Propose returning it to the payer</button></form></td></tr>`;
}

async function kycPage(ctx: SignedInContext, problem = ''): Promise<Answer> {
  const { viewer } = ctx;
  const { requests, held } = await ctx.core.kyc.listLevelQueue(session(ctx));
  const heldTotal = held.reduce((sum, h) => sum + h.amountKobo, 0n);
  const body = html`<h1>Identity levels</h1>
${doneNotice(ctx)}${errorSummary(problem)}
<p>Each level bounds a live wallet (docs/kyc.md): level 2 needs a BVN or NIN, level 3 a business's CAC number and \
document. Check the number against the holder's name with the funding provider or the document before approving: \
the approval sets the level and credits what was held, at once. A held credit that should not be kept is \
proposed for return to its payer; a second member approves it in the attention queue, as every money move.</p>
<section><h2>Requests waiting (${requests.length})</h2>${
    requests.length === 0 ? html`<p>No request is waiting.</p>` : requests.map((r) => requestItem(viewer, r))
  }</section>
<section><h2>Credits held over the limits (${held.length}, ${naira(heldTotal)})</h2>${
    held.length === 0
      ? html`<p>Nothing is held.</p>`
      : html`<table><thead><tr><th>Account</th><th>Held</th><th>Provider</th><th>Since</th><th>Return</th></tr></thead>
<tbody>${held.map((h) => heldItem(viewer, h))}</tbody></table>`
  }</section>`;
  return pageAnswer(page('Identity levels', body, viewer), problem);
}

export const kycRoutes: Route[] = [
  { method: 'GET', path: BACK, name: 'kyc', signedIn: true, handler: (ctx) => kycPage(ctx) },
  {
    method: 'POST',
    path: '/kyc/return',
    name: 'kyc_return',
    signedIn: true,
    handler(ctx) {
      const target = field(ctx, 'inflow_id');
      return change(
        BACK,
        (problem) => kycPage(ctx, problem),
        async () => {
          const { proposal } = await ctx.core.proposeMoneyMove({
            ...session(ctx),
            kind: 'hold_return',
            accountId: field(ctx, 'account_id'),
            target,
            note: field(ctx, 'note'),
          });
          return `returning the credit held for ${target} is proposed (${proposal?.proposalId ?? ''}); a second member approves it`;
        },
      );
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^/kyc/${ID}/approve$`),
    name: 'kyc_approve',
    signedIn: true,
    handler(ctx) {
      const accountId = ctx.params[0]!;
      return change(
        BACK,
        (problem) => kycPage(ctx, problem),
        async () => {
          const { change: changed } = await ctx.core.kyc.approveLevelAsStaff({
            ...session(ctx),
            accountId,
            level: 0,
            note: field(ctx, 'note'),
          });
          const released = (changed?.released ?? []).reduce((sum, h) => sum + h.amountKobo, 0n);
          return `${accountId} is at level ${changed?.level ?? '?'}${released > 0n ? `; ${naira(released)} held was credited` : ''}`;
        },
      );
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^/kyc/${ID}/refuse$`),
    name: 'kyc_refuse',
    signedIn: true,
    handler(ctx) {
      const accountId = ctx.params[0]!;
      return change(
        BACK,
        (problem) => kycPage(ctx, problem),
        async () => {
          await ctx.core.kyc.refuseLevelAsStaff({ ...session(ctx), accountId, reason: field(ctx, 'reason') });
          return `the request of ${accountId} is refused`;
        },
      );
    },
  },
];
