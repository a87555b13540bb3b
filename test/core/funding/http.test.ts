/**
 * A funding provider's call that gets no readable answer is an error its caller handles, never a
 * crash: a redirect (not followed) and an answer past the bound once destroyed the answer's body
 * with no listener, and undici's abort error took the whole core down.
 */
import http from 'node:http';
import type net from 'node:net';
import * as assert from 'uvu/assert';
import { requestJson } from '../../../core/funding/http.js';
import { suite } from '../../helpers/suite.js';

const test = suite('funding providers over HTTP');

async function serve(handle: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The message the call was rejected with ('' when it was not). */
async function refusal(reply: Promise<unknown>): Promise<string> {
  try {
    await reply;
    return '';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A call's options; its deadline starts when it is made (uvu loads every file before it runs any). */
function call() {
  return { method: 'GET' as const, authorization: 'Bearer sk_test_x', signal: AbortSignal.timeout(5_000) };
}

test('a redirect and an answer past the bound are errors, and the process lives on', async () => {
  const redirecting = await serve((_request, response) =>
    response.writeHead(302, { location: 'http://127.0.0.1:9/' }).end('moved'),
  );
  const huge = await serve((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    for (let i = 0; i < 20; i += 1) response.write('x'.repeat(64 * 1024));
    response.end();
  });
  const fine = await serve((_request, response) => response.end('{"status":true}'));
  try {
    assert.match(await refusal(requestJson(redirecting.url, call(), 'paystack')), 'paystack: redirect refused (302)');
    assert.match(await refusal(requestJson(huge.url, call(), 'monnify')), 'monnify: answer too large');
    // A turn of the event loop, where an unheard abort error would have been thrown.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await requestJson(fine.url, call(), 'paystack'), { status: 200, body: { status: true } });
  } finally {
    await redirecting.close();
    await huge.close();
    await fine.close();
  }
});

test.run();
