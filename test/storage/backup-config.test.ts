/**
 * What the backup settings refuse, and what `prepaid backup` says on MongoDB: the
 * configuration stops a start whose backups could not work (no directory, one inside
 * DATA_DIR, a schedule on MongoDB, a short passphrase), naming the variable.
 */
import * as assert from 'uvu/assert';
import { readCoreConfig } from '../../core/config.js';
import { DomainError } from '../../core/domain/errors.js';
import { createBackups } from '../../core/storage/backup.js';
import { suite } from '../helpers/suite.js';

const test = suite('storage: backup settings');

const refusal = (env: Record<string, string>): string => {
  try {
    readCoreConfig({ DATA_DIR: '/srv/prepaid/data', ...env });
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

test('BACKUP_EVERY needs BACKUP_DIR, never inside DATA_DIR, never on MongoDB; a short passphrase is refused', () => {
  assert.match(refusal({ BACKUP_EVERY: '6h' }), /^BACKUP_EVERY: needs BACKUP_DIR/);
  assert.match(refusal({ BACKUP_DIR: '/srv/prepaid/data/backups' }), /^BACKUP_DIR: must not be inside DATA_DIR/);
  assert.match(
    refusal({ BACKUP_DIR: '/backups', BACKUP_EVERY: '6h', MONGODB_URI: 'mongodb://db.example.ng/?replicaSet=rs0' }),
    /^BACKUP_EVERY: does not apply on MongoDB/,
  );
  assert.match(refusal({ BACKUP_EVERY: 'often', BACKUP_DIR: '/backups' }), /^BACKUP_EVERY: must be off or 1m to 30d/);
  assert.match(refusal({ BACKUP_PASSPHRASE: 'short' }), /^BACKUP_PASSPHRASE: .*at least 12/);
  const config = readCoreConfig({ DATA_DIR: '/srv/prepaid/data', BACKUP_DIR: '/backups', BACKUP_EVERY: '6h' });
  assert.equal(config.backups, { dir: '/backups', everyMs: 6 * 3_600_000, keep: 14, passphrase: undefined });
});

test("on MongoDB `prepaid backup` is refused, saying to use the replica set's own tools", async () => {
  const backups = createBackups(
    { storeFile: null, secrets: {}, clock: () => new Date(), log: () => {} },
    { dir: '/backups', schedule: null },
  );
  try {
    await backups.take('', '');
    assert.unreachable('refused');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'FAILED_PRECONDITION');
    assert.match((error as Error).message, /MongoDB, where it does not apply/);
    assert.match((error as Error).message, /docs\/mongodb\.md/);
  }
});

test.run();
