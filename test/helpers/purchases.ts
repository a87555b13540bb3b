/**
 * The purchase the store-level tests reserve: ₦100 of MTN airtime charged ₦98, for
 * `acct-1` in live mode, with no request id, unless overridden. One shape, so a new field
 * of NewTransaction is added to the tests in one place.
 */
import { kobo } from '../../core/domain/money.js';
import type { NewTransaction } from '../../core/domain/records.js';

export function airtimePurchase(reference: string, overrides: Partial<NewTransaction> = {}): NewTransaction {
  return {
    reference,
    accountId: 'acct-1',
    mode: 'live',
    product: 'airtime',
    service: 'mtn',
    recipient: '08031234567',
    faceValueKobo: kobo(10_000),
    chargedKobo: kobo(9_800),
    details: {},
    requestId: null,
    requestHash: null,
    nextAttemptAt: new Date(60_000),
    createdAt: new Date(3_000),
    ...overrides,
  };
}
