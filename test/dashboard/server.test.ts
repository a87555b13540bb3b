/**
 * The developer area over real HTTP, in front of a real core, without a browser: the headers
 * on every answer, templates that escape, the CSRF refusal, the way back to sign-in, the
 * static files and the configuration's rules. The flows themselves run in a real browser in
 * browser.test.ts.
 */
import * as assert from 'uvu/assert';
import { loadDashboardConfig } from '../../dashboard/config.js';
import { lagosTime, naira } from '../../dashboard/format.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { html, trusted } from '../../web/html.js';
import { createCsrf } from '../../web/security.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ core: TestCore; dashboard: TestDashboard }>('dashboard: server', {} as never);

test.before(async (context) => {
  context.core = await startCore();
  context.dashboard = await startTestDashboard(context.core);
});
test.after(async ({ core, dashboard }) => {
  await dashboard.close();
  await core.close();
});

/** The cookie pairs of Set-Cookie headers, ready for a Cookie header. */
function cookiePairs(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .join('; ');
}

test('html`` escapes every interpolation, keeps its own fragments, and only trusted() passes markup', () => {
  const evil = `<script>alert("x")</script>' onmouseover='1`;
  assert.is(
    html`<p title="${evil}">${evil}</p>`.text,
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; ' +
      'onmouseover=&#39;1">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;1</p>',
  );
  assert.is(
    html`<ul>${['a<', 'b'].map((item) => html`<li>${item}</li>`)}</ul>`.text,
    '<ul><li>a&lt;</li><li>b</li></ul>',
  );
  assert.is(html`${null}${undefined}${false}${0}`.text, '0');
  assert.is(html`${trusted('<b>made here</b>')}`.text, '<b>made here</b>');
});

test('Naira with thousands separators and times in Lagos', () => {
  assert.is(naira(123450n), '₦1,234.50');
  assert.is(naira(100_000_000_00n), '₦100,000,000.00');
  assert.is(naira(-9700n), '−₦97.00');
  // 23:30 UTC is 00:30 the next day in Lagos (UTC+1, no summer time).
  assert.is(
    lagosTime({ seconds: BigInt(Date.UTC(2026, 0, 31, 23, 30) / 1000), nanos: 0 } as never),
    '1 Feb 2026, 00:30',
  );
});

test('every answer carries the security headers; pages are not cached; the stylesheet and script are files', async ({
  dashboard,
}) => {
  for (const path of ['/sign-in', '/static/dashboard.css', '/static/dashboard.js', '/no-such-page']) {
    const response = await fetch(`${dashboard.url}${path}`);
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, "script-src 'self'", path);
    assert.match(csp, "style-src 'self'", path);
    assert.match(csp, "frame-ancestors 'none'", path);
    assert.not.match(csp, 'unsafe-inline', path);
    assert.is(response.headers.get('x-frame-options'), 'DENY', path);
    assert.is(response.headers.get('x-content-type-options'), 'nosniff', path);
    assert.is(response.headers.get('referrer-policy'), 'no-referrer', path);
    if (!path.startsWith('/static/')) assert.is(response.headers.get('cache-control'), 'no-store', path);
    await response.arrayBuffer();
  }
  const page = await (await fetch(`${dashboard.url}/sign-in`)).text();
  assert.not.match(page, /<script>|<style|style="|onclick=/i, 'no inline script or style');
  assert.match(page, '<link rel="stylesheet" href="/static/dashboard.css">');
  assert.match(page, /<label class="label" for="email">Email address<\/label>/);
  assert.match(page, /<label class="label" for="password">Password<\/label>/);
});

test('the visitor cookie is HttpOnly and SameSite, and Secure when the public address is https', async ({
  core,
  dashboard,
}) => {
  const plain = await fetch(`${dashboard.url}/sign-in`);
  const cookie = plain.headers.getSetCookie()[0] ?? '';
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.not.match(cookie, /Secure/);
  const behindTls = await startTestDashboard(core, { DASHBOARD_PUBLIC_URL: 'https://dashboard.example.ng' });
  try {
    const secure = await fetch(`${behindTls.url}/sign-in`);
    assert.match(secure.headers.getSetCookie()[0] ?? '', /; Secure/);
  } finally {
    await behindTls.close();
  }
});

test(
  "a POST without its CSRF token, or with another browser's, is refused with a page that says so, before " +
    'the core is asked',
  async ({ dashboard }) => {
    const first = await fetch(`${dashboard.url}/sign-in`);
    const cookies = cookiePairs(first);
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies };
    const without = await fetch(`${dashboard.url}/sign-in`, {
      method: 'POST',
      headers: form,
      body: 'email=a%40b.ng&password=whatever-long-enough',
    });
    assert.is(without.status, 403);
    assert.match(await without.text(), 'That form could not be accepted');
    const forged = createCsrf('another-secret-of-at-least-32-characters').forVisitor('someone-else');
    const wrong = await fetch(`${dashboard.url}/sign-in`, {
      method: 'POST',
      headers: form,
      body: `email=a%40b.ng&password=x&csrf_token=${forged}`,
    });
    assert.is(wrong.status, 403);
    const signedInForm = await fetch(`${dashboard.url}/keys`, {
      method: 'POST',
      headers: { ...form, cookie: `${cookies}; prepaid_session=forged` },
      body: 'x=1',
    });
    assert.is(signedInForm.status, 403, 'a signed-in form without its token');
    await signedInForm.arrayBuffer();
  },
);

test('a signed-in page without a session, or with one the core does not know, goes back to sign-in', async ({
  dashboard,
}) => {
  const none = await fetch(`${dashboard.url}/keys`, { redirect: 'manual' });
  assert.is(none.status, 303);
  assert.is(none.headers.get('location'), '/sign-in');
  const unknown = await fetch(`${dashboard.url}/transactions`, {
    redirect: 'manual',
    headers: { cookie: 'prepaid_session=not-a-session-the-core-knows' },
  });
  assert.is(unknown.status, 303);
  assert.is(unknown.headers.get('location'), '/sign-in?ended=1');
  assert.match(unknown.headers.getSetCookie().join('\n'), /prepaid_session=; .*Max-Age=0/);
});

test(
  'test mode is a path prefix: only pages that honour the mode exist under /test, each with the banner and ' +
    'its links kept in test mode',
  async ({ core, dashboard }) => {
    assert.is(
      (await fetch(`${dashboard.url}/test/keys`, { redirect: 'manual' })).headers.get('location'),
      '/sign-in',
      'signed-in there too',
    );
    assert.is((await fetch(`${dashboard.url}/test/sign-in`)).status, 404, 'no public page under /test');
    const { accountId } = await core.createApiAccount();
    const { invitation } = await core
      .clientWithToken(UserAdminService, core.adminToken)
      .inviteUser({ accountId, email: 'modes@example.ng', role: UserRole.OWNER });
    await dashboard.client.holder.acceptInvitation({
      invitationToken: invitation!.invitationToken,
      password: 'a long enough password',
    });
    const signedIn = await dashboard.client.holder.signIn({
      email: 'modes@example.ng',
      password: 'a long enough password',
      clientIp: '127.0.0.1',
    });
    const get = (path: string) =>
      fetch(`${dashboard.url}${path}`, {
        redirect: 'manual',
        headers: { cookie: `prepaid_session=${signedIn.sessionToken}` },
      });
    for (const path of [
      '/test',
      '/test/keys',
      '/test/transactions',
      '/test/statement',
      '/test/prices',
      '/test/developers',
      '/test/funds',
    ]) {
      const answer = await get(path);
      assert.is(answer.status, 200, path);
      const body = await answer.text();
      assert.match(body, 'class="test-banner"', `${path} has the Test mode banner`);
      assert.match(body, 'href="/test/transactions"', `${path} keeps test mode in its links`);
    }
    assert.not.match(await (await get('/keys')).text(), 'class="test-banner"', 'no banner live');
    // The account's own pages have no test side; Add test funds has no live one.
    for (const path of ['/test/users', '/test/security', '/funds']) assert.is((await get(path)).status, 404, path);
  },
);

test('request log lines name the route, never the path: an invitation token stays out of the log', async ({
  dashboard,
}) => {
  const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdef';
  await (await fetch(`${dashboard.url}/invite/${token}`)).arrayBuffer();
  const lines = JSON.stringify(dashboard.logged);
  assert.match(lines, '"route":"invitation"');
  assert.not.match(lines, token);
});

test('the CSV export streams every page of the history in order, formula-like cells neutralised', async ({
  core,
  dashboard,
}) => {
  // More rows than one export page of the core (500), so the stream must ask again.
  const PURCHASES = 520;
  const { accountId } = await core.createApiAccount({ balanceKobo: PURCHASES * 100_00 });
  for (let i = 0; i < PURCHASES; i++) {
    await core.purchase.buyAirtime({
      accountId,
      network: 'mtn',
      phone: '08031234567',
      amountKobo: 100_00n,
      requestId: i === 0 ? '-cmd' : `order-${i}`,
    });
  }
  const { invitation } = await core
    .clientWithToken(UserAdminService, core.adminToken)
    .inviteUser({ accountId, email: 'export@example.ng', role: UserRole.VIEWER });
  await dashboard.client.holder.acceptInvitation({
    invitationToken: invitation!.invitationToken,
    password: 'a long enough password',
  });
  const signedIn = await dashboard.client.holder.signIn({
    email: 'export@example.ng',
    password: 'a long enough password',
    clientIp: '127.0.0.1',
  });
  const response = await fetch(`${dashboard.url}/transactions.csv?product=airtime`, {
    headers: { cookie: `prepaid_session=${signedIn.sessionToken}` },
  });
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-disposition') ?? '', 'attachment; filename="transactions.csv"');
  assert.is(response.headers.get('cache-control'), 'no-store');
  const lines = (await response.text()).trim().split('\r\n');
  assert.is(lines.length, PURCHASES + 1, 'a header and every purchase');
  const references = lines.slice(1).map((line) => line.split(',')[0]!);
  assert.is(new Set(references).size, PURCHASES, 'no row twice');
  assert.match(lines.at(-1)!, ",'-cmd", 'the oldest, last; its request id cannot run as a formula');
});

test('the configuration: defaults, the secure-cookie rule, and refusals that name the variable', () => {
  const defaults = loadDashboardConfig({ SERVICE_TOKEN: 'a-service-token-for-tests' });
  assert.is(defaults.port, 8081);
  assert.is(defaults.publicUrl, 'http://localhost:8081');
  assert.is(defaults.secureCookies, false);
  assert.is(loadDashboardConfig({ DASHBOARD_PUBLIC_URL: 'https://dev.example.ng/' }).secureCookies, true);
  assert.is(loadDashboardConfig({ DASHBOARD_SECURE_COOKIES: 'yes' }).secureCookies, true);
  assert.throws(
    () => loadDashboardConfig({ DASHBOARD_PUBLIC_URL: 'https://dev.example.ng', DASHBOARD_SECURE_COOKIES: 'no' }),
    /DASHBOARD_SECURE_COOKIES/,
  );
  assert.throws(() => loadDashboardConfig({ DASHBOARD_SECRET: 'short' }), /DASHBOARD_SECRET: must be at least 32/);
  assert.throws(
    () => loadDashboardConfig({ DASHBOARD_TRUSTED_PROXIES: 'proxy.internal' }),
    /DASHBOARD_TRUSTED_PROXIES/,
  );
  assert.throws(() => loadDashboardConfig({ DASHBOARD_PUBLIC_URL: 'ftp://x' }), /DASHBOARD_PUBLIC_URL/);
});

test.run();
