/**
 * Compatible tokens of the VTpass dialect (docs/compat.md, VTpass). VTpass's clients send three
 * keys: `api-key` with every call, `secret-key` with a POST, `public-key` with a GET. A VTpass
 * token is those three parts: an api key (32 hex characters), a secret key (`SK_` and 40 hex
 * characters, 20 random bytes) and a public key (`PK_` and 40 hex characters) derived from the
 * secret key by SHA-256. The store keeps one hash, of `api-key:public-key`, and both pairs
 * find it: the POST's pair by deriving the public key from the secret one, the GET's directly.
 * The public key travels with every read and does not give the secret one, so its pair reads
 * and never buys: its scopes are cut down to the read scopes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ALL_SCOPE } from '../domain/key-controls.js';

/** The api key's random bytes (32 hex characters, VTpass's own api keys' length). */
const API_KEY_BYTES = 16;
/** The secret key's random bytes. */
const SECRET_KEY_BYTES = 20;

const SECRET_PREFIX = 'SK_';
const PUBLIC_PREFIX = 'PK_';
/** Keeps the public key's hash apart from any other SHA-256 the platform takes. */
const PUBLIC_KEY_CONTEXT = 'prepaid vtpass public key\n';

/** An api key and one of the two other keys, as the gateway joins them (`api-key:key`). */
const PRESENTED = /^([0-9a-f]{32}):((?:SK|PK)_[0-9a-f]{40})$/;

/** The scopes a public-key pair keeps of its key pair's: reads only (core/domain/key-controls.ts). */
const READ_SCOPES: readonly string[] = ['balance', 'read', 'verify'];

function publicKeyOf(secretKey: string): string {
  const digest = createHash('sha256').update(`${PUBLIC_KEY_CONTEXT}${secretKey}`, 'utf8').digest('hex');
  return `${PUBLIC_PREFIX}${digest.slice(0, SECRET_KEY_BYTES * 2)}`;
}

/** A new token: the three parts joined `api-key:public-key:secret-key`, and what the store keys it by. */
export function newVtpassToken(): { token: string; lookup: string; lastFour: string } {
  const apiKey = randomBytes(API_KEY_BYTES).toString('hex');
  const secretKey = `${SECRET_PREFIX}${randomBytes(SECRET_KEY_BYTES).toString('hex')}`;
  const publicKey = publicKeyOf(secretKey);
  return {
    token: `${apiKey}:${publicKey}:${secretKey}`,
    lookup: `${apiKey}:${publicKey}`,
    lastFour: secretKey.slice(-4),
  };
}

/**
 * What a presented pair (`api-key:secret-key` or `api-key:public-key`) is looked up by, and
 * whether it may only read; undefined for anything not of the shape.
 */
export function readVtpassPair(presented: string): { lookup: string; readOnly: boolean } | undefined {
  const match = PRESENTED.exec(presented);
  if (match === null) return undefined;
  const [, apiKey, key] = match as unknown as [string, string, string];
  if (key.startsWith(SECRET_PREFIX)) return { lookup: `${apiKey}:${publicKeyOf(key)}`, readOnly: false };
  return { lookup: `${apiKey}:${key}`, readOnly: true };
}

/**
 * A key pair's scopes as a public-key pair may use them: its read scopes only; undefined when
 * it has none (an empty list would read as "everything" to a client, so the pair is refused).
 */
export function readOnlyScopes(scopes: readonly string[]): string[] | undefined {
  const kept = scopes.includes(ALL_SCOPE) ? [...READ_SCOPES] : scopes.filter((scope) => READ_SCOPES.includes(scope));
  return kept.length === 0 ? undefined : kept;
}
