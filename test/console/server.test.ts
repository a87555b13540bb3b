/**
 * The console's port over plain HTTP: it keeps the shared bounds (a flood of pipelined
 * requests gets at most the bound answered), odd paths are a 404, a POST without its CSRF
 * token never reaches the core, a session cookie planted before sign-in is replaced by the
 * core's fresh token (no fixation), and every answer carries the strict CSP and no-store.
 */
import net from 'node:net';
import * as assert from 'uvu/assert';
import {
  HEADERS_TIMEOUT_MS,
  MAX_OPEN_CONNECTIONS,
  MAX_PIPELINED_REQUESTS,
  SOCKET_IDLE_TIMEOUT_MS,
} from '../../runtime/http-bounds.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { consoleClients, STAFF_PASSWORD, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ core: TestCore; app: TestConsole; clock: TestClock }>('console: its port', {} as never);

test.before(async (context) => {
  context.clock = new TestClock();
  context.core = await startCore({ clock: context.clock.now });
  context.app = await startTestConsole(context.core);
});
test.after(async ({ app, core }) => {
  await app.close();
  await core.close();
});

const port = (app: TestConsole) => Number(new URL(app.url).port);

async function connect(to: number): Promise<net.Socket> {
  const socket = net.connect({ port: to, host: '127.0.0.1' });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** The cookies a response sets, as name -> value. */
function cookiesOf(response: Response): Map<string, string> {
  return new Map(
    response.headers.getSetCookie().map((line) => {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      return [pair.slice(0, at), pair.slice(at + 1)] as [string, string];
    }),
  );
}

test('the server keeps the shared bounds, and pipelined floods get at most the bound answered', async ({ app }) => {
  assert.is(app.server.maxConnections, MAX_OPEN_CONNECTIONS);
  assert.is(app.server.headersTimeout, HEADERS_TIMEOUT_MS);
  assert.is(app.server.timeout, SOCKET_IDLE_TIMEOUT_MS);
  const SOCKETS = 20;
  const before = app.logged.length;
  const sockets: net.Socket[] = [];
  try {
    for (let i = 0; i < SOCKETS; i++) {
      const socket = await connect(port(app));
      socket.pause();
      socket.write('GET /healthz HTTP/1.1\r\nHost: console\r\n\r\n'.repeat(200));
      sockets.push(socket);
    }
    let answered = -1;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const now = app.logged.length - before;
      if (now === answered) break;
      answered = now;
    }
    assert.ok(answered >= 1 && answered <= SOCKETS * MAX_PIPELINED_REQUESTS, `answered ${answered}`);
  } finally {
    for (const socket of sockets) socket.destroy();
  }
});

test('odd paths are a 404; answers carry the strict CSP and are never cached', async ({ app }) => {
  for (const path of ['//', '/\\', '//evil.example/sign-in', '/%', '/setup/short']) {
    const answer = await fetch(`${app.url}${path}`, { redirect: 'manual' }).catch(() => null);
    if (answer !== null) assert.is(answer.status, 404, path);
  }
  const signIn = await fetch(`${app.url}/sign-in`);
  assert.match(signIn.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.is(signIn.headers.get('cache-control'), 'no-store');
  assert.is(signIn.headers.get('x-frame-options'), 'DENY');
  assert.match(
    signIn.headers.getSetCookie().join('\n'),
    /prepaid_staff_visitor=[^;]+; Path=\/; HttpOnly; SameSite=Lax/,
  );
});

test('a POST lacking its CSRF token is refused before the core; a planted session cookie is reset at sign-in', async ({
  app,
  core,
  clock,
}) => {
  const forged = await fetch(`${app.url}/sign-in`, {
    method: 'POST',
    body: new URLSearchParams({ email: 'x@y.ng', password: 'p', totp_code: '1' }),
    redirect: 'manual',
  });
  assert.is(forged.status, 403);

  const { staffAdmin, console } = consoleClients(core);
  const { setupUrl } = await staffAdmin.inviteStaff({ email: 'femi@ops.example.ng', role: 'support' });
  const setupToken = setupUrl.split('/setup/')[1]!;
  const { totpSecret } = await console.getStaffSetup({ setupToken });
  await console.completeStaffSetup({
    setupToken,
    password: STAFF_PASSWORD,
    totpCode: clock.nextCode(totpSecret),
    clientAddress: '127.0.0.1',
  });

  const planted = 'planted-by-an-attacker-0123456789';
  const page = await fetch(`${app.url}/sign-in`, { headers: { cookie: `prepaid_staff_session=${planted}` } });
  const visitor = cookiesOf(page).get('prepaid_staff_visitor')!;
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())![1]!;
  const signedIn = await fetch(`${app.url}/sign-in`, {
    method: 'POST',
    headers: {
      cookie: `prepaid_staff_visitor=${visitor}; prepaid_staff_session=${planted}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      csrf_token: csrf,
      email: 'femi@ops.example.ng',
      password: STAFF_PASSWORD,
      totp_code: clock.nextCode(totpSecret),
    }),
    redirect: 'manual',
  });
  assert.is(signedIn.status, 303);
  const session = cookiesOf(signedIn).get('prepaid_staff_session');
  assert.ok(session !== undefined && session !== planted && session.length === 43, 'a fresh token from the core');
  const planter = await fetch(`${app.url}/`, {
    headers: { cookie: `prepaid_staff_session=${planted}` },
    redirect: 'manual',
  });
  assert.is(planter.status, 303, 'the planted value signs nobody in');
  assert.match(planter.headers.get('location') ?? '', /^\/sign-in/);
});

test.run();
