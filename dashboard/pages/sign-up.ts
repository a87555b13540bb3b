/**
 * Signing up (docs/sign-up.md): the form, and its one answer, "Check your email", the same
 * whether or not the email is known (the core decides after answering). Shown only when the
 * core says sign-up is open (SIGNUP=open); otherwise the page says accounts come by invitation,
 * with 404. Every field's rule is the core's: the page shows its sentences beside the fields.
 */
import { SignUpOutcome } from '../../gen/prepaid/v1/holder_pb.js';
import { html } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { csrfField, type FieldError, field, page } from '../layout.js';
import type { Answer, PageContext, Route } from '../route.js';

const FIELDS = ['name', 'email', 'phone', 'password'] as const;
type Values = Record<(typeof FIELDS)[number], string>;
const EMPTY: Values = { name: '', email: '', phone: '', password: '' };

function closedPage(): Answer {
  return {
    kind: 'page',
    status: 404,
    body: page(
      { title: 'Accounts are by invitation' },
      html`<h1>Accounts are by invitation</h1>
<p>This platform does not take sign-ups. The operator of the platform opens accounts and invites their first \
person by email; ask them for an invitation.</p>
<p><a href="/sign-in">Sign in</a> if you have an account already.</p>`,
    ),
  };
}

function signUpForm(ctx: PageContext, values: Values, errors: FieldError[], status?: number): Answer {
  const body = html`<h1>Create an account</h1>
<p>Try everything in the test world at once, with test money. Live funding and live purchases open once you \
have verified your email address and your mobile number.</p>
<form method="post" action="/sign-up" novalidate>
  ${csrfField(ctx.visitorCsrf)}
  ${field({
    name: 'name',
    label: 'Business name or your name',
    value: values.name,
    autocomplete: 'organization',
    autofocus: true,
    errors,
  })}
  ${field({ name: 'email', label: 'Email address', type: 'email', value: values.email, autocomplete: 'email', errors })}
  ${field({
    name: 'phone',
    label: 'Mobile number',
    hint: 'A Nigerian number such as 08031234567 or +2348031234567. We send it a code by SMS.',
    inputmode: 'tel',
    value: values.phone,
    autocomplete: 'tel',
    width: 'input--medium',
    errors,
  })}
  ${field({
    name: 'password',
    label: 'Password',
    type: 'password',
    hint: 'At least 12 characters.',
    autocomplete: 'new-password',
    errors,
  })}
  <button type="submit" class="button">Create account</button>
</form>
<p>Have an account already? <a href="/sign-in">Sign in</a>.</p>`;
  return {
    kind: 'page',
    status: status ?? formStatus(errors),
    body: page({ title: 'Create an account', errors }, body),
  };
}

/** The one answer to a sign-up taken, whatever the email. */
function sentPage(email: string, mailConfigured: boolean): Answer {
  return {
    kind: 'page',
    status: 200,
    body: page(
      { title: 'Check your email' },
      html`<h1>Check your email</h1>
<p>${
        mailConfigured
          ? html`We have sent a link to <strong>${email}</strong>. Open it to verify your email address; it works \
once, for 24 hours.`
          : html`This platform does not send email yet: ask its operator to verify <strong>${email}</strong>.`
      }</p>
<p>You can <a href="/sign-in">sign in</a> now with your email address and password, and try the test world while \
you wait. If you had an account with this email already, sign in with it, or use "Forgot password?".</p>`,
    ),
  };
}

async function isOpen(ctx: PageContext): Promise<boolean> {
  return (await ctx.core.holder.getSignUpForm({})).open;
}

async function signUp(ctx: PageContext): Promise<Answer> {
  const values: Values = { ...EMPTY };
  for (const name of FIELDS) values[name] = (ctx.form.get(name) ?? '').slice(0, 1_000);
  let answer: Awaited<ReturnType<typeof ctx.core.holder.signUp>>;
  try {
    answer = await ctx.core.holder.signUp({ ...values, clientIp: ctx.clientIp });
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid') throw error;
    const errors = FIELDS.filter((name) => refusal.fields.has(name)).map((name) => ({
      field: name,
      message: refusal.fields.get(name)!,
    }));
    return signUpForm(
      ctx,
      { ...values, password: '' },
      errors.length > 0 ? errors : [{ field: 'name', message: refusal.message }],
    );
  }
  if (answer.outcome === SignUpOutcome.CLOSED) return closedPage();
  if (answer.outcome === SignUpOutcome.THROTTLED) {
    const minutes = Math.max(1, Math.ceil(answer.retryAfterSeconds / 60));
    const wait = minutes >= 120 ? `${Math.ceil(minutes / 60)} hours` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
    const message = `Too many sign-ups from your network just now. Wait ${wait}, then try again.`;
    return signUpForm(ctx, { ...values, password: '' }, [{ field: 'email', message }], 429);
  }
  return sentPage(values.email.trim(), answer.mailConfigured);
}

export const signUpRoutes: Route[] = [
  {
    method: 'GET',
    path: '/sign-up',
    name: 'sign_up',
    signedIn: false,
    handler: async (ctx) => ((await isOpen(ctx)) ? signUpForm(ctx, EMPTY, []) : closedPage()),
  },
  { method: 'POST', path: '/sign-up', name: 'sign_up', signedIn: false, handler: signUp },
];
