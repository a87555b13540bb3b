/**
 * `prepaid`, the admin CLI: a gRPC client of the core's AdminService. This file holds the
 * command table, parses the command line (node:util parseArgs), prints results and maps
 * every failure to an exit status. The commands themselves live one group per module.
 *
 * Exit status: 0 done; 1 the core refused the request or could not be reached; 2 the
 * command line was wrong (nothing was sent to the core).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { accountsGroup } from './accounts.js';
import { backupGroup, restoreGroup } from './backup.js';
import { booksGroup } from './books.js';
import {
  type AdminClient,
  CliError,
  type CommandGroup,
  type CommandResult,
  type CommandSpec,
  type ServiceClients,
  UsageError,
  usageLine,
} from './command.js';
import { compatKeysGroup, compatPlansGroup } from './compat.js';
import {
  type CoreConnection,
  describeCallError,
  openCoreConnection,
  resolveAdminToken,
  resolveCoreTls,
  resolveCoreUrl,
} from './connection.js';
import { booksFindingsGroup } from './findings.js';
import { columns } from './format.js';
import { fundingGroup } from './funding.js';
import { keysGroup } from './keys.js';
import { kycGroup } from './kyc.js';
import { ledgerGroup } from './ledger.js';
import { pendingGroup } from './pending.js';
import { plansGroup } from './plans.js';
import { pricingGroup } from './pricing.js';
import { recipientsGroup } from './recipients.js';
import { booksReconcileGroup } from './reconcile.js';
import { reportsGroup } from './report.js';
import { routesGroup } from './routes.js';
import { auditGroup, staffGroup } from './staff.js';
import { tiersGroup } from './tiers.js';
import { upgradesGroup } from './upgrades.js';
import { upstreamsGroup } from './upstreams.js';
import { usersGroup } from './users.js';
import { walletGroup } from './wallet.js';
import { webhooksGroup } from './webhooks.js';

/** Where the CLI writes and what environment it reads; the bin passes the process's own. */
export interface CliIo {
  stdout(s: string): void;
  stderr(s: string): void;
  env: Record<string, string | undefined>;
  /** Asks on the terminal without echoing (bin/prepaid.js, when stdin is one); tests leave it out. */
  prompt?: (question: string) => Promise<string>;
}

export const EXIT_OK = 0;
/** The core answered with an error, or could not be reached, or no admin token was found. */
export const EXIT_FAILURE = 1;
/** The command line does not fit any command; nothing was sent. */
export const EXIT_USAGE = 2;

/**
 * Groups of one name joined into one (a group's commands may live in several files, such as
 * `books`): the first one's summary, every command in the order given.
 */
function joined(groups: readonly CommandGroup[]): CommandGroup[] {
  const byName = new Map<string, CommandGroup>();
  for (const group of groups) {
    const earlier = byName.get(group.name);
    byName.set(
      group.name,
      earlier === undefined ? group : { ...earlier, commands: [...earlier.commands, ...group.commands] },
    );
  }
  return [...byName.values()];
}

/** Every command, by group, in the order help lists them. */
export const COMMAND_GROUPS: readonly CommandGroup[] = joined([
  accountsGroup,
  keysGroup,
  compatKeysGroup,
  recipientsGroup,
  walletGroup,
  ledgerGroup,
  pendingGroup,
  routesGroup,
  upstreamsGroup,
  pricingGroup,
  tiersGroup,
  plansGroup,
  compatPlansGroup,
  usersGroup,
  upgradesGroup,
  kycGroup,
  webhooksGroup,
  fundingGroup,
  staffGroup,
  auditGroup,
  reportsGroup,
  booksGroup,
  booksReconcileGroup,
  booksFindingsGroup,
  backupGroup,
  restoreGroup,
]);

/** Flags every command accepts, before or after the command words. */
const GLOBAL_OPTIONS = {
  json: { type: 'boolean' },
  core: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

const GLOBAL_HELP: ReadonlyArray<readonly [string, string]> = [
  ['--json', 'Print one JSON object with snake_case fields instead of text.'],
  ['--core URL', 'The core to talk to; overrides CORE_URL, CORE_HOST and CORE_PORT.'],
  ['-h, --help', 'Show help: `prepaid help`, `prepaid GROUP --help`, `prepaid GROUP COMMAND --help`.'],
];

const ENVIRONMENT_HELP: ReadonlyArray<readonly [string, string]> = [
  ['CORE_URL', 'The core, for example http://127.0.0.1:50051; https:// means TLS.'],
  ['CORE_TLS_CA', "PEM file of the CA that signed the core's certificate (https://); default the system's roots."],
  [
    'CORE_ALLOW_PLAINTEXT',
    'yes lets http:// name another machine (the admin token then travels unencrypted); default no.',
  ],
  ['CORE_HOST, CORE_PORT', 'Used when CORE_URL is unset; default 127.0.0.1 and 50051.'],
  ['ADMIN_TOKEN', "The core's admin token; when unset it is read from DATA_DIR/admin.token."],
  ['DATA_DIR', "The core's data directory, where it writes admin.token on first start; default ./data."],
  [
    'BACKUP_PASSPHRASE',
    "Seals (backup) and opens (backup verify, restore) a backup's secrets; else asked on a terminal.",
  ],
];

const HELP_HINT = "Run 'prepaid --help' to list every command.";

/**
 * Every option of every command, for one strict parse of the whole line. Options share one
 * namespace (a `--name` is always a string), and main checks afterwards that each option
 * given belongs to the command that was named.
 */
function parseConfigOptions(): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = { ...GLOBAL_OPTIONS };
  for (const group of COMMAND_GROUPS) {
    for (const command of group.commands) {
      for (const [name, spec] of Object.entries(command.options ?? {})) {
        if (name in GLOBAL_OPTIONS)
          throw new Error(`${group.name} ${command.name} redefines the global option --${name}`);
        options[name] = { type: spec.flag ? 'boolean' : 'string' };
      }
    }
  }
  return options;
}

function fullHelp(): string[] {
  const rows = COMMAND_GROUPS.flatMap((group) =>
    group.commands.map((c) => [`  ${usageLine(group, c).replace(/^prepaid /, '')}`, c.summary]),
  );
  return [
    "prepaid: the admin CLI of the prepaid services core (talks to the core's AdminService over gRPC).",
    '',
    'Usage: prepaid [--json] [--core URL] GROUP COMMAND [ARGUMENTS]',
    '',
    'Commands:',
    ...columns(rows),
    '',
    'Flags:',
    ...columns(GLOBAL_HELP.map(([flag, what]) => [`  ${flag}`, what])),
    '',
    'Environment:',
    ...columns(ENVIRONMENT_HELP.map(([name, what]) => [`  ${name}`, what])),
    '',
    'Amounts are in Naira with at most two decimals (100 or 100.50).',
    'Exit status: 0 done, 1 the core refused or could not be reached, 2 bad command line.',
  ];
}

function groupHelp(group: CommandGroup): string[] {
  return [
    `prepaid ${group.name}: ${group.summary}`,
    '',
    'Commands:',
    ...columns(group.commands.map((c) => [`  ${usageLine(group, c)}`, c.summary])),
    '',
    'Add --json to print one JSON object.',
  ];
}

function commandHelp(group: CommandGroup, command: CommandSpec): string[] {
  const options = Object.entries(command.options ?? {}).map(([name, spec]) => [
    `  --${name}${spec.placeholder === '' ? '' : ` ${spec.placeholder}`}`,
    spec.summary + (spec.required ? ' Required.' : ''),
  ]);
  return [
    `Usage: ${usageLine(group, command)} [--json] [--core URL]`,
    '',
    command.summary,
    ...(options.length > 0 ? ['', 'Options:', ...columns(options)] : []),
  ];
}

function lines(text: readonly string[]): string {
  return text.map((line) => `${line}\n`).join('');
}

/**
 * Parses the whole line strictly. Unknown options are found first with a lenient pass, so
 * that the message can name the option plainly (and explain a negative amount, which
 * parseArgs sees as an option); the strict pass then catches missing option values.
 */
function parseCommandLine(argv: string[]) {
  const options = parseConfigOptions();
  const lenient = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  // The command, if the words name one, so that the message can show its usage line.
  const usage = usageOf(lenient.positionals);
  for (const token of lenient.tokens) {
    if (token.kind !== 'option' || token.name in options) continue;
    if (/^-\d/.test(token.rawName))
      throw new UsageError(`${token.rawName} is not an option; amounts cannot be negative.`, usage);
    throw new UsageError(`unknown option ${token.rawName}.`, usage);
  }
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), usage);
  }
}

/** The usage line of the command that positional words name, if they name one. */
function usageOf(positionals: readonly string[]): string[] {
  const words = positionals[0] === 'help' ? positionals.slice(1) : positionals;
  const group = COMMAND_GROUPS.find((g) => g.name === words[0]);
  const command =
    group?.commands.find((c) => c.name !== '' && c.name === words[1]) ?? group?.commands.find((c) => c.name === '');
  return group && command ? [`usage: ${usageLine(group, command)}`] : [];
}

type Parsed =
  | { kind: 'help'; text: string[] }
  | {
      kind: 'run';
      group: CommandGroup;
      command: CommandSpec;
      args: string[];
      options: Record<string, string | undefined>;
    };

/** Turns the command line into a command to run or help to print; throws UsageError. */
function resolveCommand(positionals: string[], values: Record<string, unknown>): Parsed {
  const helpWanted = values['help'] === true;
  let words = positionals;
  if (words[0] === 'help') words = words.slice(1);
  const asHelp = helpWanted || positionals[0] === 'help';

  const [groupName, named, ...more] = words;
  if (groupName === undefined) {
    if (asHelp) return { kind: 'help', text: fullHelp() };
    throw new UsageError('missing command.');
  }
  const group = COMMAND_GROUPS.find((g) => g.name === groupName);
  // The group's own command takes the words after the group when they name none of its commands.
  const own = group?.commands.find((c) => c.name === '');
  const ownTakes = own !== undefined && !group!.commands.some((c) => c.name !== '' && c.name === named);
  const commandName = ownTakes ? '' : named;
  const rest = ownTakes ? [...(named === undefined ? [] : [named]), ...more] : more;
  if (!group) {
    const groups = COMMAND_GROUPS.map((g) => g.name).join(', ');
    throw new UsageError(`unknown command ${JSON.stringify(groupName)}; the groups are ${groups}.`);
  }
  // `prepaid backup --help` lists the group, its own command with the others.
  if (commandName === undefined || (asHelp && ownTakes && named === undefined)) {
    if (asHelp) return { kind: 'help', text: groupHelp(group) };
    throw new UsageError(`missing the ${group.name} command.`, groupHelp(group));
  }
  const command = group.commands.find((c) => c.name === commandName);
  if (!command) {
    throw new UsageError(`unknown command "${group.name} ${commandName}".`, groupHelp(group));
  }
  if (asHelp) return { kind: 'help', text: commandHelp(group, command) };

  const usage = usageOf(positionals);
  const allowed = command.options ?? {};
  const options: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(values)) {
    if (name in GLOBAL_OPTIONS) continue;
    if (!(name in allowed)) throw new UsageError(`${group.name} ${command.name} does not take --${name}.`, usage);
    options[name] = value === true ? 'yes' : (value as string);
  }
  for (const [name, spec] of Object.entries(allowed)) {
    if (spec.required && options[name] === undefined)
      throw new UsageError(`missing --${name} ${spec.placeholder}.`, usage);
  }
  const missing = command.args.slice(rest.length);
  if (missing.length > 0) throw new UsageError(`missing ${missing.join(' and ')}.`, usage);
  const most = command.args.length + (command.optionalArgs?.length ?? 0);
  if (rest.length > most && !command.variadic) {
    throw new UsageError(`unexpected argument ${JSON.stringify(rest[most])}.`, usage);
  }
  return { kind: 'run', group, command, args: rest, options };
}

/** What a failure prints, whatever raised it. */
interface Failure {
  exitCode: number;
  code: string;
  grpcCode: string | null;
  message: string;
  /**
   * Whether the core answered: its reason is then shown in brackets after its message. The
   * CLI's own codes (USAGE, CORE_UNREACHABLE, ...) would only repeat the sentence.
   */
  fromCore: boolean;
  violations: ReadonlyArray<{ field: string; description: string }>;
  /** Lines printed after the message: hints, usage. */
  after: readonly string[];
}

function toFailure(error: unknown, connection: CoreConnection | undefined): Failure | null {
  if (error instanceof UsageError) {
    const after = error.usage.length > 0 ? [...error.usage, '', HELP_HINT] : [HELP_HINT];
    return {
      exitCode: EXIT_USAGE,
      code: 'USAGE',
      grpcCode: null,
      message: error.message,
      fromCore: false,
      violations: [],
      after,
    };
  }
  if (error instanceof CliError) {
    return {
      exitCode: EXIT_FAILURE,
      code: error.code,
      grpcCode: null,
      message: error.message,
      fromCore: false,
      violations: [],
      after: [],
    };
  }
  const call = connection ? describeCallError(error, connection) : null;
  if (!call) return null;
  return {
    exitCode: EXIT_FAILURE,
    code: call.code,
    grpcCode: call.grpcCode,
    message: call.message,
    fromCore: call.fromCore,
    violations: call.violations,
    after: call.hints,
  };
}

function printFailure(failure: Failure, io: CliIo, json: boolean): void {
  const text = [
    `error: ${failure.message}${failure.fromCore ? ` [${failure.code}]` : ''}`,
    ...failure.violations.map((v) => `  - ${v.field}: ${v.description}`),
    ...failure.after,
  ];
  io.stderr(lines(text));
  if (json) {
    const body = {
      error: {
        code: failure.code,
        grpc_code: failure.grpcCode,
        message: failure.message,
        field_violations: failure.violations.map((v) => ({ field: v.field, description: v.description })),
      },
    };
    io.stdout(`${JSON.stringify(body, null, 2)}\n`);
  }
}

/**
 * Runs one command line. `argv` is the arguments after the program name
 * (process.argv.slice(2)). Returns the exit status and never exits the process itself, so
 * tests can run it in-process; failures the operator can act on are printed without a stack
 * trace, while a bug (an error nobody expected) is rethrown.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // Known before parsing, so that even a command line that does not parse answers in JSON.
  let json = argv.includes('--json');
  let connection: CoreConnection | undefined;
  try {
    const parsed = parseCommandLine(argv);
    json = parsed.values['json'] === true;
    const resolved = resolveCommand(parsed.positionals, parsed.values);
    if (resolved.kind === 'help') {
      io.stdout(lines(resolved.text));
      return EXIT_OK;
    }
    const coreFlag = parsed.values['core'];
    const connect = (): CoreConnection => {
      if (!connection) {
        const url = resolveCoreUrl(io.env, typeof coreFlag === 'string' ? coreFlag : undefined);
        connection = openCoreConnection(url, resolveAdminToken(io.env), resolveCoreTls(io.env));
      }
      return connection;
    };
    const core = (): AdminClient => connect().admin;
    const clients: ServiceClients = (service) => connect().client(service);
    let result: CommandResult;
    try {
      result = await resolved.command.run(
        { args: resolved.args, options: resolved.options, local: { env: io.env, prompt: io.prompt } },
        core,
        clients,
      );
    } catch (error) {
      // A command's own argument checks know the message; the usage line is known here.
      if (error instanceof UsageError && error.usage.length === 0) {
        throw new UsageError(error.message, usageOf([resolved.group.name, resolved.command.name]));
      }
      throw error;
    }
    for (const warning of result.warnings ?? []) io.stderr(`${warning}\n`);
    io.stdout(json ? `${JSON.stringify(result.json, null, 2)}\n` : lines(result.text));
    return result.failed ? EXIT_FAILURE : EXIT_OK;
  } catch (error) {
    const failure = toFailure(error, connection);
    if (!failure) throw error;
    printFailure(failure, io, json);
    return failure.exitCode;
  } finally {
    connection?.close();
  }
}
