/**
 * The one outbound HTTP client (runtime/outbound-http.ts), on real sockets: a redirect is handed
 * back and never followed, an answer past its bound is refused (declared or streamed), and why no
 * answer came is read one way: a refused connection is never written, while silence after the
 * request was sent, a reset and a body cut off after the headers prove nothing.
 */
import http from 'node:http';
import net from 'node:net';
import * as assert from 'uvu/assert';
import { neverWritten, type OutboundAnswer, outboundClient } from '../../runtime/outbound-http.js';
import { suite } from '../helpers/suite.js';

const test = suite('the outbound HTTP client');

const SECRET = 'sk_live_do_not_show_me';

/** A server on port 0 whose handler is `handle`; resolves with its URL and a close. */
async function serve(
  handle: http.RequestListener,
): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server = http.createServer((request, response) => {
    hits += 1;
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const client = outboundClient({ connections: 4, timeoutMs: 5_000 });

function post(url: string, maxBytes = 1_024, signal = AbortSignal.timeout(5_000)): Promise<OutboundAnswer> {
  return client.send({
    url: new URL(url),
    method: 'POST',
    headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
    body: '{"a":1}',
    signal,
    maxBytes,
  });
}

/** Nothing secret in what a caller may log: the answer without the raw error. */
function loggable(answer: OutboundAnswer): string {
  const { error: _error, ...rest } = answer as OutboundAnswer & { error?: unknown };
  return JSON.stringify(rest);
}

test('a redirect is handed back and not followed: the other host never sees our headers', async () => {
  const elsewhere = await serve((_request, response) => response.end('{}'));
  const redirecting = await serve((_request, response) => {
    response.writeHead(307, { location: elsewhere.url }).end('moved');
  });
  try {
    const answer = await post(redirecting.url);
    assert.equal(answer, { kind: 'redirect', status: 307 });
    assert.is(elsewhere.hits(), 0, 'the redirect target was never called');
  } finally {
    await redirecting.close();
    await elsewhere.close();
  }
});

test('an answer past the bound is refused, whether its length is declared or streamed', async () => {
  const declared = await serve((_request, response) => response.end('x'.repeat(2_000)));
  const streamed = await serve((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('y'.repeat(800));
    response.end('y'.repeat(800));
  });
  try {
    assert.equal(await post(declared.url), { kind: 'too_large', status: 200 });
    assert.equal(await post(streamed.url), { kind: 'too_large', status: 200 });
    assert.equal(await post(declared.url, 4_096), { kind: 'answer', status: 200, text: 'x'.repeat(2_000) });
  } finally {
    await declared.close();
    await streamed.close();
  }
});

test('a refused connection is never written; its reading names no secret', async () => {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const answer = await post(`http://127.0.0.1:${port}/`);
  assert.is(answer.kind, 'no_answer');
  if (answer.kind !== 'no_answer') return;
  assert.is(answer.cause, 'refused');
  assert.is(answer.code, 'ECONNREFUSED');
  assert.is(answer.afterHeaders, false);
  assert.ok(neverWritten(answer.cause));
  assert.not.match(loggable(answer), SECRET);
});

test('silence after the request was sent is a time-out, which proves nothing', async () => {
  let received = false;
  const silent = await serve((request) => {
    request.resume();
    received = true;
  });
  try {
    const answer = await post(silent.url, 1_024, AbortSignal.timeout(200));
    assert.ok(received, 'the request did arrive');
    assert.is(answer.kind, 'no_answer');
    if (answer.kind !== 'no_answer') return;
    assert.is(answer.cause, 'timeout');
    assert.not.ok(neverWritten(answer.cause));
  } finally {
    await silent.close();
  }
});

test('a reset after the request arrived, and a body cut off after the headers, prove nothing', async () => {
  const resetting = await serve((request) => {
    request.on('end', () => request.socket.destroy());
    request.resume();
  });
  const cut = await serve((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-length': '100' });
    response.write('{"partial":');
    setImmediate(() => response.socket?.destroy());
  });
  try {
    const reset = await post(resetting.url);
    assert.is(reset.kind, 'no_answer');
    if (reset.kind === 'no_answer') {
      assert.is(reset.cause, 'reset');
      assert.is(reset.afterHeaders, false);
      assert.not.ok(neverWritten(reset.cause));
    }
    const partial = await post(cut.url);
    assert.is(partial.kind, 'no_answer');
    if (partial.kind === 'no_answer') {
      assert.is(partial.afterHeaders, true);
      assert.is(partial.cause, 'reset');
      assert.not.ok(neverWritten(partial.cause));
    }
  } finally {
    await resetting.close();
    await cut.close();
  }
});

test.after(async () => {
  await client.destroy();
});

test.run();
