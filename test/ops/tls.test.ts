/**
 * TLS between the core and its clients, with certificates the test makes:
 * the core serves TLS when given CORE_TLS_CERT and CORE_TLS_KEY, the gateway and the CLI
 * reach it over an https:// CORE_URL verified against CORE_TLS_CA, a certificate from
 * another CA is refused, https:// never falls back to plain text, and a client never sends
 * its token in plain text to another machine unless the operator opted in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import type net from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { startCore } from '../../core/main.js';
import { createCoreClients } from '../../gateway/core-client.js';
import { startGateway } from '../../gateway/main.js';
import { ConfigError } from '../../runtime/env-schema.js';
import { readPem } from '../../runtime/tls.js';
import { runWith } from '../cli/run.js';
import { makeCertificates, type TestCertificates } from '../helpers/certs.js';
import { startCore as startPlainCore } from '../helpers/core.js';
import { send } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite('ops: TLS to the core');

const quiet = { info: () => {}, error: () => {} };
let certs: TestCertificates;
let dataDir: string;
let core: Awaited<ReturnType<typeof startCore>>;

test.before(async () => {
  certs = makeCertificates();
  dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-tls-'));
  core = await startCore({
    DATA_DIR: dataDir,
    CORE_PORT: '0',
    CORE_METRICS_PORT: 'off',
    LOG_LEVEL: 'silent',
    CORE_TLS_CERT: certs.certFile,
    CORE_TLS_KEY: certs.keyFile,
  });
});

test.after(async () => {
  await core?.close();
  rmSync(dataDir, { recursive: true, force: true });
  certs?.remove();
});

/**
 * A plaintext HTTP/2 (h2c) listener that records every connection and the headers of every
 * request that reaches it (HPACK-decoded, so a token is found however it was encoded), and
 * answers each call UNAVAILABLE at once.
 */
async function eavesdropper(
  host: string,
): Promise<{ port: number; heard(): string; connections(): number; close(): Promise<void> }> {
  const heard: string[] = [];
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = http2.createServer();
  server.on('connection', (socket: net.Socket) => {
    count++;
    sockets.add(socket);
  });
  server.on('stream', (stream, headers) => {
    heard.push(JSON.stringify(headers));
    stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '14', 'grpc-message': 'eavesdropper' },
      { endStream: true },
    );
  });
  server.on('sessionError', () => {});
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    heard: () => heard.join('\n'),
    connections: () => count,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

test('the gateway reaches a TLS core over https:// with CORE_TLS_CA: health and an authenticated call', async () => {
  const gateway = await startGateway(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      CORE_URL: `https://localhost:${core.port}`,
      CORE_TLS_CA: certs.caFile,
      DATA_DIR: dataDir,
    },
    quiet,
  );
  try {
    const health = await send(gateway.port, '', { path: '/healthz' });
    assert.is(health.status, 200, health.text);
    // A wrong key pair is checked by the core's auth service with the service token: a 401
    // from the core, not the 503 of a core the gateway cannot reach.
    const reply = await send(gateway.port, '/api/v1', {
      query: { action: 'balance' },
      keys: { publicKey: 'pk_nobody', secretKey: 'sk_nothing' },
    });
    assert.is(reply.status, 401, reply.text);
    assert.is(reply.json.code, 'INVALID_API_KEY');
  } finally {
    await gateway.close();
  }
});

test('the CLI reaches a TLS core over https:// with CORE_TLS_CA', async () => {
  const run = await runWith(['tiers', 'list'], {
    CORE_URL: `https://127.0.0.1:${core.port}`,
    CORE_TLS_CA: certs.caFile,
    DATA_DIR: dataDir,
  });
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, 'api');
});

test('a certificate from another CA, or one the system does not know, is refused', async () => {
  for (const ca of [readPem('CORE_TLS_CA', certs.otherCaFile), undefined]) {
    const clients = createCoreClients({
      coreUrl: `https://localhost:${core.port}`,
      serviceToken: 'a-service-token-for-tests',
      ...(ca === undefined ? {} : { ca }),
    });
    try {
      await clients.health.check({ service: '' });
      assert.unreachable('the call succeeded');
    } catch (error) {
      assert.instance(error, ConnectError);
      assert.is((error as ConnectError).code, Code.Unavailable);
      assert.match((error as ConnectError).rawMessage, /certificate/i);
    } finally {
      clients.close();
    }
  }
  const gateway = await startGateway(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      CORE_URL: `https://localhost:${core.port}`,
      CORE_TLS_CA: certs.otherCaFile,
      DATA_DIR: dataDir,
    },
    quiet,
  );
  try {
    const health = await send(gateway.port, '', { path: '/healthz' });
    assert.is(health.status, 503, 'the gateway does not trust the core');
  } finally {
    await gateway.close();
  }
});

test('https:// always means TLS: a plaintext core is not spoken to in the clear', async () => {
  const plain = await startPlainCore();
  const listener = await eavesdropper('127.0.0.1');
  try {
    const clients = createCoreClients({
      coreUrl: plain.url.replace('http://', 'https://'),
      serviceToken: plain.serviceToken,
      ca: readPem('CORE_TLS_CA', certs.caFile),
    });
    await clients.health.check({ service: '' }).then(
      () => assert.unreachable('a plaintext core answered an https:// call'),
      (error: unknown) => assert.is((error as ConnectError).code, Code.Unavailable),
    );
    clients.close();
    // And what an https:// client sends a plaintext listener is a TLS handshake, never the token.
    const eavesdropped = createCoreClients({
      coreUrl: `https://127.0.0.1:${listener.port}`,
      serviceToken: plain.serviceToken,
    });
    await eavesdropped.health.check({ service: '' }).catch(() => undefined);
    eavesdropped.close();
    assert.ok(listener.connections() > 0, 'the client did connect');
    assert.not.match(listener.heard(), plain.serviceToken);
    assert.not.match(listener.heard(), 'authorization');
  } finally {
    await listener.close();
    await plain.close();
  }
});

test('a client never sends its token in plain text to another machine unless the operator opted in', async () => {
  const listener = await eavesdropper('127.0.0.1');
  const token = 'a-service-token-that-must-not-travel';
  // 127.0.0.1 stands in for another machine here: the check that decides is injected.
  const remote = () => false;
  try {
    assert.throws(
      () =>
        createCoreClients({ coreUrl: `http://127.0.0.1:${listener.port}`, serviceToken: token, isLoopback: remote }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.variable === 'CORE_URL' &&
        error.message.includes('CORE_ALLOW_PLAINTEXT=yes'),
    );
    assert.is(listener.connections(), 0, 'refused before any connection');
    // The opt-in is honoured, and the listener would indeed have heard the token: the check above could fail.
    const allowed = createCoreClients({
      coreUrl: `http://127.0.0.1:${listener.port}`,
      serviceToken: token,
      isLoopback: remote,
      allowPlaintext: true,
    });
    await allowed.health.check({ service: '' }).catch(() => undefined);
    allowed.close();
    assert.match(listener.heard(), token);
  } finally {
    await listener.close();
  }
});

test("on this machine's own network address, the gateway and the CLI refuse plain text before connecting", async () => {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')?.address;
  if (address === undefined) return; // No network interface but loopback: the injected check above covers it.
  const listener = await eavesdropper(address);
  try {
    const coreUrl = `http://${address}:${listener.port}`;
    await startGateway(
      { PORT: '0', HOST: '127.0.0.1', CORE_URL: coreUrl, SERVICE_TOKEN: 'a-service-token-that-must-not-travel' },
      quiet,
    ).then(
      async (running) => {
        await running.close();
        assert.unreachable('the gateway started');
      },
      (error: unknown) => {
        assert.instance(error, ConfigError);
        assert.is((error as ConfigError).variable, 'CORE_URL');
      },
    );
    const run = await runWith(['tiers', 'list'], {
      CORE_URL: coreUrl,
      ADMIN_TOKEN: 'an-admin-token-that-must-not-travel',
    });
    assert.is.not(run.code, 0);
    assert.match(run.stderr, 'CORE_ALLOW_PLAINTEXT=yes');
    assert.is(listener.connections(), 0, 'nobody connected');
  } finally {
    await listener.close();
  }
});

test.run();
