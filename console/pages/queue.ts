import { formatNaira, kobo, parseNaira } from '../../core/domain/money.js';
import { STATUS_WORDS } from '../../core/domain/words.js';
import type { ReconcileFinding } from '../../gen/prepaid/v1/admin_pb.js';
import type { FrozenKey, Proposal } from '../../gen/prepaid/v1/console_pb.js';
import { TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { csrfField, page, type StaffViewer } from '../layout.js';
import type { Answer, PageContext, Route, SignedInContext } from '../route.js';
import { accountLink, when } from '../time.js';
import {
  answersList,
  attemptsTable,
  clockJumpSection,
  failingWebhooksSection,
  operationsSection,
  reconcileSection,
  upstreamsSection,
} from './queue-more.js';

const naira = (amountKobo: bigint | number) => `₦${formatNaira(kobo(Number(amountKobo)))}`;

/** The contract's status words, but "delivered" for success, as staff say it. */
const STATUS_NAMES: Readonly<Record<TransactionStatus, string | null>> = {
  ...STATUS_WORDS,
  [TransactionStatus.SUCCESS]: 'delivered',
};

/** The proposals whose target is a purchase's reference. */
const PURCHASE_KINDS = ['refund', 'pending_failed'];

/** A form of one button (and a required note when asked), posting to `action`. */
function actionForm(
  viewer: StaffViewer,
  action: string,
  label: string,
  options: { note?: string; optionalNote?: boolean; warning?: boolean; fields?: SafeHtml } = {},
): SafeHtml {
  const id = `f${action.replace(/[^a-z0-9]/gi, '_')}`;
  return html`<form method="post" action="${action}">${csrfField(viewer)}${options.fields ?? ''}
${
  options.note === undefined
    ? ''
    : html`<label for="${id}">${options.note}</label>\
<textarea id="${id}" name="note" rows="2"${options.optionalNote ? '' : html` required`}></textarea>`
}
<button type="submit"${options.warning ? html` class="warning"` : ''}>${label}</button></form>`;
}

/** A finding's way out of the queue: resolved with a note, or as corrected by an approved proposal. */
function resolveFindingForm(viewer: StaffViewer, f: ReconcileFinding): SafeHtml {
  const id = `pr${f.findingId.replace(/[^a-z0-9]/gi, '_')}`;
  return actionForm(viewer, '/findings/resolve', 'Mark resolved (moves no money)', {
    fields: html`<input type="hidden" name="finding_id" value="${f.findingId}"><label for="${id}">Corrected by proposal (optional: its id)</label><input id="${id}" name="proposal_id">`,
    note: 'Why it needs nothing more (required without a proposal)',
    optionalNote: true,
  });
}

/** What a proposal moves: a wallet's account, or for the platform's own money the upstream or provider. */
export function proposalItem(viewer: StaffViewer, p: Proposal): SafeHtml {
  const id = encodeURIComponent(p.proposalId);
  const own = p.accountId === '';
  return html`<div class="item" data-proposal="${p.proposalId}">
<dl><dt>Kind</dt><dd>${p.kind}</dd>${own ? '' : html`<dt>Account</dt><dd>${accountLink(p.accountId, {}, p.accountName)}</dd>`}<dt>${p.kind === 'upstream_topup' ? 'Upstream' : p.kind === 'provider_settlement' ? 'Provider' : 'Target'}</dt><dd>${PURCHASE_KINDS.includes(p.kind) ? html`<a href="/transactions/${encodeURIComponent(p.target)}">${p.target}</a>` : p.target}</dd>
<dt>Moves</dt><dd data-moves>${p.movesKobo > 0n ? naira(p.movesKobo) : 'not known'}</dd>
${p.amountKobo > 0n && p.amountKobo !== p.movesKobo ? html`<dt>Amount</dt><dd>${naira(p.amountKobo)}</dd>` : ''}
${p.feeKobo > 0n ? html`<dt>Fee kept</dt><dd>${naira(p.feeKobo)}</dd>` : ''}
${p.reference === '' ? '' : html`<dt>${own ? 'Bank reference' : 'Ledger reference'}</dt><dd>${p.reference}</dd>`}
${p.memo === '' ? '' : html`<dt>Memo</dt><dd>${p.memo}</dd>`}
<dt>Note</dt><dd>${p.note}</dd><dt>Proposed by</dt><dd>${p.proposedBy}</dd><dt>Expires</dt>\
<dd>${when(p.expiresAt)}</dd></dl>
${actionForm(viewer, `/proposals/${id}/approve`, own ? 'Approve and book it' : 'Approve and move the money', {
  note: 'Note (optional)',
  optionalNote: true,
})}
${actionForm(viewer, `/proposals/${id}/refuse`, 'Refuse', { warning: true })}
</div>`;
}

/** Key pairs frozen by the velocity brake or by hand: who, since when, why, and the way out. */
function frozenKeysSection(
  viewer: StaffViewer,
  keys: readonly FrozenKey[],
  names: Readonly<Record<string, string>>,
): SafeHtml {
  return html`<section><h2>Frozen API keys (${keys.length})</h2>
${
  keys.length === 0
    ? html`<p>None.</p>`
    : keys.map((k) => {
        const key = encodeURIComponent(k.publicKey);
        return html`<div class="item" data-frozen-key="${k.publicKey}">
<dl><dt>Key</dt><dd>${k.publicKey} (${k.mode})</dd><dt>Account</dt><dd>${accountLink(k.accountId, names)}</dd>
<dt>Frozen</dt><dd>${when(k.frozenAt)} by ${k.frozenBy === 'velocity' ? 'the velocity brake' : k.frozenBy}</dd>
<dt>Why</dt><dd>${k.reason}</dd></dl>
${actionForm(viewer, `/keys/${key}/unfreeze`, 'Unfreeze the key', {
  note: 'Who confirmed these purchases were the partner’s own (required)',
})}
</div>`;
      })
}
</section>`;
}

/** The identity levels' share of the queue: what waits on the Identity levels page. */
function levelsSection(levels: { requests: unknown[]; held: { amountKobo: bigint }[] }): SafeHtml {
  const held = levels.held.reduce((sum, h) => sum + h.amountKobo, 0n);
  return html`<section data-levels><h2>Identity levels (${levels.requests.length + levels.held.length})</h2>
<p>${String(levels.requests.length)} request(s) for a level waiting; ${String(levels.held.length)} credit(s) held \
over their level's limits (${naira(held)}). <a href="/kyc">Open Identity levels</a></p></section>`;
}

async function queuePage(ctx: SignedInContext): Promise<Answer> {
  const viewer = ctx.viewer;
  const queue = await ctx.core.getAttention({ sessionToken: ctx.sessionToken, clientAddress: ctx.clientAddress });
  const levels = await ctx.core.kyc.listLevelQueue({
    sessionToken: ctx.sessionToken,
    clientAddress: ctx.clientAddress,
  });
  const done = ctx.url.searchParams.get('done');
  const body = html`<h1>Needs attention</h1>
${done === null ? '' : html`<p class="notice" role="status">Done: ${done}.</p>`}
${clockJumpSection(queue.clockJump)}
<section><h2>Proposals waiting for a second person (${queue.proposals.length})</h2>
${queue.proposals.length === 0 ? html`<p>None.</p>` : queue.proposals.map((p) => proposalItem(viewer, p))}
</section>
<section><h2>Pending purchases past the recovery deadline (${queue.pending.length})</h2>
${
  queue.pending.length === 0
    ? html`<p>None.</p>`
    : queue.pending.map(({ transaction: tx, attempts, nextAttemptAt, upstreamAttempts, upstreamAnswers }) => {
        const ref = encodeURIComponent(tx!.reference);
        return html`<div class="item" data-reference="${tx!.reference}">
<dl><dt>Reference</dt><dd><a href="/transactions/${ref}">${tx!.reference}</a></dd><dt>Account</dt>\
<dd>${accountLink(tx!.accountId, queue.accountNames)}</dd>
<dt>Service</dt><dd>${tx!.service}</dd><dt>Recipient</dt><dd>${tx!.recipient}</dd>
<dt>Charged</dt><dd>${naira(tx!.chargedKobo)}</dd><dt>Status</dt><dd>${STATUS_NAMES[tx!.status] ?? 'unknown'}</dd>
<dt>Re-queries</dt><dd>${attempts}</dd><dt>Made</dt><dd>${when(tx!.createdAt)}</dd><dt>Next re-query</dt>\
<dd>${when(nextAttemptAt)}</dd></dl>
${attemptsTable(upstreamAttempts)}
${answersList(upstreamAnswers)}
${actionForm(viewer, `/pending/${ref}/requery`, 'Re-query the upstream now')}
${actionForm(viewer, `/pending/${ref}/delivered`, 'Resolve as delivered', { note: 'Evidence of delivery (required)' })}
${actionForm(viewer, `/pending/${ref}/failed`, 'Propose as failed (refund)', {
  note: 'Evidence it was not delivered (required)',
  warning: true,
})}
</div>`;
      })
}
</section>
${levelsSection(levels)}
<section><h2>Requests for API access (${queue.upgrades.length})</h2>
${
  queue.upgrades.length === 0
    ? html`<p>None.</p>`
    : queue.upgrades.map((u) => {
        const account = encodeURIComponent(u.accountId);
        return html`<div class="item" data-upgrade="${u.accountId}">
<dl><dt>Account</dt><dd>${accountLink(u.accountId, queue.accountNames)}</dd><dt>Asked by</dt><dd>${u.requestedBy}</dd><dt>What they will build</dt>\
<dd>${u.note}</dd>
<dt>Asked</dt><dd>${when(u.createdAt)}</dd></dl>
${actionForm(viewer, `/upgrades/${account}/approve`, 'Approve: move to the API tier')}
${actionForm(viewer, `/upgrades/${account}/refuse`, 'Refuse', { warning: true })}
</div>`;
      })
}
</section>
<section><h2>Bank transfers nobody could match (${queue.inflows.length})</h2>
${
  queue.inflows.length === 0
    ? html`<p>None.</p>`
    : queue.inflows.map((inflow) => {
        const id = encodeURIComponent(inflow.inflowId);
        return html`<div class="item" data-inflow="${inflow.inflowId}">
<dl><dt>Inflow</dt><dd>${inflow.inflowId}</dd><dt>Paid</dt><dd>${naira(inflow.amountPaidKobo)}</dd>
<dt>Payer</dt><dd>${inflow.payerName}</dd><dt>Into</dt><dd>${inflow.provider} ${inflow.accountNumber}</dd>
<dt>Provider's answer</dt><dd><code>${inflow.raw}</code></dd></dl>
${actionForm(viewer, `/inflows/${id}/assign`, 'Propose crediting this account', {
  fields: html`<label for="acct${id}">Account id</label><input id="acct${id}" name="account_id" required>`,
  note: 'Why this account (required)',
})}
${actionForm(viewer, `/inflows/${id}/reject`, 'Reject', { note: 'Why (required)', warning: true })}
</div>`;
      })
}
</section>
${frozenKeysSection(viewer, queue.frozenKeys, queue.accountNames)}
${reconcileSection(queue.reconcileFindings, (f) => resolveFindingForm(viewer, f))}
${failingWebhooksSection(queue.failingWebhooks, queue.accountNames)}
${upstreamsSection(queue.upstreams)}
${operationsSection(queue.operations)}`;
  return { kind: 'page', body: page('Needs attention', body, viewer) };
}

/** The two money moves proposed from a form of their own: a credit, or a manual debit (never below zero). */
const MOVES = {
  credit: {
    title: 'Propose a credit',
    intro: 'A credit moves money only when a different finance or admin member approves it, within 24 hours.',
    button: 'Propose the credit',
  },
  debit: {
    title: 'Propose a debit',
    intro:
      'A debit takes money out of the wallet (a manual debit, shown to the holder with your reason) only when a ' +
      'different finance or admin member approves it, within 24 hours; never more than the wallet holds.',
    button: 'Propose the debit',
  },
} as const;
type MoveKind = keyof typeof MOVES;

function movePage(viewer: StaffViewer, kind: MoveKind, problem = ''): Answer {
  const move = MOVES[kind];
  return {
    kind: 'page',
    status: problem === '' ? 200 : 400,
    body: page(
      move.title,
      html`<h1>${move.title}</h1>
<p>${move.intro}</p>
${problem === '' ? '' : html`<div class="error-summary" role="alert"><p>${problem}</p></div>`}
<form method="post" action="/proposals/${kind}">${csrfField(viewer)}
<label for="account_id">Account id</label><input id="account_id" name="account_id" required>
<label for="amount">Amount in Naira</label><input id="amount" name="amount" inputmode="decimal" required>
<label for="note">Why (required)</label><textarea id="note" name="note" rows="3" required></textarea>
<button type="submit">${move.button}</button>
</form>`,
      viewer,
    ),
  };
}

/** Proposes a credit or a debit from its form; a debit the wallet does not cover now is proposed with a warning. */
async function proposeMove(ctx: SignedInContext, kind: MoveKind): Promise<Answer> {
  const amount = parseNaira((ctx.form.get('amount') ?? '').replace(/[₦,\s]/g, ''));
  if (!amount.ok || amount.kobo <= 0)
    return movePage(ctx.viewer, kind, 'Enter the amount in Naira, such as 5000 or 5000.50.');
  const { proposal, warning } = await ctx.core.proposeMoneyMove({
    ...session(ctx),
    kind,
    accountId: (ctx.form.get('account_id') ?? '').trim(),
    amountKobo: BigInt(amount.kobo),
    note: note(ctx),
  });
  const proposed = `${kind} proposed as ${proposal?.proposalId ?? ''}; a colleague must approve it`;
  return done(warning === '' ? proposed : `${proposed}. Warning: ${warning}`);
}

const done = (what: string): Answer => ({ kind: 'redirect', location: `/?done=${encodeURIComponent(what)}` });
const session = (ctx: PageContext) => ({ sessionToken: ctx.sessionToken, clientAddress: ctx.clientAddress });
const note = (ctx: PageContext) => ctx.form.get('note') ?? '';
/** A path segment of ours: references, account, proposal and inflow ids are short printable text. */
const ID = '([A-Za-z0-9_.%-]{1,96})';

export const queueRoutes: Route[] = [
  { method: 'GET', path: '/', name: 'queue', signedIn: true, handler: queuePage },
  {
    method: 'GET',
    path: '/credit',
    name: 'credit',
    signedIn: true,
    handler: async (ctx) => movePage(ctx.viewer, 'credit'),
  },
  {
    method: 'GET',
    path: '/debit',
    name: 'debit',
    signedIn: true,
    handler: async (ctx) => movePage(ctx.viewer, 'debit'),
  },
  {
    method: 'POST',
    path: '/proposals/credit',
    name: 'propose_credit',
    signedIn: true,
    handler: (ctx) => proposeMove(ctx, 'credit'),
  },
  {
    method: 'POST',
    path: '/proposals/debit',
    name: 'propose_debit',
    signedIn: true,
    handler: (ctx) => proposeMove(ctx, 'debit'),
  },
  {
    method: 'POST',
    path: new RegExp(`^/proposals/${ID}/(approve|refuse)$`),
    name: 'decide_proposal',
    signedIn: true,
    async handler(ctx) {
      const approve = ctx.params[1] === 'approve';
      await ctx.core.decideProposal({ ...session(ctx), proposalId: ctx.params[0]!, approve, note: note(ctx) });
      return done(approve ? 'proposal approved, money moved' : 'proposal refused');
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^/pending/${ID}/requery$`),
    name: 'requery',
    signedIn: true,
    async handler(ctx) {
      const { transaction } = await ctx.core.requeryPurchase({ ...session(ctx), reference: ctx.params[0]! });
      return done(`re-queried, now ${STATUS_NAMES[transaction?.status ?? TransactionStatus.UNSPECIFIED] ?? 'unknown'}`);
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^/pending/${ID}/delivered$`),
    name: 'resolve_delivered',
    signedIn: true,
    async handler(ctx) {
      await ctx.core.resolveDelivered({ ...session(ctx), reference: ctx.params[0]!, note: note(ctx) });
      return done('resolved as delivered');
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^/pending/${ID}/failed$`),
    name: 'propose_failed',
    signedIn: true,
    async handler(ctx) {
      await ctx.core.proposeMoneyMove({
        ...session(ctx),
        kind: 'pending_failed',
        target: ctx.params[0]!,
        note: note(ctx),
      });
      return done('failure proposed; a finance colleague must approve the refund');
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^/upgrades/${ID}/(approve|refuse)$`),
    name: 'decide_upgrade',
    signedIn: true,
    async handler(ctx) {
      const approve = ctx.params[1] === 'approve';
      await ctx.core.decideUpgrade({ ...session(ctx), accountId: ctx.params[0]!, approve, note: note(ctx) });
      return done(approve ? 'API access approved; the holder sees their first key pair' : 'request refused');
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^/inflows/${ID}/assign$`),
    name: 'propose_assign',
    signedIn: true,
    async handler(ctx) {
      await ctx.core.proposeMoneyMove({
        ...session(ctx),
        kind: 'inflow_assign',
        target: ctx.params[0]!,
        accountId: (ctx.form.get('account_id') ?? '').trim(),
        note: note(ctx),
      });
      return done('assignment proposed; a finance colleague must approve it');
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^/keys/${ID}/unfreeze$`),
    name: 'unfreeze_key',
    signedIn: true,
    async handler(ctx) {
      await ctx.core.unfreezeKey({ ...session(ctx), publicKey: ctx.params[0]!, note: note(ctx) });
      return done('key unfrozen; its calls work again');
    },
  },
  {
    method: 'POST',
    path: '/findings/resolve',
    name: 'resolve_finding',
    signedIn: true,
    async handler(ctx) {
      const { finding } = await ctx.core.resolveFinding({
        ...session(ctx),
        findingId: (ctx.form.get('finding_id') ?? '').slice(0, 400),
        note: note(ctx),
        proposalId: (ctx.form.get('proposal_id') ?? '').trim().slice(0, 100),
      });
      return done(`finding ${finding?.findingId ?? ''} resolved; no money moved`);
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^/inflows/${ID}/reject$`),
    name: 'reject_inflow',
    signedIn: true,
    async handler(ctx) {
      await ctx.core.rejectUnmatchedInflow({ ...session(ctx), inflowId: ctx.params[0]!, note: note(ctx) });
      return done('transfer rejected');
    },
  },
];
