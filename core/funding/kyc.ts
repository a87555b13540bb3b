/**
 * Identity numbers at rest: a BVN or NIN is sent to the providers and then forgotten, except
 * for its last four digits (to show the holder which number stands behind their accounts) and
 * an HMAC-SHA256 under the core's KYC key (to tell whether the same number is given again
 * without being able to read it back). Never logged: callers pass the KycInput only to the
 * providers and to these two functions.
 */
import { createHmac } from 'node:crypto';

export function kycLast4(number: string): string {
  return number.slice(-4);
}

export function kycHash(key: string, kind: string, number: string): string {
  return createHmac('sha256', key).update(`${kind}:${number}`).digest('hex');
}

/**
 * A provider's words about an identity, fit to keep and show: any run of eight or more digits
 * (with single spaces or dashes between them: a BVN, a NIN, a bank account number a provider
 * echoed back) is withheld, and the text is bounded.
 */
export function withoutIdentityNumbers(text: string): string {
  return text
    .replace(/\d(?:[ -]?\d){7,}/g, '[number withheld]')
    .trim()
    .slice(0, 300);
}
