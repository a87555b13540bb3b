/**
 * The data directory is private: DATA_DIR is 0700 and the database, its
 * WAL and the token files are 0600, also when the directory existed before with loose
 * permissions; a token file that is too short is refused with a message that says what to
 * do; and a second core on the same DATA_DIR refuses to start, while a lock left by a core
 * that was killed does not block a restart.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { startCore } from '../../core/main.js';
import { SQLITE_FILE } from '../../core/store/index.js';
import { LOCK_FILE } from '../../runtime/data-dir.js';
import { ADMIN_TOKEN_FILE, SERVICE_TOKEN_FILE } from '../../runtime/tokens.js';
import { suite } from '../helpers/suite.js';

const test = suite('ops: a private data directory');

function env(dataDir: string): Record<string, string> {
  return { DATA_DIR: dataDir, CORE_PORT: '0', CORE_METRICS_PORT: 'off', LOG_LEVEL: 'silent' };
}

function mode(file: string): string {
  return (statSync(file).mode & 0o777).toString(8);
}

async function refusal(start: Promise<unknown>): Promise<Error> {
  try {
    const running = (await start) as { close(): Promise<void> };
    await running.close();
  } catch (error) {
    return error as Error;
  }
  throw new Error('the core started');
}

/** The pid of a process that has exited and been reaped. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.on('error', reject);
    child.on('close', () => resolve(child.pid!));
  });
}

test('a loose DATA_DIR and loose files in it become 0700 and 0600; new files are born 0600', async () => {
  const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'prepaid-private-')), 'data');
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o777);
  writeFileSync(path.join(dataDir, ADMIN_TOKEN_FILE), 'an-admin-token-that-is-long-enough\n', { mode: 0o644 });
  chmodSync(path.join(dataDir, ADMIN_TOKEN_FILE), 0o644);
  writeFileSync(path.join(dataDir, 'notes.txt'), 'the operator keeps this here', { mode: 0o644 });
  chmodSync(path.join(dataDir, 'notes.txt'), 0o644);
  const running = await startCore(env(dataDir));
  try {
    assert.is(mode(dataDir), '700');
    assert.is(mode(path.join(dataDir, ADMIN_TOKEN_FILE)), '600', 'the old token file');
    assert.is(mode(path.join(dataDir, SERVICE_TOKEN_FILE)), '600', 'the new token file');
    assert.is(mode(path.join(dataDir, SQLITE_FILE)), '600', 'the database');
    assert.is(mode(path.join(dataDir, `${SQLITE_FILE}-wal`)), '600', 'its write-ahead log');
    assert.is(mode(path.join(dataDir, LOCK_FILE)), '600', 'the lock');
    assert.is(mode(path.join(dataDir, 'notes.txt')), '644', "a file that is not the service's is left alone");
  } finally {
    await running.close();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
});

test('a token file shorter than 16 characters is refused with a message naming it and what to do', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-private-'));
  try {
    writeFileSync(path.join(dataDir, SERVICE_TOKEN_FILE), 'short\n', { mode: 0o600 });
    const error = await refusal(startCore(env(dataDir)));
    assert.match(error.message, path.join(dataDir, SERVICE_TOKEN_FILE));
    assert.match(error.message, 'holds a token of 5 characters; at least 16 are required');
    assert.match(error.message, 'Delete the file');
    assert.is(
      readFileSync(path.join(dataDir, SERVICE_TOKEN_FILE), 'utf8'),
      'short\n',
      'the file is not replaced behind the clients',
    );
    // The refusal released the directory: a fixed token file starts.
    writeFileSync(path.join(dataDir, SERVICE_TOKEN_FILE), 'a-service-token-long-enough\n');
    const running = await startCore(env(dataDir));
    await running.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a second core on the same DATA_DIR refuses to start and names the first; after a stop it starts', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-private-'));
  const first = await startCore(env(dataDir));
  try {
    const error = await refusal(startCore(env(dataDir)));
    assert.match(error.message, `DATA_DIR ${dataDir} is in use by another core (pid ${process.pid})`);
    assert.is(
      JSON.parse(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).pid,
      process.pid,
      "the first core's lock stays",
    );
  } finally {
    await first.close();
  }
  try {
    const again = await startCore(env(dataDir));
    await again.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a lock left by a core that was killed (its pid is gone) does not block a restart', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-private-'));
  try {
    const pid = await deadPid();
    writeFileSync(path.join(dataDir, LOCK_FILE), JSON.stringify({ pid, started: '1' }), { mode: 0o600 });
    const running = await startCore(env(dataDir));
    try {
      assert.is(
        JSON.parse(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).pid,
        process.pid,
        'the lock is ours now',
      );
    } finally {
      await running.close();
    }
    // A live pid that started at another time (a pid reused after a reboot) is no holder either.
    writeFileSync(path.join(dataDir, LOCK_FILE), JSON.stringify({ pid: process.pid, started: 'another boot' }), {
      mode: 0o600,
    });
    const reused = await startCore(env(dataDir));
    await reused.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
