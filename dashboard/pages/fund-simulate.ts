/**
 * Fund wallet in test mode (/test/fund): "simulate a transfer of ₦X" into the test wallet's
 * Sandbox Bank account, so a holder sees a transfer arrive without the operator's CLI. The
 * core sends it through the sandbox funding provider's own path (the notification, its
 * re-query, the credit and its fee), exactly as `prepaid funding simulate-transfer` does, and
 * refuses it for the live wallet itself; this page offers it only in test mode. The form
 * carries a reference made when it is shown, so a form sent twice is one transfer.
 */
import { randomBytes } from 'node:crypto';
import { html, type SafeHtml } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { coreMode } from '../core-client.js';
import { type FieldError, field, formFields } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { koboOfInput } from './funds.js';

export interface SimulateState {
  value: string;
  reference: string;
  errors: FieldError[];
}

/** The form under the test wallet's Sandbox Bank account. */
export function simulateForm(ctx: SignedInContext, state: SimulateState | undefined): SafeHtml {
  const reference = state?.reference ?? randomBytes(16).toString('base64url');
  return html`<h2 id="simulate">Simulate a transfer</h2>
<p>Test money arrives the way real money does: a transfer to the Sandbox Bank account above, noticed, checked \
with the bank and credited, less the fee. Nothing real is sent.</p>
<form method="post" action="${ctx.link('/fund/simulate')}" novalidate data-once>
  ${formFields(ctx.viewer)}
  <input type="hidden" name="reference" value="${reference}">
  ${field({
    name: 'simulate_amount',
    label: 'Amount to transfer, in Naira',
    hint: 'For example 5,000. At most ₦1,000,000 at a time.',
    inputmode: 'decimal',
    value: state?.value ?? '',
    width: 'input--short',
    errors: state?.errors ?? [],
  })}
  <div class="button-group"><button type="submit" class="button">Simulate the transfer</button></div>
</form>`;
}

/** The POST; `again` is the Fund wallet page with this form's state (passed in: fund.ts imports this file). */
export function simulateRoute(again: (ctx: SignedInContext, state: SimulateState) => Promise<Answer>): Route {
  return {
    method: 'POST',
    path: '/fund/simulate',
    name: 'fund_simulate',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const value = (ctx.form.get('simulate_amount') ?? '').trim();
      const reference = ctx.form.get('reference') ?? '';
      const amountKobo = koboOfInput(value);
      const retry = (message: string, fresh = false) =>
        again(ctx, {
          value,
          reference: fresh ? randomBytes(16).toString('base64url') : reference,
          errors: [{ field: 'simulate_amount', message }],
        });
      if (amountKobo === undefined || amountKobo === 0n)
        return retry('Enter the amount in Naira, for example 5,000 or 2,500.50.');
      try {
        // The mode goes to the core as the address says; the core refuses anything but test.
        const { outcome } = await ctx.core.holderFunding.simulateSessionTransfer({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          mode: coreMode(ctx.mode),
          amountKobo,
          reference,
        });
        const done =
          outcome === 'already_credited' ? 'transfer-again' : outcome === 'credited' ? 'transfer' : 'transfer-held';
        return { kind: 'redirect', location: ctx.link(`/fund?done=${done}`) };
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind === 'invalid') return retry(refusal.fields.get('amount_kobo') ?? refusal.message);
        if (refusal.kind === 'refused') return retry(refusal.message, true);
        throw error;
      }
    },
  };
}
