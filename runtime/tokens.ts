/**
 * Bearer tokens for gRPC callers. A token from the environment wins; otherwise one is
 * created once in DATA_DIR with mode 0600 and reused, so the CLI and a gateway on the same
 * machine can read it and nobody has to invent a secret to try the service.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const ADMIN_TOKEN_FILE = 'admin.token';
export const SERVICE_TOKEN_FILE = 'service.token';

export function loadOrCreateToken(dataDir: string, file: string, fromEnv: string | null): string {
  if (fromEnv) return fromEnv;
  const tokenPath = path.join(dataDir, file);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    const existing = readFileSync(tokenPath, 'utf8').trim();
    if (existing.length >= 16) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(32).toString('base64url');
  // 'wx' refuses to overwrite a token another process created a moment ago.
  try {
    writeFileSync(tokenPath, token + '\n', { mode: 0o600, flag: 'wx' });
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(tokenPath, 'utf8').trim();
    throw error;
  }
}

/** Reads a token another process created; null when there is none. */
export function readTokenFile(dataDir: string, file: string): string | null {
  try {
    const token = readFileSync(path.join(dataDir, file), 'utf8').trim();
    return token.length > 0 ? token : null;
  } catch {
    return null;
  }
}
