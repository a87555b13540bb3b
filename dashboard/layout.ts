/**
 * The frame of every page and the pieces forms are made of, in the GOV.UK Design System's
 * manner: one job per page under one <h1>, a visible label on every field, errors summarised
 * at the top (each linking to its field) and repeated beside the field in a plain sentence,
 * buttons named by what they do. The stylesheet and the one script are files (the CSP allows
 * nothing inline); every form works without the script.
 */
import type { HolderAccount, HolderSession } from '../gen/prepaid/v1/holder_pb.js';
import { UserRole } from '../gen/prepaid/v1/holder_pb.js';
import { html, type SafeHtml } from '../web/html.js';
import { CSRF_FIELD } from '../web/security.js';

/** A problem with the submitted form: the field it concerns (its id) and a plain sentence. */
export interface FieldError {
  field: string;
  message: string;
}

/** Which world a page shows: the live wallet and keys, or the test ones (under /test). */
export type DashboardMode = 'live' | 'test';

/** What the frame of a signed-in page needs. */
export interface Viewer {
  session: HolderSession;
  /** Every account the person may act for; more than one shows the account switcher. */
  accounts: readonly HolderAccount[];
  csrfToken: string;
  mode: DashboardMode;
}

/** `path` in `mode`: test pages live under /test (the overview is /test itself). */
export function modePath(mode: DashboardMode, path: string): string {
  if (mode === 'live') return path;
  return path === '/' ? '/test' : path.startsWith('/?') ? `/test${path.slice(1)}` : `/test${path}`;
}

export function isOwner(viewer: Viewer): boolean {
  return viewer.session.user?.role === UserRole.OWNER;
}

/**
 * The navigation, in the order a holder needs them; the third value says whether the section
 * has a test mode (its link keeps /test). Recipients, Users and Security are the account's, in no mode;
 * Webhooks shows the live and the test endpoint on one page.
 */
const NAV: ReadonlyArray<readonly [string, string, boolean]> = [
  ['/', 'Overview', true],
  ['/fund', 'Fund wallet', true],
  ['/buy', 'Buy', true],
  ['/keys', 'API keys', true],
  ['/prices', 'Prices', true],
  ['/transactions', 'Transactions', true],
  ['/statement', 'Statement', true],
  ['/developers', 'Developers', true],
  ['/webhooks', 'Webhooks', true],
  ['/recipients', 'Recipients', false],
  ['/users', 'Users', false],
  ['/security', 'Security', false],
];

export interface PageOptions {
  title: string;
  /** The path of the navigation entry to mark as current. */
  current?: string;
  /** Signed in: the account header, navigation and sign-out. */
  viewer?: Viewer;
  errors?: readonly FieldError[];
  /** A sentence confirming what was just done. */
  notice?: string;
}

/** A whole HTML document. */
export function page(options: PageOptions, body: SafeHtml): SafeHtml {
  const { viewer } = options;
  const title = options.errors && options.errors.length > 0 ? `Error: ${options.title}` : options.title;
  return html`<!doctype html>
<html lang="en-NG">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="The developer area of the prepaid services platform: sell airtime, data, \
electricity, cable TV and bulk SMS, manage API keys, prices, transactions and webhooks.">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<title>${viewer?.mode === 'test' ? 'Test mode: ' : ''}${title} · Prepaid developer area</title>
<link rel="stylesheet" href="/static/dashboard.css">
<script src="/static/dashboard.js" defer></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
${viewer?.mode === 'test' ? testBanner() : ''}
${viewer?.session.accountSuspended ? suspendedBanner() : ''}
<header class="site-header${viewer?.mode === 'test' ? ' site-header--test' : ''}">
  <div class="site-header__inner">
    <a class="site-header__brand" href="/">Prepaid<span class="site-header__brand-long"> developer area</span></a>
    ${viewer ? accountBar(viewer) : ''}
  </div>
  ${viewer ? navigation(viewer.mode, options.current) : ''}
</header>
<main id="main" class="main">
${options.notice ? html`<div class="notice" role="status"><p>${options.notice}</p></div>` : ''}
${errorSummary(options.errors ?? [])}
${body}
</main>
<footer class="site-footer"><p>Times are shown in Lagos time (WAT). Amounts are in Naira.</p></footer>
</body>
</html>`;
}

function accountBar(viewer: Viewer): SafeHtml {
  const { session } = viewer;
  const role = session.user?.role === UserRole.OWNER ? 'owner' : 'viewer';
  return html`<div class="account-bar">
    <p class="account-bar__who"><span class="account-bar__account"><span class="visually-hidden">Account: \
</span>${session.accountName}</span>
      <span class="account-bar__user">${session.user?.email} (${role})</span></p>
    ${viewer.accounts.length > 1 ? accountSwitcher(viewer) : ''}
    <form method="post" action="/sign-out" class="inline-form">
      ${formFields(viewer)}
      <button type="submit" class="button button--secondary">Sign out</button>
    </form>
  </div>`;
}

/**
 * The account switcher, for a person in several accounts: a POST (with the CSRF token) that
 * the core checks against the person's memberships; the session then acts for that account.
 */
function accountSwitcher(viewer: Viewer): SafeHtml {
  const current = viewer.session.user?.accountId ?? '';
  return html`<form method="post" action="/account" class="inline-form account-switch">
      ${formFields(viewer)}
      <label for="switch-account" class="account-switch__label">Switch account</label>
      <select id="switch-account" name="account" class="select account-switch__select">
        ${viewer.accounts.map(
          (one) =>
            html`<option value="${one.accountId}"${
              one.accountId === current ? html` selected` : ''
            }>${one.name}${one.accountId === current ? ' (this one)' : ''}</option>`,
        )}
      </select>
      <button type="submit" class="button button--secondary">Switch</button>
    </form>`;
}

function navigation(mode: DashboardMode, current: string | undefined): SafeHtml {
  return html`<div class="site-nav__bar"><nav class="site-nav" aria-label="Sections"><ul>
    ${NAV.map(
      ([href, label, hasTest]) =>
        html`<li><a href="${hasTest ? modePath(mode, href) : href}"${
          href === current ? html` aria-current="page"` : ''
        }>${label}</a></li>`,
    )}
  </ul></nav>
  ${modeSwitch(mode, current)}</div>`;
}

/**
 * Live / Test: the same section in the other mode (a section without a test mode switches to
 * the overview). The current mode is marked, in words as well as in colour.
 */
function modeSwitch(mode: DashboardMode, current: string | undefined): SafeHtml {
  const section = NAV.find(([href]) => href === current);
  const target = section?.[2] === true ? section[0] : '/';
  const live = mode === 'live' ? (current ?? '/') : target;
  const link = (to: DashboardMode, href: string, label: string) =>
    to === mode
      ? html`<li><a href="${href}" aria-current="true" class="mode-switch__on">${label}<span \
class="visually-hidden"> (shown now)</span></a></li>`
      : html`<li><a href="${href}">${label}</a></li>`;
  return html`<nav class="mode-switch" aria-label="Mode"><ul>
    ${link('live', live, 'Live')}
    ${link('test', modePath('test', target), 'Test')}
  </ul></nav>`;
}

/** Above everything while in test mode: no doubt which money a page is about. */
/** The core refuses every change while the platform has the account suspended; the banner says why forms fail. */
function suspendedBanner(): SafeHtml {
  return html`<div class="suspended-banner" role="alert">
  <p><strong>This account is suspended.</strong> Its API keys answer 401 and nothing here can be changed until \
the platform resumes it. Contact support.</p>
</div>`;
}

function testBanner(): SafeHtml {
  return html`<div class="test-banner" role="note" aria-label="Test mode">
  <p><strong class="test-banner__label">Test mode</strong> <span class="test-banner__more">You are looking at \
test keys and test money. Test purchases are never sent to a network or a biller, and nothing here touches \
your live balance.</span> <a href="/">Leave test mode</a></p>
</div>`;
}

/** The box at the top listing every problem, each a link to its field. */
function errorSummary(errors: readonly FieldError[]): SafeHtml {
  if (errors.length === 0) return html``;
  return html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1">
  <h2 id="error-summary-title" class="error-summary__title">There is a problem</h2>
  <ul class="error-summary__list">
    ${errors.map((e) => html`<li><a href="#${e.field}">${e.message}</a></li>`)}
  </ul>
</div>`;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

/** The hidden field that names the account a signed-in form was made for (route.ts formAccountId). */
export const FORM_ACCOUNT_FIELD = 'form_account';

/**
 * The hidden fields of every signed-in form: the CSRF token and the account the page was made for, which the
 * core checks against the account the session acts for when the form comes back (another tab may have switched
 * it). The mode needs no field: the form's action address carries it (/test/...), as every link does.
 */
export function formFields(viewer: Viewer): SafeHtml {
  return html`${csrfField(viewer.csrfToken)}<input type="hidden" name="${FORM_ACCOUNT_FIELD}" value="${
    viewer.session.user?.accountId ?? ''
  }">`;
}

export interface FieldOptions {
  /** id and name of the input. */
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'date' | 'number';
  value?: string;
  hint?: string;
  autocomplete?: string;
  /** inputmode, e.g. "numeric" for a TOTP code. */
  inputmode?: string;
  required?: boolean;
  errors?: readonly FieldError[];
  /** The field's class modifier, e.g. "input--short". */
  width?: string;
  /** The page's one job is this field (the sign-in code): it takes the focus on load. */
  autofocus?: boolean;
}

/** A labelled input with its hint and its error beside it. */
export function field(options: FieldOptions): SafeHtml {
  const error = options.errors?.find((e) => e.field === options.name);
  const describedBy = [options.hint ? `${options.name}-hint` : '', error ? `${options.name}-error` : '']
    .filter((id) => id !== '')
    .join(' ');
  return html`<div class="form-group${error ? ' form-group--error' : ''}">
  <label class="label" for="${options.name}">${options.label}</label>
  ${options.hint ? html`<p class="hint" id="${options.name}-hint">${options.hint}</p>` : ''}
  ${
    error
      ? html`<p class="error-message" id="${options.name}-error"><span \
class="visually-hidden">Error:</span> ${error.message}</p>`
      : ''
  }
  <input class="input${options.width ? ` ${options.width}` : ''}${
    error ? ' input--error' : ''
  }" id="${options.name}" name="${options.name}" type="${options.type ?? 'text'}"
    value="${options.value ?? ''}"${
      options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''
    }${options.inputmode ? html` inputmode="${options.inputmode}"` : ''}${
      options.required ? html` required` : ''
    }${options.autofocus ? html` autofocus` : ''}${
      describedBy ? html` aria-describedby="${describedBy}"` : ''
    }${error ? html` aria-invalid="true"` : ''}>
</div>`;
}

export interface SelectOptions {
  name: string;
  label: string;
  options: ReadonlyArray<readonly [string, string]>;
  value?: string;
  errors?: readonly FieldError[];
}

/** A labelled select with its error beside it. */
export function select(options: SelectOptions): SafeHtml {
  const error = options.errors?.find((e) => e.field === options.name);
  return html`<div class="form-group${error ? ' form-group--error' : ''}">
  <label class="label" for="${options.name}">${options.label}</label>
  ${
    error
      ? html`<p class="error-message" id="${options.name}-error"><span \
class="visually-hidden">Error:</span> ${error.message}</p>`
      : ''
  }
  <select class="select" id="${options.name}" name="${options.name}"${
    error ? html` aria-describedby="${options.name}-error" aria-invalid="true"` : ''
  }>
    ${options.options.map(
      ([value, label]) =>
        html`<option value="${value}"${value === options.value ? html` selected` : ''}>${label}</option>`,
    )}
  </select>
</div>`;
}

/** A secret shown once: the value, a copy button (the script shows it), and the warning. */
export function secretBox(label: string, id: string, value: string): SafeHtml {
  return html`<div class="secret">
  <p class="label" id="${id}-label">${label}</p>
  <p class="secret__value"><code id="${id}">${value}</code></p>
  <button type="button" class="button button--secondary" data-copy="${id}" hidden>Copy ${label.toLowerCase()}</button>
</div>`;
}

/** An empty state in a sentence. */
/**
 * The page that asks "are you sure?" before a step that cannot be undone (revoke a key, disable
 * a user): the question, what it will do, and a form that posts `hidden` with the CSRF token, or
 * a link back.
 */
export function confirmPage(options: {
  viewer: Viewer;
  title: string;
  current: string;
  question: SafeHtml | string;
  warning: string;
  action: string;
  hidden: Readonly<Record<string, string>>;
  /** The browser's own second question (dashboard.js), for a double click. */
  confirm: string;
  yes: string;
  no: { label: string; href: string };
}): SafeHtml {
  const { viewer } = options;
  const body = html`<h1>${options.question}</h1>
<div class="warning"><p>${options.warning}</p></div>
<form method="post" action="${options.action}" data-confirm="${options.confirm}">
  ${formFields(viewer)}
  ${Object.entries(options.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
  <div class="button-group">
    <button type="submit" class="button button--warning">${options.yes}</button>
    <a href="${options.no.href}" class="link-button">${options.no.label}</a>
  </div>
</form>`;
  return page({ title: options.title, current: options.current, viewer }, body);
}

export function empty(text: string): SafeHtml {
  return html`<p class="empty">${text}</p>`;
}
