/**
 * Bearer tokens for gRPC callers. A token from the environment wins; otherwise one is
 * created once in DATA_DIR with mode 0600 and reused, so the CLI and a gateway on the same
 * machine can read it and nobody has to invent a secret to try the service. A token file
 * that holds less than MIN_TOKEN_CHARS is refused rather than used: a short token is
 * guessable, and silently replacing it would lock out every client that holds the old one.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const ADMIN_TOKEN_FILE = 'admin.token';
export const SERVICE_TOKEN_FILE = 'service.token';

/**
 * The shortest token accepted, from the environment or from a file: 16 characters is 96+ bits of a random
 * base64url token.
 */
export const MIN_TOKEN_CHARS = 16;

/**
 * Fewer different characters than this in a token is a pattern, not a secret (a random 16-character hex token
 * has about 10).
 */
const MIN_DISTINCT_CHARS = 6;
/** A token whose neighbouring characters are this share or more of the time one apart or equal is a run. */
const RUN_SHARE = 0.75;

/**
 * Why a token an operator chose is trivially guessable, or undefined when it is not: one
 * character or a handful repeated (`aaaaaaaaaaaaaaaa`, `abababab...`), or a run
 * (`0123456789abcdef`, `zyxwvu...`). Length alone (MIN_TOKEN_CHARS) lets those through.
 */
export function weakTokenProblem(token: string): string | undefined {
  const distinct = new Set(token).size;
  if (distinct < MIN_DISTINCT_CHARS) {
    return `is too easy to guess: it uses only ${distinct} different character${distinct === 1 ? '' : 's'}.`;
  }
  // Neighbours one apart or equal, nearly all the way: a keyboard or alphabet run (`0123456789abcdef`
  // has one jump, from 9 to a). In a random token such a pair is one in ten at most.
  const close = [...token]
    .slice(1)
    .filter((char, index) => Math.abs(char.charCodeAt(0) - token.charCodeAt(index)) <= 1).length;
  if (close >= (token.length - 1) * RUN_SHARE) return 'is too easy to guess: it is a run of consecutive characters.';
  return undefined;
}

/** A token file that cannot be used; the message names the file and what to do. */
export class TokenFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenFileError';
  }
}

/** The token from the environment, else the one in `dataDir/file`, else a new one written there. */
export function loadOrCreateToken(dataDir: string, file: string, fromEnv: string | null): string {
  if (fromEnv) return fromEnv;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const existing = readTokenFile(dataDir, file);
  if (existing !== null) return existing;
  const token = randomBytes(32).toString('base64url');
  // 'wx' refuses to overwrite a token another process created a moment ago.
  try {
    writeFileSync(path.join(dataDir, file), `${token}\n`, { mode: 0o600, flag: 'wx' });
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const raced = readTokenFile(dataDir, file);
    if (raced === null)
      throw new TokenFileError(`${path.join(dataDir, file)} is empty; delete it to have a new token generated.`);
    return raced;
  }
}

/**
 * Reads a token another process created; null when there is none (no file, or an empty
 * one). Throws TokenFileError for a token shorter than MIN_TOKEN_CHARS.
 */
export function readTokenFile(dataDir: string, file: string): string | null {
  const full = path.join(dataDir, file);
  let token: string;
  try {
    token = readFileSync(full, 'utf8').trim();
  } catch {
    return null;
  }
  if (token.length === 0) return null;
  if (token.length < MIN_TOKEN_CHARS) {
    throw new TokenFileError(
      `${full} holds a token of ${token.length} characters; at least ${MIN_TOKEN_CHARS} are required. ` +
        'Delete the file to have the core generate a new one (clients then read the new one), or write a ' +
        'longer token into it.',
    );
  }
  return token;
}

/**
 * The service token a client of the core (the dashboard, the console) presents: the one it
 * was given (SERVICE_TOKEN), or the file the core writes on its first start.
 */
export function serviceTokenOf(dataDir: string, fromEnv: string | undefined): string {
  if (fromEnv !== undefined) return fromEnv;
  const token = readTokenFile(dataDir, SERVICE_TOKEN_FILE);
  if (token === null)
    throw new TokenFileError(
      `${dataDir}/${SERVICE_TOKEN_FILE} does not exist; start the core first (it writes the file) or set ` +
        `SERVICE_TOKEN.`,
    );
  return token;
}
