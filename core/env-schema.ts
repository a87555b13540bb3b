/**
 * Configuration schemas. Each process (core, gateway) has ONE table of the environment
 * variables it reads; the parser reads the environment only through that table, and the
 * `--help` output and the README tables are printed from it, so what is documented cannot
 * drift from what is read. Every variable has a default or says that (and when) it is
 * required; an unusable value stops the process at start with a ConfigError that names it.
 */

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
export function rawValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** A variable read by a function of its own, for rules that fit no helper below. */
export function variable<T>(name: string, fallback: string, help: string, read: (raw: string | undefined, env: Env) => T): Variable<T> {
  return { name, fallback, help, read: (env) => read(rawValue(env, name), env) };
}

/** A whole number within [min, max]; `fallback` when unset. */
export function integer(name: string, options: { fallback: number; min: number; max: number; help: string }): Variable<number> {
  return variable(name, String(options.fallback), options.help, (raw) => parseInteger(name, raw, options.fallback, options.min, options.max));
}

/** Parses a whole number within [min, max]; `fallback` when unset. */
export function parseInteger(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number; got ${JSON.stringify(raw)}.`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}; got ${value}.`);
  return value;
}

/** Free text; `fallback` when unset. `check` returns a problem sentence, or undefined when the value is fine. */
export function text(name: string, options: { fallback: string; help: string; check?: (value: string) => string | undefined }): Variable<string> {
  return variable(name, options.fallback, options.help, (raw) => {
    const value = raw ?? options.fallback;
    const problem = raw === undefined ? undefined : options.check?.(value);
    if (problem !== undefined) throw new ConfigError(name, problem);
    return value;
  });
}

/** One of a closed set of words (case-insensitive); `fallback` when unset. */
export function oneOf<const W extends string>(name: string, options: { words: readonly W[]; fallback: W; help: string }): Variable<W> {
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
  for (const [name, fallback, help] of rows) lines.push(`  ${name.padEnd(width)}  ${help} ${isRequirement(fallback) ? capitalized(fallback) : `Default: ${fallback}`}.`);
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
