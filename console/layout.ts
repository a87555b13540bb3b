/**
 * The console's page frame: one stylesheet, no script, a heading, the member and the sign-out
 * button, and the navigation. Everything is escaped by web/html.ts unless built by it.
 */
import { html, type SafeHtml } from '../web/html.js';
import { CSRF_FIELD } from '../web/security.js';

/** Who is signed in, as the core said, and the token their forms carry. */
export interface StaffViewer {
  email: string;
  role: string;
  csrfToken: string;
}

/** The navigation: each page's link, and the roles it is shown to where not every role's (the core still decides). */
const NAV: ReadonlyArray<readonly [string, string, (readonly string[])?]> = [
  ['/', 'Attention'],
  ['/accounts', 'Accounts'],
  ['/transactions', 'Transactions'],
  ['/blocklist', 'Blocked numbers'],
  ['/kyc', 'Identity levels'],
  ['/credit', 'Propose a credit'],
  ['/debit', 'Propose a debit'],
  ['/audit', 'Audit log'],
  ['/catalogue/tiers', 'Tiers'],
  ['/catalogue/plans', 'Data plans'],
  ['/catalogue/costs', 'Airtime, power, cable'],
  ['/settings', 'Settings'],
  ['/staff', 'Staff'],
  ['/reports', 'Reports'],
  ['/books', 'Books', ['finance', 'admin']],
];

/** The hidden CSRF field every form of a signed-in page carries. */
export const csrfField = (viewer: StaffViewer): SafeHtml =>
  html`<input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrfToken}">`;

export function page(title: string, body: SafeHtml, viewer?: StaffViewer): SafeHtml {
  return html`<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="The operator's console of the prepaid services platform: the attention queue, \
accounts, four-eyes money moves, the catalogue, settings, staff and reports.">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<title>${title} · Operator's console</title>
<link rel="stylesheet" href="/static/console.css">
</head>
<body>
<header class="top">
<p class="brand">Operator's console</p>
${
  viewer
    ? html`<nav aria-label="Main">${NAV.filter(([, , roles]) => roles === undefined || roles.includes(viewer.role)).map(
        ([href, label]) => html`<a href="${href}">${label}</a> `,
      )}</nav>
<form method="post" action="/sign-out" class="inline">${csrfField(viewer)}
<span class="who">${viewer.email} (${viewer.role})</span> <button type="submit" class="link">Sign out</button></form>`
    : ''
}
</header>
<main>${body}</main>
</body>
</html>`;
}

/** A page with a heading and one sentence. */
export function messagePage(title: string, sentence: string, viewer?: StaffViewer): SafeHtml {
  return page(title, html`<h1>${title}</h1><p>${sentence}</p><p><a href="/">Go to the attention queue</a></p>`, viewer);
}
