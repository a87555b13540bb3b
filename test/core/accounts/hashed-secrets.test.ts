/**
 * Secrets are stored only as their SHA-256 (docs/security.md): after keys are issued, the
 * raw bytes of the database file and its write-ahead log contain no secret key, while the
 * hash that authenticates it is there.
 */

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';

let core!: TestCore;

const test = suite('secrets at rest');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

/** Everything SQLite wrote for the database: the main file and, in WAL mode, its log. */
function databaseBytes(): Buffer {
  const files = ['prepaid.sqlite', 'prepaid.sqlite-wal']
    .map((name) => path.join(core.dataDir, name))
    .filter((file) => existsSync(file));
  assert.ok(files.length >= 1, 'the database file exists');
  return Buffer.concat(files.map((file) => readFileSync(file)));
}

test('issued secrets appear nowhere in the database files; their SHA-256 hex does', async () => {
  const issued: { publicKey: string; secretKey: string }[] = [];
  const api = await core.createApiAccount();
  issued.push(api);
  issued.push((await core.admin.createApiKey({ accountId: api.accountId })).issuedKey!);
  const { account } = await core.admin.createAccount({ name: 'Upgraded later' });
  issued.push((await core.admin.setAccountTier({ accountId: account!.accountId, tierId: 'api' })).issuedKey!);
  // Use every pair once, so that verification cannot be what writes a secret down either.
  for (const pair of issued) await core.auth.verifyKeyPair({ ...pair, clientIp: '203.0.113.7' });

  const bytes = databaseBytes();
  for (const { publicKey, secretKey } of issued) {
    assert.ok(bytes.includes(publicKey), `the public key ${publicKey} is stored (sanity check of the file read)`);
    assert.not.ok(bytes.includes(secretKey), 'the secret key is not stored');
    assert.not.ok(bytes.includes(secretKey.slice(3)), 'not even without its sk_ prefix');
    assert.not.ok(bytes.includes(Buffer.from(secretKey, 'utf16le')), 'nor as UTF-16 text');
    const hash = createHash('sha256').update(secretKey, 'utf8').digest('hex');
    assert.ok(bytes.includes(hash), `the SHA-256 hex of the secret is stored for ${publicKey}`);
  }
});

test.run();
