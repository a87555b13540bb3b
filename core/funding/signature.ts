/**
 * The funding providers' notification signature (Paystack's `x-paystack-signature`, Monnify's
 * `monnify-signature`): lowercase hex of HMAC-SHA512 over the raw request body, keyed by the
 * provider's secret key. Computed over the bytes as received (a re-serialised body does not
 * match) and compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function verifyHmacSha512Hex(secret: string, rawBody: Buffer, presented: string | undefined): boolean {
  if (presented === undefined || !/^[0-9a-f]{128}$/.test(presented)) return false;
  const expected = createHmac('sha512', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(presented, 'hex'));
}

export function signHmacSha512Hex(secret: string, rawBody: Buffer | string): string {
  return createHmac('sha512', secret).update(rawBody).digest('hex');
}

/**
 * A notification's body when its signature is the provider's (`bad_signature` otherwise) and it
 * is JSON (`bad_body` otherwise): what each adapter's `readNotification` reads before its own words.
 */
export function signedJson(
  secret: string,
  rawBody: Buffer,
  presented: string | undefined,
): { json: unknown } | 'bad_signature' | 'bad_body' {
  if (!verifyHmacSha512Hex(secret, rawBody, presented)) return 'bad_signature';
  try {
    return { json: JSON.parse(rawBody.toString('utf8')) as unknown };
  } catch {
    return 'bad_body';
  }
}
