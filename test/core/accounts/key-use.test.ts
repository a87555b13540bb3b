/**
 * The key-use recorder (core/accounts/key-use.ts) over the real embedded store: uses are
 * noted in memory and written in batches, a busy key is written once a minute, the time
 * only moves forward, a failed write is retried with the next batch, and the background
 * write and stop() write without anyone calling flush().
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { createKeyUseRecorder } from '../../../core/accounts/key-use.js';
import { defaultCatalog } from '../../../core/catalog/defaults.js';
import type { KeyUseStore, Store } from '../../../core/store/port.js';
import { openSqliteStore } from '../../../core/store/sqlite/index.js';
import { suite } from '../../helpers/suite.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const at = (seconds: number) => new Date(T0 + seconds * 1000);
/** Longer than any test runs: only flush() and stop() write, unless a test says otherwise. */
const NEVER_BY_ITSELF = 3_600_000;

let dir = '';
let store: Store;
let keyCount = 0;
const logged: string[] = [];
const log = (event: string) => {
  logged.push(event);
};

/** A key of a new account in the store. */
async function key(): Promise<string> {
  keyCount += 1;
  const accountId = `acct-${keyCount}`;
  await store.accounts.create({ accountId, name: accountId, tierId: 'api', createdAt: at(0) });
  const publicKey = `pk_${String(keyCount).padStart(24, '0')}`;
  await store.keys.insert({
    publicKey,
    accountId,
    secretHash: 'h',
    allowedIps: [],
    revoked: false,
    mode: 'live',
    createdAt: at(0),
  });
  return publicKey;
}

const lastUse = async (publicKey: string) => (await store.keyUse.lastUses([publicKey])).get(publicKey);

const test = suite('key use recorder');
test.before.each(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'prepaid-key-use-'));
  store = openSqliteStore({ filename: path.join(dir, 'prepaid.db') });
  await store.catalog.seedIfEmpty(defaultCatalog());
  logged.length = 0;
});
test.after.each(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('nothing is written until a flush; then the latest use of each key, in one batch', async () => {
  const writes: number[] = [];
  const counted: KeyUseStore = {
    ...store.keyUse,
    recordUses: (uses) => {
      writes.push(uses.size);
      return store.keyUse.recordUses(uses);
    },
  };
  const recorder = createKeyUseRecorder({ keyUse: counted, log, intervalMs: NEVER_BY_ITSELF });
  const [a, b, unused] = [await key(), await key(), await key()];
  recorder.note(a, at(10));
  recorder.note(a, at(40));
  recorder.note(a, at(20));
  recorder.note(b, at(30));
  assert.is(await lastUse(a), undefined, 'a note alone writes nothing');
  await recorder.flush();
  assert.equal(writes, [2], 'one write for both keys');
  assert.equal(
    await store.keyUse.lastUses([a, b, unused]),
    new Map([
      [a, at(40)],
      [b, at(30)],
    ]),
  );
  await recorder.flush();
  assert.equal(writes, [2], 'nothing new, nothing written');
  await recorder.stop();
});

test('a busy key is written again only once its use is a minute newer, and never back', async () => {
  const recorder = createKeyUseRecorder({ keyUse: store.keyUse, log, intervalMs: NEVER_BY_ITSELF });
  const publicKey = await key();
  recorder.note(publicKey, at(0));
  await recorder.flush();
  recorder.note(publicKey, at(59));
  await recorder.flush();
  assert.equal(await lastUse(publicKey), at(0), 'within the minute: left as it was');
  recorder.note(publicKey, at(61));
  await recorder.flush();
  assert.equal(await lastUse(publicKey), at(61));
  recorder.note(publicKey, at(5));
  await recorder.flush();
  assert.equal(await lastUse(publicKey), at(61), 'an older use never moves it back');
  // Another core (or a restart) that knows nothing of the stored time cannot move it back either.
  const another = createKeyUseRecorder({ keyUse: store.keyUse, log, intervalMs: NEVER_BY_ITSELF });
  another.note(publicKey, at(30));
  await another.stop();
  assert.equal(await lastUse(publicKey), at(61));
  await recorder.stop();
});

test('a failed write is logged and its uses are written with the next one', async () => {
  let failures = 1;
  const flaky: KeyUseStore = {
    ...store.keyUse,
    async recordUses(uses) {
      if (failures > 0) {
        failures -= 1;
        throw new Error('disk full');
      }
      await store.keyUse.recordUses(uses);
    },
  };
  const recorder = createKeyUseRecorder({ keyUse: flaky, log, intervalMs: NEVER_BY_ITSELF });
  const publicKey = await key();
  recorder.note(publicKey, at(100));
  await recorder.flush();
  assert.equal(logged, ['key_use.write_failed']);
  assert.is(await lastUse(publicKey), undefined);
  recorder.note(publicKey, at(90));
  await recorder.flush();
  assert.equal(await lastUse(publicKey), at(100), 'the failed batch was kept, with its later time');
  await recorder.stop();
});

test('uses are written in the background without a flush, and stop() writes what is left', async () => {
  const background = createKeyUseRecorder({ keyUse: store.keyUse, log, intervalMs: 10 });
  const publicKey = await key();
  background.note(publicKey, at(1));
  // Waits for the background write; no time is asserted, the loop ends when it is seen.
  while ((await lastUse(publicKey)) === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(await lastUse(publicKey), at(1));
  await background.stop();

  const stopping = createKeyUseRecorder({ keyUse: store.keyUse, log, intervalMs: NEVER_BY_ITSELF });
  const other = await key();
  stopping.note(other, at(2));
  await stopping.stop();
  assert.equal(await lastUse(other), at(2));
  assert.equal(logged, []);
});

test.run();
