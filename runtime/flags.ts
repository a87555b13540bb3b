/**
 * The command-line flags of the service's processes. Everything is configured through the
 * environment, so the only flags are `--help` (or `-h`) and what an entry point adds (npm
 * start's `--markdown`). Anything else is a mistake, and starting anyway would hide it: an
 * operator who typed `--port 9000` must not get a service on the default port.
 */

/** What the command line asks for. */
export type FlagsOutcome =
  | { kind: 'run' }
  | { kind: 'help'; flags: ReadonlySet<string> }
  | { kind: 'unknown'; flag: string };

/** Exit status of a command line that cannot be used (as for a configuration error). */
const EXIT_USAGE = 2;

/** Reads `args` (process.argv without node and the script); `extra` are the entry point's own flags. */
function readFlags(args: readonly string[], extra: readonly string[] = []): FlagsOutcome {
  const flags = new Set<string>();
  for (const arg of args) {
    if (arg === '-h' || arg === '--help') flags.add('--help');
    else if (extra.includes(arg)) flags.add(arg);
    else return { kind: 'unknown', flag: arg };
  }
  return flags.has('--help') ? { kind: 'help', flags } : { kind: 'run' };
}

/** The sentence for an unknown flag, with the hint to the help. */
function unknownFlagMessage(flag: string): string {
  return (
    `Unknown option ${JSON.stringify(flag)}: this service is configured through environment variables. ` +
    `Run it with --help (or -h) to list them.`
  );
}

/**
 * Reads the process's flags: returns 'run' or the help flags; an unknown flag is reported on
 * stderr and the process exits 2 before anything starts.
 */
export function processFlags(extra: readonly string[] = []): FlagsOutcome & { kind: 'run' | 'help' } {
  const outcome = readFlags(process.argv.slice(2), extra);
  if (outcome.kind === 'unknown') {
    console.error(unknownFlagMessage(outcome.flag));
    process.exit(EXIT_USAGE);
  }
  return outcome;
}
