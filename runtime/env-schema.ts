/**
 * Configuration schemas. Each process (core, gateway, and any later client of the core) has
 * ONE table of the environment variables it reads; the parser reads the environment only
 * through that table, and the `--help` output and the README tables are printed from it, so
 * what is documented cannot drift from what is read. Every variable has a default or says
 * that (and when) it is required; an unusable value stops the process at start with a
 * ConfigError that names it.
 */
import { LOG_LEVELS, type LogLevel } from './log.js';

/** The environment, or any stand-in for it (tests). */
export type Env = Readonly<Record<string, string | undefined>>;

/** A configuration value that cannot be used; the message starts with the variable's name. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/** One environment variable: its documentation and how its value is read and checked. */
export interface Variable<T> {
  readonly name: string;
  /** What applies when it is unset: the default, "required (...)", or where the value comes from. */
  readonly fallback: string;
  /** One sentence (or two) for the help and the README. */
  readonly help: string;
  /** Reads and checks the value from `env`; throws ConfigError naming the variable. */
  read(env: Env): T;
}

/** A table of variables, keyed by the configuration field each one fills, in help order. */
export type Schema = Readonly<Record<string, Variable<unknown>>>;

/** The values of a schema, keyed as the schema is. */
export type SchemaValues<S extends Schema> = { -readonly [K in keyof S]: S[K] extends Variable<infer T> ? T : never };

/** Reads every variable of a schema; the first unusable one throws. */
export function readSchema<S extends Schema>(schema: S, env: Env): SchemaValues<S> {
  const values: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(schema)) values[key] = variable.read(env);
  return values as SchemaValues<S>;
}

/** The trimmed value, or undefined when it is unset or blank. */
function rawValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** A variable read by a function of its own, for rules that fit no helper below. */
export function variable<T>(
  name: string,
  fallback: string,
  help: string,
  read: (raw: string | undefined, env: Env) => T,
): Variable<T> {
  return { name, fallback, help, read: (env) => read(rawValue(env, name), env) };
}

/** A whole number within [min, max]; `fallback` when unset. */
export function integer(
  name: string,
  options: { fallback: number; min: number; max: number; help: string },
): Variable<number> {
  return variable(name, String(options.fallback), options.help, (raw) =>
    parseInteger(name, raw, options.fallback, options.min, options.max),
  );
}

/** Parses a whole number within [min, max]; `fallback` when unset. */
export function parseInteger(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number; got ${JSON.stringify(raw)}.`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}; got ${value}.`);
  return value;
}

/** Free text; `fallback` when unset. `check` returns a problem sentence, or undefined when the value is fine. */
export function text(
  name: string,
  options: { fallback: string; help: string; check?: (value: string) => string | undefined },
): Variable<string> {
  return variable(name, options.fallback, options.help, (raw) => {
    const value = raw ?? options.fallback;
    const problem = raw === undefined ? undefined : options.check?.(value);
    if (problem !== undefined) throw new ConfigError(name, problem);
    return value;
  });
}

/** One of a closed set of words (case-insensitive); `fallback` when unset. */
export function oneOf<const W extends string>(
  name: string,
  options: { words: readonly W[]; fallback: W; help: string },
): Variable<W> {
  return variable(name, options.fallback, options.help, (raw) => {
    if (raw === undefined) return options.fallback;
    const word = raw.toLowerCase();
    if (!(options.words as readonly string[]).includes(word)) {
      throw new ConfigError(name, `must be one of ${options.words.join(', ')}; got ${JSON.stringify(raw)}.`);
    }
    return word as W;
  });
}

/** Rows of a schema as [name, fallback, help], for printing. */
export function schemaRows(schema: Schema): ReadonlyArray<readonly [string, string, string]> {
  return Object.values(schema).map((v) => [v.name, v.fallback, v.help] as const);
}

/** Every variable name of a schema. */
export function schemaNames(schema: Schema): string[] {
  return Object.values(schema).map((v) => v.name);
}

/** The help text of a schema, for `--help`: one block per variable, its default on the line. */
export function helpText(title: string, schema: Schema): string {
  const rows = schemaRows(schema);
  const width = Math.max(...rows.map(([name]) => name.length));
  const lines = [`${title} (environment variables):`, ''];
  for (const [name, fallback, help] of rows)
    lines.push(
      `  ${name.padEnd(width)}  ${help} ${isRequirement(fallback) ? capitalized(fallback) : `Default: ${fallback}`}.`,
    );
  return lines.join('\n');
}

/** A fallback that says when the variable is required rather than giving a default. */
function isRequirement(fallback: string): boolean {
  return fallback.startsWith('required');
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A default that is a value to type (shown as code) rather than a sentence ("none", "generated in ..."). */
function isLiteral(fallback: string): boolean {
  return fallback !== 'none' && !/\s/.test(fallback);
}

/** The same table as markdown, as README.md carries it. */
export function markdownTable(schema: Schema): string {
  const cell = (value: string) => value.replace(/\|/g, '\\|');
  const lines = ['| Variable | Default | Meaning |', '|---|---|---|'];
  for (const [name, fallback, help] of schemaRows(schema)) {
    const shown = isLiteral(fallback) ? `\`${fallback}\`` : isRequirement(fallback) ? capitalized(fallback) : fallback;
    lines.push(`| \`${name}\` | ${cell(shown)} | ${cell(help)} |`);
  }
  return lines.join('\n');
}

/*
 * Variables and checks more than one process reads. They live here, beside the schema
 * helpers, so that a process's configuration never has to load another process's
 * configuration (and with it that process's adapters) to check a shared value.
 */

/** The database the MongoDB store (and the gateway's shared counters) use when MONGODB_DB is not set. */
const DEFAULT_MONGODB_DB = 'prepaid';

/**
 * Twenty seconds: longer than the core's default provider timeout (15 s), so a purchase
 * waiting on its provider when the signal comes still ends settled or pending, never cut off.
 */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 20_000;
/** Ten minutes: no shutdown needs longer, and an orchestrator kills long before that. */
const MAX_SHUTDOWN_TIMEOUT_MS = 600_000;

/** LOG_LEVEL, the same words and default in every process. */
export function logLevelVariable(): Variable<LogLevel> {
  return oneOf('LOG_LEVEL', {
    words: LOG_LEVELS,
    fallback: 'info',
    help: 'Least severe log line written: `debug`, `info`, `warn`, `error` or `silent`.',
  });
}

/** SHUTDOWN_TIMEOUT_MS, with the process's own sentence of what happens past it. */
export function shutdownTimeoutVariable(help: string): Variable<number> {
  return integer('SHUTDOWN_TIMEOUT_MS', {
    fallback: DEFAULT_SHUTDOWN_TIMEOUT_MS,
    min: 100,
    max: MAX_SHUTDOWN_TIMEOUT_MS,
    help,
  });
}

/** SHUTDOWN_DRAIN_MS, with the process's own sentence of what drains; check it with checkedDrain(). */
export function shutdownDrainVariable(help: string): Variable<number> {
  return integer('SHUTDOWN_DRAIN_MS', { fallback: 0, min: 0, max: MAX_SHUTDOWN_TIMEOUT_MS, help });
}

/** The drain window is part of the shutdown bound, so it must leave time for the rest of the stop. */
export function checkedDrain(drainMs: number, timeoutMs: number): number {
  if (drainMs >= timeoutMs)
    throw new ConfigError('SHUTDOWN_DRAIN_MS', `must be below SHUTDOWN_TIMEOUT_MS (${timeoutMs}); got ${drainMs}.`);
  return drainMs;
}

/** MongoDB's database name rules: at most 63 bytes, none of / \ . space " $ * < > : | ? or NUL. */
function mongoDbNameProblem(dbName: string): string | undefined {
  if (/^[^/\\. "$*<>:|?\0]+$/.test(dbName) && Buffer.byteLength(dbName, 'utf8') <= 63) return undefined;
  return `must be at most 63 bytes without / \\ . space " $ * < > : | ?; got ${JSON.stringify(dbName)}.`;
}

/** Only the scheme and a host are checked here: the driver parses the rest at start and names what is wrong. */
function mongoUriProblem(uri: string): string | undefined {
  // The URI may hold a password: the message never repeats it.
  return /^mongodb(\+srv)?:\/\/[^/?#]+/.test(uri)
    ? undefined
    : 'must be a mongodb:// or mongodb+srv:// connection string with at least one host.';
}

/** MONGODB_URI, checked but never echoed; `fallback` and `help` say what it means to this process. */
export function mongoUriVariable(fallback: string, help: string): Variable<string | undefined> {
  return variable('MONGODB_URI', fallback, help, (raw) => {
    const problem = raw === undefined ? undefined : mongoUriProblem(raw);
    if (problem !== undefined) throw new ConfigError('MONGODB_URI', problem);
    return raw;
  });
}

/** MONGODB_DB, with the same default in every process so that one setting serves all of them. */
export function mongoDbVariable(help: string): Variable<string> {
  return text('MONGODB_DB', { fallback: DEFAULT_MONGODB_DB, help, check: mongoDbNameProblem });
}
