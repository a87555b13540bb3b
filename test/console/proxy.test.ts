/**
 * The console behind a proxy: X-Forwarded-For is believed only from CONSOLE_TRUSTED_PROXIES
 * (from any other peer a forged header changes nothing, so the sign-in throttle still counts
 * the connection's address); the console serves https itself with CONSOLE_TLS_CERT and
 * CONSOLE_TLS_KEY, with the same bounds; its session cookie is Secure over TLS or behind a
 * TLS proxy, by the developer area's rule; half a TLS setting stops the start.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { loadConsoleConfig } from '../../console/config.js';
import { MAX_OPEN_CONNECTIONS } from '../../runtime/http-bounds.js';
import { makeCertificates, type TestCertificates } from '../helpers/certs.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  /** Trusts only 127.0.0.2 as a proxy. */
  app: TestConsole;
  certs: TestCertificates;
}

const test = suite<State>('console: behind a proxy, and its own TLS', {} as State);

test.before(async (state) => {
  state.core = await startCore({ clock: new TestClock().now });
  state.app = await startTestConsole(state.core, undefined, { trustedProxies: ['127.0.0.2'] });
  state.certs = makeCertificates();
});
test.after(async (state) => {
  await state.app.close();
  await state.core.close();
  state.certs.remove();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request from `localAddress` (127.0.0.1 plays staff, 127.0.0.2 the trusted proxy). */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        localAddress: options.localAddress ?? '127.0.0.1',
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A failed sign-in for `email`, from `localAddress`, saying it forwards for `forwardedFor`. */
async function failSignIn(app: TestConsole, email: string, forwardedFor: string, localAddress: string) {
  const page = await send(`${app.url}/sign-in`, { localAddress });
  const visitor = (page.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!).join('; ');
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  const body = new URLSearchParams({ csrf_token: csrf, email, password: 'not the password', totp_code: '000000' });
  return send(`${app.url}/sign-in`, {
    method: 'POST',
    localAddress,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: visitor,
      'x-forwarded-for': forwardedFor,
    },
    body: body.toString(),
  });
}

test('X-Forwarded-For from an untrusted peer is ignored: its failures all count against the connection', async ({
  app,
}) => {
  const email = 'ada@ops.example.ng';
  // Five failures for one email and address are free; each claims another address.
  for (let i = 1; i <= 5; i++) {
    const answer = await failSignIn(app, email, `203.0.113.${i}`, '127.0.0.1');
    assert.is(answer.status, 400);
    assert.match(answer.text, /The email, password or code is not right/);
  }
  const sixth = await failSignIn(app, email, '203.0.113.6', '127.0.0.1');
  assert.is(sixth.status, 400);
  assert.match(sixth.text, /Too many attempts/, 'the forged addresses were not believed');
});

test("a trusted proxy's X-Forwarded-For is believed: each forwarded client has its own budget", async ({ app }) => {
  const email = 'bola@ops.example.ng';
  for (let i = 1; i <= 6; i++) {
    const answer = await failSignIn(app, email, `198.51.100.${i}`, '127.0.0.2');
    assert.is(answer.status, 400);
    assert.match(answer.text, /The email, password or code is not right/, `attempt ${i} from its own client`);
  }
  // The same client through the proxy six times is throttled like anyone.
  for (let i = 1; i <= 5; i++) await failSignIn(app, 'chi@ops.example.ng', '198.51.100.9', '127.0.0.2');
  assert.match((await failSignIn(app, 'chi@ops.example.ng', '198.51.100.9', '127.0.0.2')).text, /Too many attempts/);
});

test('with a certificate and key the console serves https only, with the same bounds', async ({ core, certs }) => {
  const app = await startTestConsole(core, undefined, {
    tls: { cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) },
  });
  try {
    assert.match(app.url, /^https:/);
    assert.is(app.server.maxConnections, MAX_OPEN_CONNECTIONS);
    const { port } = app.server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port, path: '/sign-in', ca: readFileSync(certs.caFile) }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        })
        .on('error', reject);
    });
    assert.is(answer.status, 200);
    assert.match(answer.text, /Sign in/);
    const plain = await send(`http://127.0.0.1:${port}/sign-in`, {}).catch((error: Error) => error);
    assert.ok(plain instanceof Error || plain.status !== 200, 'plain http is not served');
  } finally {
    await app.close();
  }
});

test("the session cookie is Secure over TLS or behind a TLS proxy (the developer area's rule)", ({ certs }) => {
  const tls = { CONSOLE_TLS_CERT: certs.certFile, CONSOLE_TLS_KEY: certs.keyFile };
  assert.is(loadConsoleConfig({}).secureCookies, false, 'plain http on this machine');
  assert.is(loadConsoleConfig(tls).secureCookies, true, 'its own TLS');
  assert.equal(loadConsoleConfig(tls).tls, { certFile: certs.certFile, keyFile: certs.keyFile });
  assert.is(loadConsoleConfig({ CONSOLE_PUBLIC_URL: 'https://console.example.ng' }).secureCookies, true, 'a TLS proxy');
  assert.is(loadConsoleConfig({ CONSOLE_SECURE_COOKIES: 'yes' }).secureCookies, true);
  assert.throws(
    () => loadConsoleConfig({ ...tls, CONSOLE_SECURE_COOKIES: 'no' }),
    /CONSOLE_SECURE_COOKIES/,
    'a cookie sent over https must be Secure',
  );
  assert.throws(() => loadConsoleConfig({ CONSOLE_TLS_KEY: certs.keyFile }), /CONSOLE_TLS_CERT/);
  assert.throws(() => loadConsoleConfig({ CONSOLE_TLS_CERT: certs.certFile }), /CONSOLE_TLS_KEY/);
  assert.equal(loadConsoleConfig({ CONSOLE_TRUSTED_PROXIES: '10.0.0.1, 10.1.0.0/16' }).trustedProxies, [
    '10.0.0.1',
    '10.1.0.0/16',
  ]);
  assert.throws(() => loadConsoleConfig({ CONSOLE_TRUSTED_PROXIES: 'proxy.example' }), /CONSOLE_TRUSTED_PROXIES/);
});

test.run();
