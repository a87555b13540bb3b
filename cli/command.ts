/**
 * The shape every CLI command has. A command is data (name, arguments, options, one-line
 * summary) plus a `run` that turns already-checked input into a result; main.ts parses the
 * command line, prints the result and maps failures to exit codes, so no command does its
 * own I/O and every command gets the same usage checks, help and error handling.
 */
import type { DescService } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import type { AdminService } from '../gen/prepaid/v1/admin_pb.js';

/** A client of the core's AdminService. */
export type AdminClient = Client<typeof AdminService>;

/** Clients of the core's other admin-token services, on the same connection as `core()`. */
export type ServiceClients = <S extends DescService>(service: S) => Client<S>;

/** A string-valued `--flag VALUE` option of one command. */
export interface OptionSpec {
  /** Shown in usage lines, for example `NAME` in `--name NAME`. */
  placeholder: string;
  /** One line for help. */
  summary: string;
  required?: boolean;
  /** A `--flag` with no value (placeholder ''); the command reads it as 'yes' when given. */
  flag?: boolean;
}

/** What a command receives once main.ts has checked the command line against its spec. */
interface CommandInput {
  /** Positional arguments after `<group> <command>`, as many as the spec declares. */
  args: string[];
  /** Values of the command's own options; absent options are undefined. */
  options: Record<string, string | undefined>;
  /** The CLI's own environment and, on a terminal, a prompt that does not echo (the backup passphrase). */
  local?: LocalIo;
}

/** What a command that works on this machine's files reads besides its command line. */
export interface LocalIo {
  env: Record<string, string | undefined>;
  /** Asks on the terminal without echoing the answer; undefined when there is no terminal. */
  prompt?: ((question: string) => Promise<string>) | undefined;
}

/**
 * What a command produces. main.ts prints `json` with --json and `text` otherwise; `warnings`
 * go to stderr in both modes, so a script that reads stdout still leaves them on screen.
 */
export interface CommandResult {
  /** One object with snake_case fields. */
  json: Record<string, unknown>;
  /** Lines for a person. */
  text: string[];
  warnings?: string[];
  /** A command that ran but found a problem (the ledger check) exits 1 after printing. */
  failed?: boolean;
}

/** One command of a group, for example `accounts create`. */
export interface CommandSpec {
  name: string;
  /** One line for help. */
  summary: string;
  /** Names of the positional arguments, in order, for example ['ACCOUNT_ID', 'TIER']. */
  args: readonly string[];
  /** When true, the last positional argument may repeat (`IP [IP...]`). */
  variadic?: boolean;
  /** Positional arguments that may follow `args` or be left out, for example ['PRODUCT']. */
  optionalArgs?: readonly string[];
  options?: Readonly<Record<string, OptionSpec>>;
  /**
   * Runs the command. `core()` opens the connection on first use: a command checks its
   * input first and throws UsageError before calling it, so a bad argument never reaches
   * the core (and needs neither a token nor a running core).
   */
  run(input: CommandInput, core: () => AdminClient, clients: ServiceClients): Promise<CommandResult>;
}

/**
 * A group of commands, for example `accounts`. A command named '' is the group's own: it runs
 * when the word after the group names none of its commands (`prepaid backup --to DIR`,
 * `prepaid restore FILE`).
 */
export interface CommandGroup {
  name: string;
  summary: string;
  commands: readonly CommandSpec[];
}

/** A command line that does not fit the spec: printed with the usage, exit status 2. */
export class UsageError extends Error {
  /** Lines to print under the message (a usage line, a group's commands), when known. */
  readonly usage: readonly string[];

  constructor(message: string, usage: readonly string[] = []) {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
  }
}

/**
 * A failure the CLI detects itself before or around a call (no admin token, core
 * unreachable): printed without a stack trace, exit status 1.
 */
export class CliError extends Error {
  /** UPPER_SNAKE code for --json output, for example NO_ADMIN_TOKEN. */
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'CliError';
    this.code = code;
  }
}

/** The usage line of a command, for example `prepaid keys lock-ip PUBLIC_KEY IP [IP...]`. */
export function usageLine(group: CommandGroup, command: CommandSpec): string {
  const parts = ['prepaid', group.name, ...(command.name === '' ? [] : [command.name]), ...command.args];
  const last = command.args[command.args.length - 1];
  if (command.variadic && last) parts.push(`[${last}...]`);
  for (const optional of command.optionalArgs ?? []) parts.push(`[${optional}]`);
  const options = Object.entries(command.options ?? {});
  // Required options first, as a person would type them.
  for (const [name, spec] of options.filter(([, o]) => o.required)) parts.push(`--${name} ${spec.placeholder}`);
  for (const [name, spec] of options.filter(([, o]) => !o.required))
    parts.push(spec.flag ? `[--${name}]` : `[--${name} ${spec.placeholder}]`);
  return parts.join(' ');
}
