/**
 * Where webhooks may go: https to public addresses only, checked again at connection time
 * on the address actually dialled, so a name that resolves inward (DNS rebinding) never
 * reaches our network. WEBHOOK_ALLOW_PRIVATE=true is what lets the other tests use
 * loopback receivers; here it is off.
 */
import http from 'node:http';
import net from 'node:net';
import { Code, ConnectError } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { checkWebhookUrl, createPoster, isPublicAddress } from '../../core/webhooks/destination.js';
import { WebhookService } from '../../gen/prepaid/v1/webhooks_pb.js';
import { startCore } from '../helpers/core.js';
import { startReceiver } from '../helpers/receiver.js';
import { suite } from '../helpers/suite.js';

const test = suite('webhook destinations');

test('private, loopback, link-local and reserved addresses are not public; ordinary ones are', () => {
  for (const address of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fc00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '224.0.0.1',
  ]) {
    assert.not.ok(isPublicAddress(address), address);
  }
  for (const address of ['8.8.8.8', '41.58.1.1', '2606:4700::1111', '::ffff:8.8.8.8'])
    assert.ok(isPublicAddress(address), address);
});

test('a URL is refused unless https to a public host, with no credentials', () => {
  for (const url of [
    'http://hooks.example.com/x',
    'https://127.0.0.1/x',
    'https://10.0.0.5/x',
    'https://[::1]/x',
    'https://[::ffff:7f00:1]/x',
    'https://169.254.169.254/latest/meta-data',
    'https://localhost/x',
    'https://intranet/x',
    'https://user:pw@hooks.example.com/x',
    'https://hooks.example.com/x#frag',
    `https://hooks.example.com/${'a'.repeat(2_100)}`,
    'hooks.example.com/x',
    // Port 0 is no port: nothing can be dialled there.
    'https://example.com:0/',
    'https://[2606:4700::1111]:0/x',
  ]) {
    assert.ok(checkWebhookUrl(url, false).problem, url);
  }
  assert.ok(checkWebhookUrl('http://127.0.0.1:0/x', true).problem, 'port 0, even for development');
  // Public IP literals are public addresses, IPv6 ones too (in brackets, as URLs write them).
  for (const url of ['https://[2606:4700::1111]/x', 'https://[2a00:1450:4001:82b::200e]:8443/x', 'https://8.8.8.8/x'])
    assert.is(checkWebhookUrl(url, false).url?.href, url, url);
  assert.is(checkWebhookUrl('https://hooks.example.com/x', false).url?.href, 'https://hooks.example.com/x');
  assert.is(
    checkWebhookUrl('http://127.0.0.1:8080/x', true).url?.href,
    'http://127.0.0.1:8080/x',
    'allowed for development',
  );
});

test('a name that resolves to a private address is refused when connecting; nothing reaches it', async () => {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const resolved: string[] = [];
  const poster = createPoster({
    allowPrivate: false,
    // A DNS server that answers with loopback: what a rebinding attack looks like.
    resolve: (hostname, _options, callback) => {
      resolved.push(hostname);
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    },
  });
  try {
    const result = await poster.post(`https://receiver.example:${port}/hooks`, '{}', {
      'Content-Type': 'application/json',
    });
    assert.is(result.status, 0);
    assert.match(result.error ?? '', /not public/);
    assert.equal(resolved, ['receiver.example'], 'the name was resolved at connection time');
    assert.is(connections, 0, 'no connection was made');
  } finally {
    poster.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A receiver on loopback answering with `handle`; its URL, and how many requests it saw. */
async function localReceiver(
  handle: http.RequestListener,
): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hooks`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test("one attempt's bounds: no redirect followed, long answers cut, silent ones dropped, refusals named", async () => {
  const poster = createPoster({ allowPrivate: true, timeoutMs: 300 });
  const redirect = await localReceiver((_req, res) => res.writeHead(302, { Location: '/elsewhere' }).end());
  let sent = 0;
  const long = await localReceiver((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    // Far more than MAX_ANSWER_BYTES, written as long as the client reads.
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const more = () => {
      while (sent < 64 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
      if (sent < 64 * 1024 * 1024) res.once('drain', more);
      else res.end();
    };
    res.on('close', () => res.removeAllListeners('drain'));
    more();
  });
  const silent = await localReceiver(() => {});
  try {
    assert.equal(await poster.post(redirect.url, '{}', {}), { status: 302, error: 'the receiver answered 302' });
    assert.is(redirect.requests(), 1, 'the redirect was not followed');
    assert.equal(await poster.post(long.url, '{}', {}), { status: 200, error: null });
    assert.ok(sent < 16 * 1024 * 1024, `the answer was not read to its end (${sent} bytes written)`);
    assert.equal(await poster.post(silent.url, '{}', {}), { status: 0, error: 'no answer within 0.3 s' });
    const closed = silent.url.replace(/:\d+\//, ':1/');
    assert.equal(await poster.post(closed, '{}', {}), { status: 0, error: 'could not connect (ECONNREFUSED)' });
  } finally {
    poster.close();
    await Promise.all([redirect.close(), long.close(), silent.close()]);
  }
});

test('attempts that share a deadline each get at least their whole time before they are given up', async () => {
  const poster = createPoster({ allowPrivate: true, timeoutMs: 300 });
  const silent = await localReceiver(() => {});
  try {
    // Started 40 ms apart, so the later ones join a deadline the first one opened.
    const attempts = [0, 40, 80].map(async (delayMs) => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const started = performance.now();
      const result = await poster.post(silent.url, '{}', {});
      return { result, tookMs: performance.now() - started };
    });
    for (const { result, tookMs } of await Promise.all(attempts)) {
      assert.equal(result, { status: 0, error: 'no answer within 0.3 s' });
      // A shared deadline may end an attempt a little late, never early.
      assert.ok(tookMs >= 299, `given up after ${tookMs.toFixed(0)} ms`);
    }
  } finally {
    poster.close();
    await silent.close();
  }
});

test('without WEBHOOK_ALLOW_PRIVATE the core refuses a private destination', async () => {
  const core = await startCore({ webhooks: { allowPrivate: false, pollIntervalMs: 25 } });
  const receiver = await startReceiver();
  try {
    const { accountId } = await core.createApiAccount();
    const webhooks = core.clientWithToken(WebhookService, core.adminToken);
    for (const url of [receiver.url, `https://127.0.0.1:${receiver.port}/hooks`]) {
      const code = await webhooks.setWebhook({ accountId, url }).then(
        () => null,
        (error: unknown) => ConnectError.from(error),
      );
      assert.is(code?.code, Code.InvalidArgument, url);
      assert.match(code?.rawMessage ?? '', /url must/);
    }
    assert.is(receiver.received.length, 0);
  } finally {
    await receiver.stop();
    await core.close();
  }
});

test.run();
