/**
 * The web apps' one request door (web/door.ts), through both apps in front of one real core: the
 * developer area and the console refuse a form whose CSRF token is not this browser's the same
 * way, each under its own cookie names; a session the core no longer knows clears the app's
 * cookie and lands on sign-in with the same "session ended" words; a signed-in form without a
 * session cookie goes to sign-in; a path for another method is a 405 and a param that does not
 * decode a 404.
 */
import * as assert from 'uvu/assert';
import { SESSION_ENDED_NOTICE } from '../../web/door.js';
import { createCsrf } from '../../web/security.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { suite } from '../helpers/suite.js';

interface App {
  name: string;
  url: string;
  session: string;
  visitor: string;
  /** A signed-in page of the app. */
  signedInPage: string;
}

const test = suite<{ core: TestCore; dashboard: TestDashboard; console: TestConsole; apps: App[] }>(
  'web: the door',
  {} as never,
);

test.before(async (context) => {
  context.core = await startCore();
  context.dashboard = await startTestDashboard(context.core);
  context.console = await startTestConsole(context.core);
  context.apps = [
    {
      name: 'the developer area',
      url: context.dashboard.url,
      session: 'prepaid_session',
      visitor: 'prepaid_visitor',
      signedInPage: '/keys',
    },
    {
      name: 'the console',
      url: context.console.url,
      session: 'prepaid_staff_session',
      visitor: 'prepaid_staff_visitor',
      signedInPage: '/',
    },
  ];
});
test.after(async ({ core, dashboard, console }) => {
  await dashboard.close();
  await console.close();
  await core.close();
});

/** The value a response sets for cookie `name`, if it sets one. */
function cookieSet(response: Response, name: string): string | undefined {
  for (const line of response.headers.getSetCookie())
    if (line.startsWith(`${name}=`)) return line.split(';')[0]!.slice(name.length + 1);
  return undefined;
}

/** A visitor of an app's sign-in page: its visitor cookie's value and the CSRF token its form carries. */
async function visit(app: App): Promise<{ visitorId: string; token: string }> {
  const signIn = await fetch(`${app.url}/sign-in`);
  const visitorId = cookieSet(signIn, app.visitor);
  assert.type(visitorId, 'string', `${app.name} sets its own visitor cookie, ${app.visitor}`);
  const token = /name="csrf_token" value="([^"]+)"/.exec(await signIn.text())?.[1];
  assert.type(token, 'string', `${app.name}'s sign-in form carries a token`);
  return { visitorId: visitorId!, token: token! };
}

function postForm(app: App, path: string, cookie: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${app.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
}

test("a form whose token is not this browser's is refused the same way by both apps, under each app's cookie names", async ({
  apps,
}) => {
  const pages: string[] = [];
  for (const app of apps) {
    const { visitorId, token } = await visit(app);
    const other = apps.find((a) => a !== app)!;
    const sign = { email: 'nobody@example.ng', password: 'not-the-password-at-all' };
    const forged = createCsrf('another-secret-of-at-least-32-characters').forVisitor(visitorId);
    const refusals = [
      await postForm(app, '/sign-in', `${app.visitor}=${visitorId}`, { ...sign, csrf_token: forged }),
      await postForm(app, '/sign-in', `${app.visitor}=${visitorId}`, sign),
      // The right token, but the visitor cookie under the other app's name: not this app's browser.
      await postForm(app, '/sign-in', `${other.visitor}=${visitorId}`, { ...sign, csrf_token: token }),
    ];
    for (const refused of refusals) {
      assert.is(refused.status, 403, app.name);
      const text = await refused.text();
      assert.match(text, 'That form could not be accepted');
      pages.push(/<main[^>]*>([\s\S]*?)<\/main>/.exec(text)?.[1]?.match(/<p>[^<]*<\/p>/)?.[0] ?? '');
    }
    const accepted = await postForm(app, '/sign-in', `${app.visitor}=${visitorId}`, { ...sign, csrf_token: token });
    assert.is.not(accepted.status, 403, `${app.name} lets its own browser's token through to the core`);
    assert.not.match(await accepted.text(), 'That form could not be accepted');
  }
  assert.ok(pages[0] !== '', 'the refusal says why');
  for (const sentence of pages) assert.is(sentence, pages[0], 'one sentence for every such refusal');
});

test('a session the core does not know clears its cookie and lands on sign-in, which says so in the same words', async ({
  apps,
}) => {
  for (const app of apps) {
    const unknown = await fetch(`${app.url}${app.signedInPage}`, {
      redirect: 'manual',
      headers: { cookie: `${app.session}=not-a-session-the-core-knows` },
    });
    assert.is(unknown.status, 303, app.name);
    assert.is(unknown.headers.get('location'), '/sign-in?ended=1', app.name);
    assert.match(unknown.headers.getSetCookie().join('\n'), new RegExp(`${app.session}=; .*Max-Age=0`));
    const signIn = await fetch(`${app.url}${unknown.headers.get('location')}`);
    assert.ok((await signIn.text()).includes(SESSION_ENDED_NOTICE), `${app.name} says the session ended`);
  }
});

test('a signed-in form from a browser without a session cookie goes to sign-in in both apps', async ({ apps }) => {
  for (const app of apps) {
    const { visitorId, token } = await visit(app);
    const ended = await postForm(app, '/sign-out', `${app.visitor}=${visitorId}`, { csrf_token: token });
    assert.is(ended.status, 303, app.name);
    assert.is(ended.headers.get('location'), '/sign-in?ended=1', app.name);
  }
});

test('a path for another method is a 405 in both apps; a param that does not decode is a 404', async ({
  apps,
  console,
}) => {
  for (const app of apps) {
    const wrongMethod = await fetch(`${app.url}/sign-out`, { redirect: 'manual' });
    assert.is(wrongMethod.status, 405, app.name);
    assert.is(wrongMethod.headers.get('allow'), 'GET, POST');
    assert.match(await wrongMethod.text(), 'That is not possible here');
  }
  const undecodable = await fetch(`${console.url}/accounts/%E0%A4%A`, {
    redirect: 'manual',
    headers: { cookie: 'prepaid_staff_session=whoever' },
  });
  assert.is(undecodable.status, 404);
  assert.match(await undecodable.text(), 'Page not found');
});

test.run();
