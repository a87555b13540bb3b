/**
 * Fund wallet (/fund, and /test/fund for the test wallet): the bank accounts that fund this
 * wallet, the fee, the account id to quote, recent funding credits with payer and provider
 * reference, and the low-balance threshold. An owner who has no accounts yet gives the identity
 * the central bank requires (BVN or NIN, names, phone, email); the core sends the number to the
 * providers and keeps only its last four digits, so this page never shows it again and never
 * puts it back in a form, even after an error. Test mode always gets a Sandbox Bank account; a
 * live wallet gets one only with FUNDING_SANDBOX_LIVE=on, and without any live provider the page
 * shows no account number at all (none could be paid with real money).
 * Every decision (who may give the identity or set the threshold, which wallet) is the core's.
 */
import type {
  FundingBank,
  GetSessionFundingResponse,
  OpeningRefusal,
  VirtualAccount,
} from '../../gen/prepaid/v1/funding_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { coreMode } from '../core-client.js';
import { isoTime, lagosTime, naira } from '../format.js';
import { empty, type FieldError, field, formFields, isOwner, page, select } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { type SimulateState, simulateForm, simulateRoute } from './fund-simulate.js';
import { koboOfInput } from './funds.js';

/** What the identity form sends back to itself after an error; never the number. */
interface KycValues {
  kind: string;
  firstName: string;
  lastName: string;
  phone: string;
  email: string;
  bankCode: string;
  bankAccount: string;
}

const NO_KYC: KycValues = {
  kind: 'bvn',
  firstName: '',
  lastName: '',
  phone: '',
  email: '',
  bankCode: '',
  bankAccount: '',
};

/** The core's field names, as the form names and labels them (the number's field is named after its kind). */
const KYC_FIELDS: Readonly<Record<string, readonly [string, string]>> = {
  bvn: ['number', 'The number'],
  nin: ['number', 'The number'],
  'kyc.kind': ['kind', 'The kind of number'],
  first_name: ['first_name', 'First name'],
  last_name: ['last_name', 'Last name'],
  phone: ['phone', 'Phone number'],
  email: ['email', 'Email address'],
  bank_code: ['bank_code', 'Bank code'],
  bank_account: ['bank_account', 'Account number'],
};

/** After a form (post/redirect/get). */
const NOTICES: Readonly<Record<string, string>> = {
  opened: 'Your account numbers are ready. Transfers to them fund this wallet.',
  pending: 'The provider is checking the identity; the account number appears here when it answers.',
  threshold: 'The low-balance threshold is saved.',
  'threshold-removed': 'The low-balance threshold is removed.',
  transfer: 'The simulated transfer arrived: it is in the test balance and the credits below.',
  'transfer-again': 'This form had already been sent: that transfer was credited once.',
  'transfer-held': 'The simulated transfer was received but not credited; the credits below say why.',
};

function feeSentence(basisPoints: number, capKobo: bigint): string {
  if (basisPoints === 0) return 'No fee: the whole amount you transfer reaches your wallet.';
  const percent = `${basisPoints / 100}%`;
  return capKobo > 0n
    ? `A fee of ${percent} of each transfer, at most ${naira(capKobo)}, is taken before the wallet is credited.`
    : `A fee of ${percent} of each transfer is taken before the wallet is credited.`;
}

function accountCard(account: VirtualAccount, index: number): SafeHtml {
  const id = `account-number-${index}`;
  return html`<dl class="summary-list panel">
  <div><dt>Bank</dt><dd>${account.bankName}</dd></div>
  <div><dt>Account number</dt><dd><code id="${id}" class="card__figure">${account.accountNumber}</code>
    <button type="button" class="button button--secondary" data-copy="${id}" hidden>Copy account \
number</button></dd></div>
  <div><dt>Account name</dt><dd>${account.accountName}</dd></div>
</dl>`;
}

/**
 * Paystack's identification step: a bank account in the holder's name, linked to the BVN. The
 * bank is chosen from the provider's list the core keeps; without a list (the provider did not
 * answer) its code is typed.
 */
function bankAccountFields(values: KycValues, errors: readonly FieldError[], banks: readonly FundingBank[]): SafeHtml {
  const bank =
    banks.length > 0
      ? select({
          name: 'bank_code',
          label: 'Bank',
          options: [['', 'Choose the bank'] as const, ...banks.map((b) => [b.code, b.name] as const)],
          value: values.bankCode,
          errors,
        })
      : field({
          name: 'bank_code',
          label: 'Bank code',
          hint: 'The 3 to 6 digit code of the bank that holds the account.',
          inputmode: 'numeric',
          autocomplete: 'off',
          value: values.bankCode,
          width: 'input--short',
          errors,
        });
  return html`<fieldset class="fieldset">
  <legend class="fieldset__legend">A bank account linked to the BVN</legend>
  <p class="hint">The bank's partner checks the BVN against an account in your name. Give both, with a BVN, or \
leave both empty.</p>
  ${bank}
  ${field({
    name: 'bank_account',
    label: 'Account number',
    hint: 'The 10 digits of the account (NUBAN).',
    inputmode: 'numeric',
    autocomplete: 'off',
    value: values.bankAccount,
    width: 'input--short',
    errors,
  })}
</fieldset>`;
}

function kycForm(
  ctx: SignedInContext,
  values: KycValues,
  errors: readonly FieldError[],
  bankAccountAsked: boolean,
  banks: readonly FundingBank[],
): SafeHtml {
  const viewer = ctx.viewer;
  return html`<h2>Get your account numbers</h2>
<p>The Central Bank of Nigeria requires a BVN or a NIN behind every account number. It is sent to the bank's \
partner once; we keep only its last four digits and never show it again.</p>
<form method="post" action="${ctx.link('/fund')}" novalidate>
  ${formFields(viewer)}
  ${select({
    name: 'kind',
    label: 'Identity number',
    options: [
      ['bvn', 'BVN (Bank Verification Number)'],
      ['nin', 'NIN (National Identification Number)'],
    ],
    value: values.kind,
    errors,
  })}
  ${field({
    name: 'number',
    label: 'BVN or NIN',
    hint: '11 digits.',
    inputmode: 'numeric',
    autocomplete: 'off',
    width: 'input--short',
    errors,
  })}
  ${field({
    name: 'first_name',
    label: 'First name',
    hint: 'As on the BVN or NIN record.',
    autocomplete: 'given-name',
    value: values.firstName,
    errors,
  })}
  ${field({ name: 'last_name', label: 'Last name', autocomplete: 'family-name', value: values.lastName, errors })}
  ${field({
    name: 'phone',
    label: 'Phone number',
    hint: 'For example 08031234567.',
    type: 'text',
    inputmode: 'tel',
    autocomplete: 'tel',
    value: values.phone,
    width: 'input--short',
    errors,
  })}
  ${field({ name: 'email', label: 'Email address', type: 'email', autocomplete: 'email', value: values.email, errors })}
  ${bankAccountAsked ? bankAccountFields(values, errors, banks) : ''}
  <div class="button-group"><button type="submit" class="button">Get account numbers</button></div>
</form>`;
}

function thresholdForm(ctx: SignedInContext, current: bigint, value: string, errors: readonly FieldError[]): SafeHtml {
  const viewer = ctx.viewer;
  const now =
    current > 0n
      ? html`<p>You are warned (a <code>wallet.low_balance</code> event) when a purchase takes the balance \
below ${naira(current)}.</p>`
      : html`<p>No low-balance threshold is set.</p>`;
  if (!isOwner(viewer)) return html`<h2>Low balance</h2>${now}<p class="inset">Only an owner can change it.</p>`;
  return html`<h2>Low balance</h2>${now}
<form method="post" action="${ctx.link('/fund/low-balance')}" novalidate>
  ${formFields(viewer)}
  ${field({
    name: 'threshold',
    label: 'Warn me below, in Naira',
    hint: '0 removes the warning.',
    inputmode: 'decimal',
    value,
    width: 'input--short',
    errors,
  })}
  <div class="button-group"><button type="submit" class="button button--secondary">Save threshold</button></div>
</form>`;
}

function creditsTable(funding: GetSessionFundingResponse): SafeHtml {
  if (funding.recentCredits.length === 0) return empty('No bank transfer has been credited yet.');
  return html`<div class="table-wrap" role="region" aria-label="Recent funding credits" tabindex="0"><table \
class="table table--cards">
<caption class="visually-hidden">Recent funding credits, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Payer</th><th scope="col" class="num">Paid</th><th \
scope="col" class="num">Fee</th><th scope="col" class="num">Credited</th><th scope="col">Provider \
reference</th></tr></thead>
<tbody>
${funding.recentCredits.map(
  (c) =>
    html`<tr><td data-label="Time">${lagosTime(c.createdAt)}</td><td data-label="Payer">${c.payerName}</td><td \
class="num" data-label="Paid">${naira(c.amountPaidKobo)}</td><td class="num" \
data-label="Fee">${naira(c.feeKobo)}</td><td class="num" \
data-label="Credited">${naira(c.creditedKobo)}</td><td data-label="Provider \
reference"><code>${c.providerReference}</code></td></tr>`,
)}
</tbody>
</table></div>`;
}

interface FormState {
  kyc?: { values: KycValues; errors: FieldError[] };
  threshold?: { value: string; errors: FieldError[] };
  simulate?: SimulateState;
}

const PROVIDER_LABELS: Readonly<Record<string, string>> = {
  paystack: 'Paystack',
  monnify: 'Monnify',
  sandbox: 'Sandbox',
};

/** Which provider refused to open an account, when, its reason (no identity number in it), and what to do. */
function refusalsNotice(refusals: readonly OpeningRefusal[], owner: boolean) {
  if (refusals.length === 0) return '';
  const items = refusals.map(
    (r) =>
      html`<li><strong>${PROVIDER_LABELS[r.provider] ?? r.provider}</strong> refused on \
<time datetime="${isoTime(r.at)}">${lagosTime(r.at)}</time>: ${r.reason}</li>`,
  );
  const todo = owner
    ? 'Check the details and give the identity again below; only the providers that refused are asked again.'
    : 'An owner of this account can check the details and give the identity again on this page.';
  return html`<div class="warning" role="alert" id="opening-refusals"><p><strong>An account could not be \
opened.</strong></p>
<ul>${items}</ul>
<p>${todo} If it is refused again, ask us for help quoting your account id.</p></div>`;
}

async function fundPage(ctx: SignedInContext, state: FormState = {}): Promise<Answer> {
  const viewer = ctx.viewer;
  const test = ctx.mode === 'test';
  const funding = await ctx.core.holderFunding.getSessionFunding({
    sessionToken: ctx.sessionToken,
    mode: coreMode(ctx.mode),
  });
  const active = funding.accounts.filter((a) => a.status === 'active');
  const fee = funding.fee;
  const feeText = feeSentence(fee?.basisPoints ?? 0, fee?.capKobo ?? 0n);
  const below = funding.lowBalanceThresholdKobo > 0n && funding.balanceKobo < funding.lowBalanceThresholdKobo;
  const errors = [...(state.kyc?.errors ?? []), ...(state.threshold?.errors ?? []), ...(state.simulate?.errors ?? [])];
  const sandbox = test && isOwner(viewer) && active.some((a) => a.provider === 'sandbox');
  const identity = active[0] === undefined ? '' : `${active[0].kycKind.toUpperCase()} ending ${active[0].kycLast4}`;
  const accounts = !funding.transfersOpen
    ? html`<p class="inset" id="no-transfers">Bank transfers to this wallet are not set up on this platform \
yet, so there is no account number to pay into. Ask the platform's operator to fund the wallet.</p>`
    : active.length > 0
      ? html`<h2>Transfer to ${active.length === 1 ? 'this account' : 'any of these accounts'}</h2>
<p>Send money from any Nigerian bank app. Transfers usually arrive within a minute.</p>
${active.map(accountCard)}
<p>${feeText}</p>
<p class="hint">Identity behind these accounts: ${identity}.</p>
${
  isOwner(viewer) && funding.refusals.length > 0
    ? kycForm(
        ctx,
        state.kyc?.values ?? NO_KYC,
        state.kyc?.errors ?? [],
        funding.bankAccountAsked,
        funding.identificationBanks,
      )
    : ''
}`
      : isOwner(viewer)
        ? html`<p>${feeText} Transfers usually arrive within a minute.</p>${kycForm(
            ctx,
            state.kyc?.values ?? NO_KYC,
            state.kyc?.errors ?? [],
            funding.bankAccountAsked,
            funding.identificationBanks,
          )}`
        : html`<p>${feeText}</p><p class="inset">This wallet has no account numbers yet. An owner of this \
account gives the identity the central bank requires; then they appear here.</p>`;
  const body = html`<h1>${test ? 'Fund test wallet' : 'Fund wallet'}</h1>
${
  test
    ? html`<p>Test mode has its own Sandbox Bank account: transfers to it are simulated (<code>npx prepaid \
funding simulate-transfer</code>, or the form on this page) and only ever reach the test balance.</p>`
    : ''
}
${
  below
    ? html`<div class="warning" role="alert"><p><strong>Low balance.</strong> The balance is below your \
threshold of ${naira(funding.lowBalanceThresholdKobo)}.</p></div>`
    : ''
}
<dl class="summary-cards">
  <div class="card"><dt>${test ? 'Test balance' : 'Balance'}</dt><dd class="card__figure" \
id="balance">${naira(funding.balanceKobo)}</dd></div>
  <div class="card"><dt>Account id</dt><dd><code id="account-id">${funding.accountId}</code> <button \
type="button" class="button button--secondary" data-copy="account-id" hidden>Copy account id</button></dd></div>
</dl>
${refusalsNotice(funding.refusals, isOwner(viewer))}
${accounts}
${sandbox ? simulateForm(ctx, state.simulate) : ''}
<h2>Recent funding credits</h2>
${creditsTable(funding)}
${thresholdForm(ctx, funding.lowBalanceThresholdKobo, state.threshold?.value ?? '', state.threshold?.errors ?? [])}`;
  const notice = NOTICES[ctx.url.searchParams.get('done') ?? ''];
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page(
      {
        title: test ? 'Fund test wallet' : 'Fund wallet',
        current: '/fund',
        viewer,
        errors,
        ...(notice ? { notice } : {}),
      },
      body,
    ),
  };
}

export const fundRoutes: Route[] = [
  simulateRoute((ctx, simulate) => fundPage(ctx, { simulate })),
  {
    method: 'GET',
    path: '/fund',
    name: 'fund',
    signedIn: true,
    testMode: true,
    handler: (ctx) => fundPage(ctx),
  },
  {
    method: 'POST',
    path: '/fund',
    name: 'fund_open',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const get = (name: string) => (ctx.form.get(name) ?? '').trim();
      const values: KycValues = {
        kind: get('kind') === 'nin' ? 'nin' : 'bvn',
        firstName: get('first_name'),
        lastName: get('last_name'),
        phone: get('phone'),
        email: get('email'),
        bankCode: get('bank_code'),
        bankAccount: get('bank_account'),
      };
      try {
        const opened = await ctx.core.holderFunding.openSessionFunding({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          mode: coreMode(ctx.mode),
          kyc: {
            kind: values.kind,
            number: get('number'),
            firstName: values.firstName,
            lastName: values.lastName,
            phone: values.phone,
            email: values.email,
            bankCode: values.bankCode,
            bankAccount: values.bankAccount,
          },
        });
        const done = opened.accounts.length === 0 && opened.pending.length > 0 ? 'pending' : 'opened';
        return { kind: 'redirect', location: ctx.link(`/fund?done=${done}`) };
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind !== 'invalid' && refusal.kind !== 'refused') throw error;
        const errors: FieldError[] = [];
        for (const [name, message] of refusal.fields) {
          const [formField, label] = KYC_FIELDS[name] ?? ['number', ''];
          errors.push({
            field: formField,
            message: sentence(/^must\b/.test(message) ? `${label} ${message}` : message),
          });
        }
        if (errors.length === 0) errors.push({ field: 'number', message: refusal.message });
        return fundPage(ctx, { kyc: { values, errors } });
      }
    },
  },
  {
    method: 'POST',
    path: '/fund/low-balance',
    name: 'fund_low_balance',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const value = (ctx.form.get('threshold') ?? '').trim();
      const thresholdKobo = koboOfInput(value);
      if (thresholdKobo === undefined) {
        return fundPage(ctx, {
          threshold: {
            value,
            errors: [{ field: 'threshold', message: 'Enter an amount in Naira, for example 5,000, or 0.' }],
          },
        });
      }
      try {
        await ctx.core.holderFunding.setSessionLowBalanceThreshold({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          mode: coreMode(ctx.mode),
          thresholdKobo,
        });
        return {
          kind: 'redirect',
          location: ctx.link(`/fund?done=${thresholdKobo === 0n ? 'threshold-removed' : 'threshold'}`),
        };
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind !== 'invalid') throw error;
        const message = refusal.fields.get('threshold') ?? refusal.message;
        return fundPage(ctx, { threshold: { value, errors: [{ field: 'threshold', message: sentence(message) }] } });
      }
    },
  },
];

/** A message of the core as a sentence for the page. */
function sentence(message: string): string {
  const text = message.trim();
  return text.endsWith('.') ? text : `${text}.`;
}
