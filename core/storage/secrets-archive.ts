/**
 * The secrets a backup needs and the store file does not hold (the admin and service tokens,
 * the KYC hash key), sealed with the operator's passphrase: scrypt stretches the passphrase
 * into a key (its cost makes each guess slow), AES-256-GCM encrypts and authenticates the
 * JSON, so a changed byte or a wrong passphrase opens nothing. The parameters travel in the
 * archive, so a later build with a higher cost still opens an older archive.
 * https://nodejs.org/api/crypto.html#cryptoscryptpassword-salt-keylen-options-callback
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';

/** A passphrase shorter than this is refused: the archive is only as strong as it. */
const MIN_PASSPHRASE_CHARS = 12;

/** scrypt's cost (N = 2^15, r = 8): about 32 MiB and a tenth of a second a try on a small machine. */
const SCRYPT = { N: 1 << 15, r: 8, p: 1 } as const;
/** Room for N * r * 128 bytes and scrypt's own. */
const SCRYPT_MAXMEM = 64 * 1024 * 1024;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** GCM's recommended nonce size. */
const IV_BYTES = 12;
const FORMAT = 'prepaid-secrets/1';

interface Sealed {
  format: typeof FORMAT;
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  cipher: 'aes-256-gcm';
  iv: string;
  tag: string;
  data: string;
}

/** Why a passphrase will not do, or null when it will. */
export function passphraseProblem(passphrase: string): string | null {
  if (passphrase.length < MIN_PASSPHRASE_CHARS)
    return `The backup passphrase must be at least ${MIN_PASSPHRASE_CHARS} characters.`;
  return null;
}

function deriveKey(passphrase: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(passphrase, salt, KEY_BYTES, { ...cost, maxmem: SCRYPT_MAXMEM }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** The archive's bytes: `secrets` (file name -> content) sealed under `passphrase`. */
export async function sealSecrets(secrets: Readonly<Record<string, string>>, passphrase: string): Promise<Buffer> {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const key = await deriveKey(passphrase, salt, SCRYPT);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(FORMAT));
  const data = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
  const sealed: Sealed = {
    format: FORMAT,
    kdf: { name: 'scrypt', ...SCRYPT, salt: salt.toString('base64') },
    cipher: 'aes-256-gcm',
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
  return Buffer.from(`${JSON.stringify(sealed, null, 2)}\n`);
}

/** Thrown when the archive cannot be opened: a wrong passphrase, or changed bytes. */
export class SecretsArchiveError extends Error {}

/** The secrets back, or SecretsArchiveError. */
export async function openSecrets(bytes: Buffer, passphrase: string): Promise<Record<string, string>> {
  let sealed: Sealed;
  try {
    sealed = JSON.parse(bytes.toString('utf8')) as Sealed;
  } catch {
    throw new SecretsArchiveError('the secrets archive is not readable (not the JSON a backup writes)');
  }
  if (sealed.format !== FORMAT || sealed.kdf?.name !== 'scrypt' || sealed.cipher !== 'aes-256-gcm')
    throw new SecretsArchiveError(`the secrets archive is not of the format ${FORMAT}`);
  const { N, r, p } = sealed.kdf;
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0) || N > 1 << 20 || r > 32 || p > 16)
    throw new SecretsArchiveError('the secrets archive names a key cost out of bounds');
  const key = await deriveKey(passphrase, Buffer.from(sealed.kdf.salt, 'base64'), { N, r, p });
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(FORMAT));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const json = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
    const secrets = JSON.parse(json.toString('utf8')) as unknown;
    if (typeof secrets !== 'object' || secrets === null) throw new Error('not an object');
    return secrets as Record<string, string>;
  } catch {
    throw new SecretsArchiveError('the passphrase does not open the secrets archive (or the archive was changed)');
  }
}
