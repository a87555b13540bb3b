/**
 * Runs the CLI in-process the way the bin does, capturing what it prints. Not a test file:
 * the command tests share it. Every run also checks the CLI's one promise about secrets of
 * its own: the admin token never appears in anything it prints.
 */
import { runCli } from '../../cli/main.js';
import type { TestCore } from '../helpers/core.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `prepaid ...argv` with exactly `env` (nothing from the test process leaks in). */
export async function runWith(
  argv: string[],
  env: Record<string, string | undefined>,
  secrets: string[] = [],
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env });
  for (const secret of secrets) {
    if (stdout.includes(secret) || stderr.includes(secret))
      throw new Error(`prepaid ${argv.join(' ')} printed the admin token`);
  }
  return { code, stdout, stderr };
}

/** The environment an operator beside the core has: where it is, and its data directory (for the token). */
export function coreEnv(core: TestCore): Record<string, string> {
  return { CORE_URL: core.url, DATA_DIR: core.dataDir };
}

/** Runs against a test core, reading the admin token from its data directory. */
export function runAgainst(core: TestCore, argv: string[]): Promise<CliRun> {
  return runWith(argv, coreEnv(core), [core.adminToken]);
}

/** Runs with --json against a test core and parses stdout, failing on anything but one JSON object. */
export async function runJson(core: TestCore, argv: string[]): Promise<CliRun & { json: Record<string, unknown> }> {
  const run = await runAgainst(core, ['--json', ...argv]);
  const json: unknown = JSON.parse(run.stdout);
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`stdout is not one JSON object: ${run.stdout}`);
  return { ...run, json: json as Record<string, unknown> };
}
