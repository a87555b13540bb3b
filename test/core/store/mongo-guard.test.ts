/**
 * The start-up guard through the real driver: the core refuses a standalone server, a
 * server too old or one without sessions, and goes on past the guard with a replica set
 * or a mongos. The servers are fakes that answer the driver's handshake and `hello`
 * (mongo-wire.ts), since no MongoDB runs on the development machines; they refuse every
 * other command, which is how a test sees that the guard let the core through.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { UnsuitableDeploymentError } from '../../../core/store/mongo/guard.js';
import { openMongoStore } from '../../../core/store/mongo/index.js';
import { suite } from '../../helpers/suite.js';
import { type FakeMongo, type FakeTopology, startFakeMongo } from './mongo-wire.js';

const PROJECT_DIR = fileURLToPath(new URL('../../../', import.meta.url));
/** Node and tsx start in a second or two here; the refusal itself is immediate. */
const SPAWN_TIMEOUT_MS = 30_000;
/** How long the closed client may take to drop its connections to the fake. */
const DISCONNECT_WAIT_MS = 2_000;

const test = suite('mongo store: the start-up guard against a server');

let fake: FakeMongo | undefined;

test.after.each(async () => {
  await fake?.close();
  fake = undefined;
});

/** Opens the store against a fake with the given `hello`; resolves with what openMongoStore threw. */
async function openAgainst(topology: FakeTopology): Promise<unknown> {
  fake = await startFakeMongo(topology);
  try {
    const store = await openMongoStore({
      uri: fake.uri,
      dbName: 'prepaid_guard',
      clientOptions: { serverSelectionTimeoutMS: 2_000 },
    });
    await store.close();
  } catch (error) {
    return error;
  }
  throw new Error('openMongoStore should have failed against the fake');
}

async function waitForNoConnections(server: FakeMongo): Promise<void> {
  const deadline = Date.now() + DISCONNECT_WAIT_MS;
  while (server.openConnections() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

test('a standalone server is refused before anything is written, and the connection is closed', async () => {
  const error = await openAgainst({ maxWireVersion: 21 });
  assert.instance(error, UnsuitableDeploymentError);
  assert.match(
    (error as Error).message,
    /^Refusing to start on this MongoDB deployment: MongoDB is a standalone server/,
  );
  assert.equal(
    fake!.commands.filter((c) => c !== 'endSessions'),
    [],
    'no command beyond hello reached the server',
  );
  await waitForNoConnections(fake!);
  assert.is(fake!.openConnections(), 0, 'the refused client closed its connections');
});

test('a replica set too old for the store, or without sessions, is refused', async () => {
  const old = await openAgainst({ setName: 'rs0', maxWireVersion: 13 });
  assert.instance(old, UnsuitableDeploymentError);
  assert.match(
    (old as Error).message,
    /MongoDB 5\.0 \(wire version 13\) is too old: the store needs MongoDB 6\.0 or newer/,
  );
  await fake!.close();

  const sessionless = await openAgainst({ setName: 'rs0', maxWireVersion: 21, noSessions: true });
  assert.instance(sessionless, UnsuitableDeploymentError);
  assert.match((sessionless as Error).message, /logical sessions/);
});

test('a replica set primary and a mongos pass the guard and reach the schema step', async () => {
  for (const topology of [
    { setName: 'rs0', maxWireVersion: 21 },
    { mongos: true, maxWireVersion: 25 },
  ] satisfies FakeTopology[]) {
    const error = await openAgainst(topology);
    assert.not.instance(error, UnsuitableDeploymentError, JSON.stringify(topology));
    // The fake refuses the first schema read; reaching it proves the guard let the store through.
    assert.match((error as Error).message, /the fake MongoDB does not run find/);
    // First the featureCompatibilityVersion is asked (a refusal lets the store through), then the schema read.
    assert.equal(fake!.commands.slice(0, 2), ['getParameter', 'find']);
    await fake!.close();
    fake = undefined;
  }
});

test('core/main.ts on a standalone MongoDB exits 1 with the reason, without listening', async () => {
  fake = await startFakeMongo({ maxWireVersion: 21 });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-guard-'));
  try {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !/^(MONGODB_|CORE_|DATA_DIR|ADMIN_TOKEN|SERVICE_TOKEN)/.test(name),
      ),
    );
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'core/main.ts'], {
        cwd: PROJECT_DIR,
        env: { ...inherited, MONGODB_URI: fake!.uri, DATA_DIR: dataDir, CORE_PORT: '0' },
        timeout: SPAWN_TIMEOUT_MS,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    assert.is(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /Start-up failed: Refusing to start on this MongoDB deployment: MongoDB is a standalone server/,
    );
    assert.not.match(result.stdout, /core\.listening/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
