/**
 * A transaction's page, which is the receipt of a purchase (/transactions/REFERENCE): the
 * status in words and what happens next, the token of a prepaid meter large with a copy
 * button (dashboard.js, the one script the CSP allows), its units and the customer's name
 * the core's check found, the refund of a failed purchase from its own ledger entries, and a
 * print button. After a Buy form the address carries ?bought=new|again|failed.
 */

import { Product, type Transaction, TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { coreMode } from '../core-client.js';
import { lagosTime, naira } from '../format.js';
import { page } from '../layout.js';
import type { Answer, SignedInContext } from '../route.js';
import { PRODUCT_LABELS, statusTag } from './labels.js';

function detailRow(label: string, value: SafeHtml | string): SafeHtml {
  return html`<div><dt>${label}</dt><dd>${value === '' ? '—' : value}</dd></div>`;
}

/**
 * What the page says after a purchase from the Buy pages (?bought=...): a new purchase by its
 * status now, since a pending one is not done and must not say so.
 */
function boughtNotice(bought: string, t: Transaction): string | undefined {
  if (bought === 'again') return 'This form had already been sent: this is the purchase it made, charged once.';
  if (bought === 'failed' || (bought === 'new' && REFUNDED.has(t.status)))
    return 'The purchase did not go through. The charge was refunded in full, as shown below.';
  if (bought !== 'new') return undefined;
  return t.status === TransactionStatus.PENDING
    ? 'Sent, but not confirmed yet: this purchase is pending. This page is its receipt, and shows the outcome ' +
        'once the network or biller answers.'
    : 'Done. This page is the receipt of the purchase.';
}

const REFUNDED: ReadonlySet<TransactionStatus> = new Set([TransactionStatus.FAILED, TransactionStatus.REVERSED]);

/**
 * A prepaid meter's token, large, with its copy button (shown by dashboard.js, which the
 * strict CSP allows as the app's own file: no inline script), the units and whose meter it is.
 */
function tokenBox(t: Transaction, customerName: string): SafeHtml {
  return html`<section class="token-box" aria-labelledby="token-label">
  <h2 class="token-box__label" id="token-label">Token</h2>
  <p><code class="token token--large" id="token">${t.token}</code></p>
  <p class="no-print"><button type="button" class="button button--secondary" data-copy="token" hidden>Copy token</button></p>
  <p class="token-box__facts">${t.units ? html`<strong>${t.units}</strong>` : ''}${
    t.units && customerName ? ' for ' : ''
  }${customerName}${t.units || customerName ? ', ' : ''}meter ${t.recipient}</p>
</section>`;
}

/** What a status means for the person who just sold, in one sentence. */
function statusSentence(t: Transaction): string {
  switch (t.status) {
    case TransactionStatus.PENDING:
      return (
        'Waiting for the network or biller to confirm. The charge stays on hold meanwhile: if the ' +
        'purchase fails it is refunded in full, and if it went through it is confirmed here. Reload this page ' +
        'to see the outcome.'
      );
    case TransactionStatus.FAILED:
      return 'This purchase failed and nothing was delivered. The charge was refunded to the balance in full.';
    case TransactionStatus.REVERSED:
      return 'The provider reversed this purchase after delivering it. The charge was refunded to the balance in full.';
    default:
      return '';
  }
}

export async function receiptPage(ctx: SignedInContext): Promise<Answer> {
  const mode = coreMode(ctx.mode);
  const reference = ctx.params[0] ?? '';
  const { transaction: t, customerName } = await ctx.core.holder.getTransaction({
    sessionToken: ctx.sessionToken,
    reference,
    mode,
  });
  if (t === undefined) throw new Error('GetTransaction answered without a transaction');
  const { entries } = await ctx.core.shop.listPurchaseEntries({
    sessionToken: ctx.sessionToken,
    reference: t.reference,
    mode,
  });
  const refund = entries.find((entry) => entry.kind === 'refund');
  const sentence = statusSentence(t);
  // A delivered token is the box above the details; a pending one says when it comes.
  const noToken = t.status === TransactionStatus.PENDING ? 'Not yet: it is shown here once the biller confirms.' : '';
  const notice = boughtNotice(ctx.url.searchParams.get('bought') ?? '', t);
  const body = html`<p class="no-print"><a href="${ctx.link('/transactions')}" class="back-link">Back to \
transactions</a></p>
<h1>${ctx.mode === 'test' ? 'Test transaction' : 'Transaction'} <code class="break">${t.reference}</code></h1>
${
  sentence
    ? html`<p class="${
        t.status === TransactionStatus.PENDING ? 'inset inset--pending' : 'inset'
      }" role="status">${sentence}</p>`
    : ''
}
${t.token ? tokenBox(t, customerName) : ''}
<dl class="summary-list receipt">
${detailRow('Reference', html`<code>${t.reference}</code>`)}
${detailRow('Status', statusTag(t.status))}
${detailRow('Product', PRODUCT_LABELS[t.product])}
${detailRow('Service', t.service.toUpperCase())}
${detailRow('Recipient', t.recipient)}
${customerName ? detailRow('Customer', customerName) : ''}
${t.planLabel ? detailRow('Plan', t.planLabel) : ''}
${t.packageCode ? detailRow('Package', t.packageCode) : ''}
${t.meterType ? detailRow('Meter type', t.meterType) : ''}
${t.product === Product.ELECTRICITY && !t.token ? detailRow('Token', noToken) : ''}
${t.product === Product.ELECTRICITY ? detailRow('Units', t.units) : ''}
${
  t.kctTokens.length > 0
    ? detailRow(
        'Key-change tokens (enter first)',
        html`<code class="token" id="kct-tokens">${t.kctTokens.join(' then ')}</code>`,
      )
    : ''
}
${
  t.bonusTokens.length > 0
    ? detailRow('Bonus tokens', html`<code class="token" id="bonus-tokens">${t.bonusTokens.join(', ')}</code>`)
    : ''
}
${
  t.smsPages > 0
    ? detailRow('SMS sent', `${t.smsSent} recipients, ${t.smsPages} page${t.smsPages === 1 ? '' : 's'}`)
    : ''
}
${detailRow('Amount', naira(t.faceValueKobo))}
${detailRow('Charged', naira(t.chargedKobo))}
${detailRow('Balance after the charge', naira(t.balanceAfterKobo))}
${
  refund
    ? detailRow('Refunded', html`<strong>+${naira(refund.amountKobo)}</strong> on ${lagosTime(refund.createdAt)}`)
    : ''
}
${refund ? detailRow('Balance after the refund', naira(refund.balanceAfterKobo)) : ''}
${refund ? detailRow('Cost of this purchase', naira(t.chargedKobo - refund.amountKobo)) : ''}
${t.failureReason ? detailRow('Why it failed', t.failureReason) : ''}
${detailRow('Request ID', t.requestId)}
${detailRow('Created', lagosTime(t.createdAt))}
${detailRow('Last changed', lagosTime(t.updatedAt))}
</dl>
<p class="no-print"><button type="button" class="button button--secondary" data-print hidden>Print \
receipt</button></p>`;
  return {
    kind: 'page',
    body: page(
      {
        title: `Transaction ${t.reference}`,
        current: '/transactions',
        viewer: ctx.viewer,
        ...(notice ? { notice } : {}),
      },
      body,
    ),
  };
}
