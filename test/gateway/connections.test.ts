/**
 * Bounded connections: clients that pipeline requests and never read the answers cannot make
 * the gateway hold an answer for every request they send, and a normal client is still
 * answered meanwhile.
 */
import net from 'node:net';
import * as assert from 'uvu/assert';
import { MAX_PIPELINED_REQUESTS } from '../../runtime/http-bounds.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const flood = suite('gateway connections under a pipelining flood');
let core: TestCore;
let gateway: TestGateway;

flood.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core);
});

flood.after(async () => {
  await gateway?.close();
  await core?.close();
});

const SOCKETS = 200;
const REQUESTS_PER_SOCKET = 200;

/** Opens a socket that sends `count` pipelined requests in one write and never reads. */
async function nonReader(count: number): Promise<net.Socket> {
  const socket = net.connect({ port: gateway.port, host: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  socket.pause();
  socket.write('GET /api/v1?action=balance HTTP/1.1\r\nHost: gateway\r\n\r\n'.repeat(count));
  return socket;
}

flood('sockets that pipeline hundreds of requests and never read get at most the bound served', async () => {
  const partner = await core.createApiAccount({ balanceKobo: 100_000 });
  const answeredBefore = gateway.logged.filter((line) => line.message === 'http.request').length;
  const sockets = await Promise.all(Array.from({ length: SOCKETS }, () => nonReader(REQUESTS_PER_SOCKET)));
  try {
    // Meanwhile a partner's request is answered as usual.
    const reply = await gateway.request({ query: { action: 'balance' }, keys: partner });
    assert.is(reply.status, 200, reply.text);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answered = gateway.logged.filter((line) => line.message === 'http.request').length - answeredBefore;
    // Unbounded, the gateway would have built an answer for each of the 40,000 requests.
    assert.ok(answered <= SOCKETS * MAX_PIPELINED_REQUESTS + 1, `answered ${answered} requests`);
    assert.ok(answered >= 1);
  } finally {
    for (const socket of sockets) socket.destroy();
  }
});

flood.run();
