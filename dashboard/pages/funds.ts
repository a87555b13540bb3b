/**
 * Add test funds (test mode only, /test/funds): an owner puts test money on the account's
 * test wallet to try the API with a test key pair. The core decides everything: that the
 * person is an owner, that the money goes to the test wallet and never the live one, the
 * limit per credit. The form carries a reference made when it is shown, so a form sent twice
 * (a double click, a refresh after a slow answer) adds the money once. After it, the browser
 * is sent to the test overview (post/redirect/get), which shows the new balance.
 */
import { randomBytes } from 'node:crypto';
import { html } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { type FieldError, field, formFields, isOwner, page } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';

/** Naira as a person types them: 5000, 5,000, ₦5,000.50. Bounds are the core's. */
const NAIRA_INPUT = /^(\d{1,12})(?:\.(\d{1,2}))?$/;

/** Kobo of a typed amount, or undefined when it is not an amount. */
export function koboOfInput(text: string): bigint | undefined {
  const match = NAIRA_INPUT.exec(text.replace(/[\s,₦]/g, ''));
  if (match === null) return undefined;
  return BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}

/** A new form's reference: 22 random URL-safe characters. */
function newReference(): string {
  return randomBytes(16).toString('base64url');
}

function notInLive(ctx: SignedInContext): Answer {
  return {
    kind: 'page',
    status: 404,
    body: page(
      { title: 'Page not found', viewer: ctx.viewer },
      html`<h1>Page not found</h1><p>Test money is added in test mode. <a href="/test/funds">Add test funds</a></p>`,
    ),
  };
}

function fundsForm(ctx: SignedInContext, values: { amount: string; reference: string }, errors: FieldError[]): Answer {
  const viewer = ctx.viewer;
  const form = isOwner(viewer)
    ? html`<form method="post" action="/test/funds" novalidate>
  ${formFields(viewer)}
  <input type="hidden" name="reference" value="${values.reference}">
  ${field({
    name: 'amount',
    label: 'Amount of test money, in Naira',
    hint: 'For example 50,000. At most ₦1,000,000 at a time.',
    inputmode: 'decimal',
    value: values.amount,
    width: 'input--short',
    errors,
  })}
  <div class="button-group">
    <button type="submit" class="button">Add test funds</button>
    <a href="/test" class="link-button">Cancel</a>
  </div>
</form>`
    : html`<p class="inset">You are a viewer on this account: only an owner can add test money.</p>`;
  const body = html`<h1>Add test funds</h1>
<p>Test money goes to this account's <strong>test balance</strong>, which only test key pairs \
(<code>pk_test_</code>, <code>sk_test_</code>) spend. It is not real money: it cannot be spent live, withdrawn \
or moved to your live balance, and test purchases are never sent to a network or a biller.</p>
${form}`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Add test funds', current: '/', viewer, errors }, body),
  };
}

export const fundsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/funds',
    name: 'test_funds',
    signedIn: true,
    testMode: true,
    handler: async (ctx) =>
      ctx.mode === 'test' ? fundsForm(ctx, { amount: '', reference: newReference() }, []) : notInLive(ctx),
  },
  {
    method: 'POST',
    path: '/funds',
    name: 'test_funds',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      if (ctx.mode !== 'test') return notInLive(ctx);
      const amount = (ctx.form.get('amount') ?? '').trim();
      const reference = ctx.form.get('reference') ?? '';
      const amountKobo = koboOfInput(amount);
      if (amountKobo === undefined) {
        return fundsForm(ctx, { amount, reference }, [
          { field: 'amount', message: 'Enter the amount in Naira, for example 50,000 or 2,500.50.' },
        ]);
      }
      try {
        // The core is told nothing about a wallet: AddTestFunds only ever credits the test one.
        const added = await ctx.core.holder.addTestFunds({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          amountKobo,
          reference,
        });
        return { kind: 'redirect', location: `/test?done=${added.replayed ? 'replayed' : 'funded'}` };
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind === 'invalid') {
          const message = refusal.fields.get('amount_kobo') ?? refusal.fields.get('reference') ?? refusal.message;
          return fundsForm(ctx, { amount, reference }, [{ field: 'amount', message }]);
        }
        // The same form sent again with another amount: a new form (new reference) is offered.
        if (refusal.kind === 'refused')
          return fundsForm(ctx, { amount, reference: newReference() }, [{ field: 'amount', message: refusal.message }]);
        throw error;
      }
    },
  },
];
