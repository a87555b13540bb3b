/**
 * Signatures of webhook deliveries: `Prepaid-Signature: t=<unix seconds>,v1=<hex>` where the
 * hex is HMAC-SHA256 of "<t>.<raw body>" keyed with the webhook secret, one `v1=` per secret
 * that is valid (two during a rotation). A receiver recomputes it over the raw bytes it
 * received, compares in constant time, and refuses a `t` too far from its clock.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** whsec_ and 32 random bytes, base64url: 256 bits, the HMAC's own strength. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The last characters of a secret, to tell two apart without showing either. */
export function secretHint(secret: string): string {
  return `…${secret.slice(-4)}`;
}

function signatureV1(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The Prepaid-Signature header value for `body` at `timestamp` (unix seconds). */
export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signatureV1(secret, timestamp, body)}`)].join(',');
}
