/**
 * `prepaid backup`, `prepaid backup verify FILE` and `prepaid restore FILE --data-dir DIR`
 * (docs/operating.md, Backups). The backup is taken by the core, which holds the live store
 * (an admin RPC: one consistent copy while it sells); verify and restore work on files in
 * this process, with no core needed (restore refuses a directory a core holds), so they load
 * the backup's file code of the core (core/storage/backup-files.ts) only when they run.
 */
import { CliError, type CommandGroup, type LocalIo, UsageError } from './command.js';

/**
 * A backup copies and checks the whole store on the core's side: about the time of a ledger
 * check and a copy of the file, so the ledger check's ten minutes bound it too.
 */
const BACKUP_TIMEOUT_MS = 10 * 60_000;

/** The passphrase from BACKUP_PASSPHRASE, else asked on a terminal; undefined when neither gives one. */
async function passphraseOf(local: LocalIo | undefined, question: string): Promise<string | undefined> {
  const fromEnv = local?.env['BACKUP_PASSPHRASE'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (local?.prompt === undefined) return undefined;
  const answer = await local.prompt(question);
  return answer === '' ? undefined : answer;
}

/** The offline half, loaded only by the commands that use it: it opens SQLite files. */
const backupFiles = () => import('../core/storage/backup-files.js');

export const backupGroup: CommandGroup = {
  name: 'backup',
  summary: 'Back up the embedded store, and check a backup.',
  commands: [
    {
      name: '',
      summary:
        'Take a backup while the service runs: one consistent copy, its manifest, and the secrets sealed with ' +
        'BACKUP_PASSPHRASE (or a prompt); without one they are left out, with a warning. Not on MongoDB.',
      args: [],
      options: {
        to: {
          placeholder: 'DIR',
          summary: "Where the backup goes on the core's machine; default the core's BACKUP_DIR.",
        },
      },
      async run(input, core) {
        const passphrase = await passphraseOf(
          input.local,
          'Passphrase to seal the tokens and the KYC key (empty: leave them out): ',
        );
        const taken = await core().takeBackup(
          { toDir: input.options['to'] ?? '', passphrase: passphrase ?? '' },
          { timeoutMs: BACKUP_TIMEOUT_MS },
        );
        const manifest = JSON.parse(taken.manifestJson) as {
          startedAt: string;
          secrets: string;
          facts: { schemaVersion: number; lastLedgerEntryId: number; ledger: { violationCount: number } };
        };
        return {
          warnings: taken.warnings.map((w) => `warning: ${w}`),
          json: { path: taken.path, manifest, warnings: taken.warnings },
          text: [
            `Backup written and verified: ${taken.path}`,
            `  taken at ${manifest.startedAt}, schema step ${manifest.facts.schemaVersion}, last ledger entry ` +
              `${manifest.facts.lastLedgerEntryId}, ledger check: ${manifest.facts.ledger.violationCount} violation(s), ` +
              `secrets ${manifest.secrets === 'encrypted' ? 'sealed' : 'left out'}.`,
            'Copy it off this machine (docs/deploying.md, Backups).',
          ],
        };
      },
    },
    {
      name: 'verify',
      summary:
        'Check a backup (its directory or manifest.json) with no service: every SHA-256, SQLite integrity, the ' +
        'ledger check on the copy, the manifest; exit 1 on any difference.',
      args: ['FILE'],
      async run(input) {
        const { verifyBackup } = await backupFiles();
        const passphrase = input.local?.env['BACKUP_PASSPHRASE'] || undefined;
        const verified = await verifyBackup(input.args[0]!, passphrase === undefined ? {} : { passphrase });
        const secrets =
          verified.secretsOpened === null
            ? verified.manifest?.secrets === 'encrypted'
              ? 'sealed (not opened: set BACKUP_PASSPHRASE to check them too)'
              : 'not in this backup'
            : verified.secretsOpened
              ? 'sealed, and the passphrase opens them'
              : 'sealed, and the passphrase does not open them';
        return {
          failed: !verified.ok,
          json: { ok: verified.ok, problems: verified.problems, secrets_opened: verified.secretsOpened },
          text: verified.ok
            ? [
                `The backup verifies: ${verified.facts?.ledger.entriesChecked ?? 0} ledger entries checked, no ` +
                  'violation, every file as its manifest says.',
                `Secrets: ${secrets}.`,
              ]
            : ['The backup does NOT verify:', ...verified.problems.map((p) => `  - ${p}`)],
        };
      },
    },
  ],
};

export const restoreGroup: CommandGroup = {
  name: 'restore',
  summary: 'Restore a backup into an empty data directory (no service running on it).',
  commands: [
    {
      name: '',
      summary:
        'Verify the backup, then write its store and (with BACKUP_PASSPHRASE or the prompt) its secrets into an ' +
        'empty DATA_DIR; refused while a service holds the directory. Start the service on it afterwards.',
      args: ['FILE'],
      options: {
        'data-dir': { placeholder: 'DIR', required: true, summary: 'The empty data directory to restore into.' },
      },
      async run(input) {
        const dataDir = input.options['data-dir'];
        if (dataDir === undefined || dataDir === '') throw new UsageError('missing --data-dir DIR.');
        const { RestoreRefused, restoreBackup } = await backupFiles();
        const passphrase = await passphraseOf(input.local, "Passphrase of the backup's secrets: ");
        try {
          const restored = await restoreBackup(input.args[0]!, dataDir, passphrase === undefined ? {} : { passphrase });
          return {
            warnings: restored.warnings.map((w) => `warning: ${w}`),
            json: {
              data_dir: restored.dataDir,
              taken_at: restored.manifest.startedAt,
              secret_files: restored.secretFiles,
              warnings: restored.warnings,
            },
            text: [
              `Restored the backup taken at ${restored.manifest.startedAt} into ${restored.dataDir}` +
                (restored.secretFiles.length > 0 ? `, with ${restored.secretFiles.join(', ')}.` : '.'),
              'Start the service with DATA_DIR set to it; purchases that were pending are asked again at their ' +
                'upstreams, as after any restart.',
            ],
          };
        } catch (error) {
          if (error instanceof RestoreRefused) throw new CliError('RESTORE_REFUSED', error.message);
          throw error;
        }
      },
    },
  ],
};
