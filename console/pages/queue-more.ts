import { formatNaira, kobo } from '../../core/domain/money.js';
import type { ReconcileFinding, UpstreamAttempt, UpstreamHealth } from '../../gen/prepaid/v1/admin_pb.js';
import type { ClockJump, FailingWebhook, OperationsAlert, UpstreamAnswer } from '../../gen/prepaid/v1/console_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { accountLink, when } from '../time.js';

const naira = (amountKobo: bigint) => `₦${formatNaira(kobo(Number(amountKobo)))}`;

/** The upstreams a pending purchase was sent to, in order, with the evidence each answer gave. */
export function attemptsTable(attempts: readonly UpstreamAttempt[]): SafeHtml {
  if (attempts.length === 0) return html`<p>No upstream attempt recorded (a purchase made before they were).</p>`;
  return html`<table class="attempts"><caption>Upstream attempts</caption>
<thead><tr><th>#</th><th>Upstream</th><th>Started</th><th>Ended</th><th>Outcome</th><th>Evidence</th><th>Cost</th></tr>\
</thead>
<tbody>${attempts.map(
    (a) =>
      html`<tr><td>${a.seq}</td><td>${a.upstream}</td><td>${when(a.startedAt)}</td><td>${when(a.endedAt)}</td>
<td>${a.outcome || 'no answer recorded'}</td><td><code>${a.evidence}</code></td>\
<td>${a.costKobo > 0n ? naira(a.costKobo) : '-'}</td></tr>`,
  )}</tbody></table>`;
}

/**
 * What the upstreams answered about a pending purchase, as they sent it (the core removed
 * every credential and bounded each): collapsed, one <details> each, readable without script.
 */
export function answersList(answers: readonly UpstreamAnswer[]): SafeHtml {
  if (answers.length === 0)
    return html`<p>No upstream answer kept (none came, or the purchase is older than them).</p>`;
  return html`<div class="answers"><h3>Upstream answers (${answers.length})</h3>${answers.map(
    (a) => html`<details data-answer="${a.n}"><summary>${a.source} answer from ${a.upstream}, ${when(a.at)}</summary>
<pre>${a.body}</pre></details>`,
  )}</div>`;
}

export function failingWebhooksSection(
  list: readonly FailingWebhook[],
  names: Readonly<Record<string, string>>,
): SafeHtml {
  return html`<section><h2>Webhook endpoints failing for over a day (${list.length})</h2>
${
  list.length === 0
    ? html`<p>None.</p>`
    : list.map(
        (d) => html`<div class="item" data-webhook="${d.accountId}:${d.mode}">
<dl><dt>Account</dt><dd>${accountLink(d.accountId, names)}</dd><dt>Mode</dt>\
<dd>${d.mode}</dd>
<dt>Undelivered since</dt><dd>${when(d.oldestCreatedAt)}</dd><dt>Events waiting</dt><dd>${d.undelivered}</dd>
<dt>Last answer</dt><dd>${d.lastStatus === 0 ? 'none' : `HTTP ${d.lastStatus}`}${
          d.lastError === ''
            ? ''
            : html`: \
<code>${d.lastError}</code>`
        }</dd></dl>
</div>`,
      )
}
</section>`;
}

export function upstreamsSection(list: readonly UpstreamHealth[]): SafeHtml {
  return html`<section><h2>Upstreams with an open circuit or a low float (${list.length})</h2>
${
  list.length === 0
    ? html`<p>None.</p>`
    : list.map(
        (u) => html`<div class="item" data-upstream="${u.name}">
<dl><dt>Upstream</dt><dd>${u.name} (${u.kind})</dd><dt>Circuit</dt><dd>${u.circuit.replace('_', '-')}</dd>
<dt>Float</dt><dd>${u.floatKobo === undefined ? 'unknown' : naira(u.floatKobo)}\
${u.floatAlertKobo === undefined ? '' : ` (alert under ${naira(u.floatAlertKobo)})`}</dd>
<dt>Last error</dt><dd>${u.lastError === '' ? '-' : html`<code>${u.lastError}</code>`}</dd>
<dt>Purchases skipping it</dt><dd>${u.skipped}</dd></dl>
</div>`,
      )
}
</section>`;
}

/** What the platform itself needs: a store that cannot write, a scheduled backup that failed (docs/operating.md). */
export function operationsSection(list: readonly OperationsAlert[]): SafeHtml {
  const what: Record<string, string> = {
    store_cannot_write: 'The store cannot write',
    backup_failed: 'The last scheduled backup failed',
  };
  return html`<section><h2>The platform (${list.length})</h2>
${
  list.length === 0
    ? html`<p>Nothing: the store writes and the backups succeed.</p>`
    : list.map(
        (alert) => html`<div class="item" data-operations="${alert.kind}">
<dl><dt>What</dt><dd>${what[alert.kind] ?? alert.kind}</dd><dt>Why</dt><dd>${alert.detail}</dd>
<dt>Since</dt><dd>${alert.since === undefined ? '-' : when(alert.since)}</dd></dl>
</div>`,
      )
}
</section>`;
}

/**
 * The core's wall clock jumped since it started (runtime/clock-jump.ts): shown first, since
 * sessions, reset links, invitations and two-step codes are all judged by that clock.
 */
export function clockJumpSection(jump: ClockJump | undefined): SafeHtml {
  if (jump === undefined) return html``;
  const seconds = Number(jump.jumpMs) / 1000;
  const by = `${Math.abs(seconds).toFixed(0)} seconds ${seconds > 0 ? 'forward' : 'back'}`;
  return html`<div class="alert" role="alert" data-clock-jump="${String(jump.jumpMs)}">
<h2>The core's clock jumped</h2>
<p>At ${when(jump.at)} the core's clock moved ${by}. Sessions, password reset links, invitations \
and two-step codes are judged by it: people may have been signed out, links may have ended early \
and codes may be refused. Check the host's time synchronisation (NTP); the log has a \
<code>clock.jump_warning</code> line for each jump.</p>
</div>`;
}

/** A signed amount: "-₦97.00" is the platform's loss. */
const signed = (amountKobo: bigint) =>
  `${amountKobo < 0n ? '-' : ''}${naira(amountKobo < 0n ? -amountKobo : amountKobo)}`;

/**
 * The daily reconciliation's open findings (docs/reconciliation.md): each purchase whose record
 * at an upstream does not agree with our books, with the money at stake and the upstream's
 * answer, and `resolve`'s form to give it an end. Nothing was corrected: a correction is a
 * proposal a second person approves.
 */
export function reconcileSection(
  findings: readonly ReconcileFinding[],
  resolve: (finding: ReconcileFinding) => SafeHtml,
): SafeHtml {
  return html`<section><h2>Reconciliation: records that do not agree (${findings.length})</h2>
<p>Found by <code>prepaid books reconcile</code> and its daily run. Nothing was corrected: a correction is a proposal \
(a refund, a pending purchase proposed failed, a credit) that a second person approves. A negative amount is the \
platform's loss if the upstream's record is right; docs/reconciliation.md says what each class means and what to do.</p>
${
  findings.length === 0
    ? html`<p>None.</p>`
    : findings.map(
        (f) => html`<div class="item" data-finding="${f.reference}">
<dl><dt>Class</dt><dd>${f.class}</dd>
<dt>Purchase</dt><dd><a href="/accounts?q=${encodeURIComponent(f.reference)}">${f.reference}</a></dd>
<dt>Upstream</dt><dd>${f.upstream}, ${f.date}</dd><dt>At stake</dt><dd>${signed(f.atStakeKobo)}</dd>
<dt>Ours</dt><dd>${f.outcome}${f.ourCostKobo === undefined ? '' : `, cost ${naira(f.ourCostKobo)}`}</dd>
<dt>Theirs</dt><dd>${f.theirStatus}${f.theirChargedKobo === undefined ? '' : `, charged ${naira(f.theirChargedKobo)}`}\
${f.theirCharges > 1 ? `, ${f.theirCharges} charges` : ''}${f.reason === '' ? '' : ` (${f.reason})`}</dd>
<dt>Evidence</dt><dd>${f.evidence === '' ? '-' : html`<code>${f.evidence}</code>`}</dd></dl>
${resolve(f)}
</div>`,
      )
}
</section>`;
}
