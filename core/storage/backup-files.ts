/**
 * A backup on disk and the two things done with one where no service runs: verify it, and
 * restore it into an empty data directory. A backup is a directory:
 *
 *   prepaid-backup-<UTC time>/
 *     prepaid.sqlite   the store, one consistent snapshot (core/store/sqlite/backup.ts)
 *     secrets.enc      the tokens and the KYC key, sealed with the passphrase (secrets-archive.ts); absent
 *                      when no passphrase was given
 *     manifest.json    what the copy held when it was taken, and a SHA-256 of each file
 *
 * Verify re-reads everything and compares it with the manifest; any difference fails it.
 * `prepaid backup verify` and `prepaid restore` (cli/backup.ts) run this file in the CLI's
 * own process: they read files, and restore must run with no service on the directory.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { LOCK_FILE, lockDir, makePrivate } from '../../runtime/data-dir.js';
import { inspectStore, type StoreFacts, sha256Of } from '../store/sqlite/backup.js';
import { openSecrets, SecretsArchiveError } from './secrets-archive.js';

export const MANIFEST_FILE = 'manifest.json';
export const STORE_COPY_FILE = 'prepaid.sqlite';
export const SECRETS_FILE = 'secrets.enc';
const MANIFEST_FORMAT = 'prepaid-backup/1';
/** Where a restored store goes in DATA_DIR: the embedded store's file (core/store/index.ts SQLITE_FILE). */
const RESTORED_STORE_FILE = 'prepaid.sqlite';
/** What a secret's name may be: a plain file name in DATA_DIR, nothing that walks out of it. */
const SECRET_FILE_NAME = /^[a-z][a-z0-9.-]{0,63}$/;

export interface BackupManifest {
  format: typeof MANIFEST_FORMAT;
  store: 'sqlite';
  /** When the copy's snapshot was taken (its read began) and when the backup was complete. */
  startedAt: string;
  finishedAt: string;
  facts: StoreFacts;
  /** encrypted: secrets.enc holds them; left_out: no passphrase was given, the backup has none. */
  secrets: 'encrypted' | 'left_out';
  /** The names of the secret files sealed in secrets.enc, without their contents. */
  secretFiles: string[];
  files: Record<string, { bytes: number; sha256: string }>;
}

/** The backup directory a path names: the directory itself or its manifest.json. */
export function backupDirOf(target: string): string {
  return path.basename(target) === MANIFEST_FILE ? path.dirname(target) : target;
}

export interface Verified {
  ok: boolean;
  /** Every difference found, one sentence each. */
  problems: string[];
  manifest: BackupManifest | null;
  /** What the copy holds now; null when it could not be read. */
  facts: StoreFacts | null;
  /** Whether the secrets were opened with the passphrase given (null: none given, or none in the backup). */
  secretsOpened: boolean | null;
}

function readManifest(dir: string, problems: string[]): BackupManifest | null {
  try {
    const manifest = JSON.parse(readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')) as BackupManifest;
    if (manifest.format !== MANIFEST_FORMAT) {
      problems.push(`${MANIFEST_FILE} is not of the format ${MANIFEST_FORMAT}.`);
      return null;
    }
    return manifest;
  } catch (error) {
    problems.push(`${MANIFEST_FILE} cannot be read: ${(error as Error).message}`);
    return null;
  }
}

async function checkFiles(
  dir: string,
  manifest: BackupManifest,
  problems: string[],
  hash: (file: string) => Promise<string>,
): Promise<void> {
  const expected = [STORE_COPY_FILE, ...(manifest.secrets === 'encrypted' ? [SECRETS_FILE] : [])];
  for (const name of expected) if (!(name in manifest.files)) problems.push(`the manifest lists no ${name}.`);
  for (const [name, want] of Object.entries(manifest.files)) {
    const file = path.join(dir, path.basename(name));
    if (!existsSync(file)) {
      problems.push(`${name} is missing.`);
      continue;
    }
    const bytes = statSync(file).size;
    if (bytes !== want.bytes) problems.push(`${name} has ${bytes} bytes; the manifest says ${want.bytes}.`);
    const sha = await hash(file);
    if (sha !== want.sha256) problems.push(`${name}'s SHA-256 is ${sha}; the manifest says ${want.sha256}.`);
  }
}

/** Every field of the facts that differs, as sentences. */
function compareFacts(found: StoreFacts, recorded: StoreFacts, problems: string[]): void {
  if (found.integrity !== 'ok') problems.push(`SQLite's integrity check found: ${found.integrity}`);
  if (found.ledger.violationCount !== 0)
    problems.push(`the ledger check on the copy found ${found.ledger.violationCount} violation(s).`);
  const flat = (facts: StoreFacts): Record<string, unknown> => ({
    schema_version: facts.schemaVersion,
    last_ledger_entry_id: facts.lastLedgerEntryId,
    last_event_seq: facts.lastEventSeq,
    integrity: facts.integrity,
    ...Object.fromEntries(Object.entries(facts.ledger).map(([k, v]) => [`ledger.${k}`, v])),
    ...Object.fromEntries(Object.entries(facts.rows).map(([k, v]) => [`rows.${k}`, v])),
  });
  const have = flat(found);
  const want = flat(recorded);
  for (const key of new Set([...Object.keys(have), ...Object.keys(want)])) {
    if (have[key] !== want[key])
      problems.push(
        `${key} is ${String(have[key] ?? 'absent')} in the copy; the manifest says ${String(want[key] ?? 'absent')}.`,
      );
  }
}

/**
 * Verifies the backup at `target` (its directory or manifest): every file's size and SHA-256,
 * SQLite's integrity check, the ledger check and the manifest's facts on the copy opened
 * read-only, and, with a passphrase, that the secrets open.
 */
export async function verifyBackup(
  target: string,
  options: {
    passphrase?: string;
    /** Reads the copy; the core hands in its worker thread's, the CLI reads it in its own process. */
    inspect?: (file: string) => Promise<StoreFacts>;
    /** Hashes a file; the core hands in its worker thread's, so a large store is not hashed on the core's thread. */
    hash?: (file: string) => Promise<string>;
  } = {},
): Promise<Verified> {
  const dir = backupDirOf(target);
  const problems: string[] = [];
  const manifest = readManifest(dir, problems);
  if (manifest === null) return { ok: false, problems, manifest, facts: null, secretsOpened: null };
  await checkFiles(dir, manifest, problems, options.hash ?? sha256Of);
  let facts: StoreFacts | null = null;
  const copy = path.join(dir, STORE_COPY_FILE);
  if (existsSync(copy)) {
    try {
      facts = options.inspect === undefined ? inspectStore(copy) : await options.inspect(copy);
      compareFacts(facts, manifest.facts, problems);
    } catch (error) {
      problems.push(`the store copy cannot be read: ${(error as Error).message}`);
    }
  }
  let secretsOpened: boolean | null = null;
  if (
    manifest.secrets === 'encrypted' &&
    options.passphrase !== undefined &&
    existsSync(path.join(dir, SECRETS_FILE))
  ) {
    try {
      const secrets = await openSecrets(readFileSync(path.join(dir, SECRETS_FILE)), options.passphrase);
      secretsOpened = true;
      const names = Object.keys(secrets).sort();
      if (names.join(',') !== [...manifest.secretFiles].sort().join(','))
        problems.push(
          `the secrets archive holds ${names.join(', ')}; the manifest says ${manifest.secretFiles.join(', ')}.`,
        );
    } catch (error) {
      secretsOpened = false;
      problems.push(error instanceof SecretsArchiveError ? `${error.message}.` : String(error));
    }
  }
  return { ok: problems.length === 0, problems, manifest, facts, secretsOpened };
}

/** Why a restore was refused: the directory, the backup or the passphrase. */
export class RestoreRefused extends Error {}

export interface Restored {
  dataDir: string;
  manifest: BackupManifest;
  /** The secret files written into the data directory. */
  secretFiles: string[];
  warnings: string[];
}

/**
 * Restores the backup at `target` into `dataDir`, which must be empty (or not exist) and held
 * by no service: its lock is taken for the time of the restore, so no core can start on it
 * halfway. The backup is verified first; its secrets need the passphrase.
 */
export async function restoreBackup(
  target: string,
  dataDir: string,
  options: { passphrase?: string },
): Promise<Restored> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let lock: ReturnType<typeof lockDir>;
  try {
    lock = lockDir(dataDir, 'service');
  } catch (error) {
    throw new RestoreRefused(`${(error as Error).message} A restore needs a data directory no service holds.`);
  }
  try {
    const found = readdirSync(dataDir).filter((name) => name !== LOCK_FILE);
    if (found.length > 0)
      throw new RestoreRefused(
        `${dataDir} is not empty (${found.slice(0, 5).join(', ')}${found.length > 5 ? ', ...' : ''}); ` +
          'restore into an empty directory, so that nothing of another store is mixed with the backup.',
      );
    const verified = await verifyBackup(target, options);
    if (!verified.ok || verified.manifest === null)
      throw new RestoreRefused(`the backup does not verify: ${verified.problems.join(' ')}`);
    const manifest = verified.manifest;
    const dir = backupDirOf(target);
    const warnings: string[] = [];
    let secrets: Record<string, string> = {};
    if (manifest.secrets === 'encrypted') {
      if (options.passphrase === undefined)
        throw new RestoreRefused(
          "the backup's secrets are sealed: give the passphrase (BACKUP_PASSPHRASE or the prompt).",
        );
      secrets = await openSecrets(readFileSync(path.join(dir, SECRETS_FILE)), options.passphrase);
    } else {
      warnings.push(
        'This backup holds no secrets: the core makes new admin and service tokens (give every client the new ones), ' +
          'and without the old KYC key (FUNDING_KYC_KEY) identity numbers given before are not recognised again.',
      );
    }
    for (const name of Object.keys(secrets)) {
      if (!SECRET_FILE_NAME.test(name) || name === LOCK_FILE || name.startsWith(RESTORED_STORE_FILE))
        throw new RestoreRefused(
          `the secrets archive names a file ${JSON.stringify(name)} that a data directory never holds.`,
        );
    }
    const store = path.join(dataDir, RESTORED_STORE_FILE);
    try {
      copyFileSync(path.join(dir, STORE_COPY_FILE), store);
      if ((await sha256Of(store)) !== manifest.files[STORE_COPY_FILE]?.sha256)
        throw new RestoreRefused('the store file written into the data directory does not match the backup.');
      for (const [name, content] of Object.entries(secrets))
        writeFileSync(path.join(dataDir, name), `${content}\n`, { mode: 0o600, flag: 'wx' });
      makePrivate(dataDir, [RESTORED_STORE_FILE, ...Object.keys(secrets)]);
    } catch (error) {
      // Nothing half-restored stays behind: the directory is as empty as it was.
      for (const name of [RESTORED_STORE_FILE, ...Object.keys(secrets)])
        rmSync(path.join(dataDir, name), { force: true });
      throw error;
    }
    return { dataDir, manifest, secretFiles: Object.keys(secrets).sort(), warnings };
  } finally {
    lock.release();
  }
}
