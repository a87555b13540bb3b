/**
 * The backup's copy, paced (core/store/sqlite/backup.ts): SQLite's online backup API a few
 * pages a step while another connection commits after every step, as the core does during a
 * backup. The copy finishes, and it is the store as it was when the copy began: none of the
 * writes made during it, every row of the state before, whole, in one file that is no
 * longer in WAL mode. A backup API step that began a read of its own would see each write
 * and start again from page 1, ending (once the writes stopped) with the newest state.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as assert from 'uvu/assert';
import { copyStore } from '../../core/store/sqlite/backup.js';
import { suite } from '../helpers/suite.js';

const test = suite('storage: the paced copy of a store being written');

const ROWS = 5_000;
/** Writes the other connection makes, one after each step, then it stops. */
const WRITES = 40;
/** Two accounts whose sum every write keeps: a half-copied write would show in the sum. */
const TOTAL = 1_000_000;

let work: string;

test.before(() => {
  work = mkdtempSync(path.join(tmpdir(), 'prepaid-backup-copy-'));
});

test.after(() => {
  rmSync(work, { recursive: true, force: true });
});

/** A WAL-mode file as the core keeps its store: rows enough for many steps, and two balances. */
function writtenStore(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE moves (id INTEGER PRIMARY KEY, note TEXT NOT NULL);
    CREATE TABLE balances (name TEXT PRIMARY KEY, amount INTEGER NOT NULL);
  `);
  const move = db.prepare('INSERT INTO moves (note) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) move.run(`before the copy ${i} ${'x'.repeat(200)}`);
    db.prepare("INSERT INTO balances VALUES ('a', ?), ('b', 0)").run(TOTAL);
  })();
  return db;
}

test('a copy paced in steps, with writes committed between them, is the store as it was when it began', async () => {
  const source = path.join(work, 'store.sqlite');
  const dest = path.join(work, 'copy.sqlite');
  const writer = writtenStore(source);
  const move = writer.prepare("INSERT INTO moves (note) VALUES ('during the copy')");
  const shift = writer.prepare(
    "UPDATE balances SET amount = amount + (CASE name WHEN 'a' THEN -? ELSE ? END) WHERE name IN ('a', 'b')",
  );
  const write = writer.transaction((n: number) => {
    move.run();
    shift.run(n, n);
  });
  let steps = 0;
  let written = 0;
  await copyStore(source, dest, { pagesPerStep: 5, pauseMs: 0 }, (copied, total) => {
    steps += 1;
    assert.ok(copied <= total);
    if (written < WRITES) write(++written);
  });
  assert.is(written, WRITES, 'the other connection committed during the copy');
  assert.ok(steps > WRITES, `${steps} steps`);
  assert.is(writer.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM moves').get()!.n, ROWS + WRITES);
  writer.close();

  const copy = new Database(dest, { readonly: true, fileMustExist: true });
  try {
    assert.is(copy.pragma('integrity_check', { simple: true }), 'ok');
    assert.is(copy.pragma('journal_mode', { simple: true }), 'delete', 'one file, as a backup is kept');
    const rows = copy.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM moves').get()!.n;
    assert.is(rows, ROWS, 'every row from before the copy, none written during it');
    const balances = copy.prepare<[], { name: string; amount: number }>('SELECT * FROM balances ORDER BY name').all();
    assert.equal(balances, [
      { name: 'a', amount: TOTAL },
      { name: 'b', amount: 0 },
    ]);
  } finally {
    copy.close();
  }
  assert.not.ok(existsSync(`${dest}-wal`), 'no WAL beside the copy');
});

test('a copy never overwrites a file that is there', async () => {
  const source = path.join(work, 'other.sqlite');
  writtenStore(source).close();
  const dest = path.join(work, 'taken.sqlite');
  new Database(dest).close();
  try {
    await copyStore(source, dest);
    assert.unreachable('copied over a file');
  } catch (error) {
    assert.match(String(error), /exists already/);
  }
});

test.run();
