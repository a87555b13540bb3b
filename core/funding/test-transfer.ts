/**
 * A holder's simulated transfer into their own test wallet, from the developer area's Fund
 * wallet page in test mode: the transfer is put in the sandbox bank and credited through the
 * very path `prepaid funding simulate-transfer` takes (the sandbox's notification, its
 * re-query, the credit with its postings and event in one store transaction). It is for the
 * test wallet only: a live mode is refused here, in the core, whatever FUNDING_SANDBOX_LIVE
 * says, and the money only ever goes to the Sandbox Bank account of the session's own test
 * wallet.
 */
import { DomainError, invalid } from '../domain/errors.js';
import type { InflowRecord } from '../domain/funding.js';
import type { Mode } from '../domain/mode.js';
import { type Kobo, kobo } from '../domain/money.js';
import type { Store } from '../store/port.js';

/** One simulated transfer at most ₦1,000,000, as one credit of test funds. */
const MAX_TEST_TRANSFER_KOBO: Kobo = kobo(100_000_000);
const FORM_REFERENCE = /^[A-Za-z0-9_-]{8,48}$/;
/** The sandbox reference of a holder's transfer: its own prefix, apart from the operator's. */
const REFERENCE_PREFIX = 'WEB-';

type Simulate = (
  accountNumber: string,
  amountKobo: Kobo,
  reference: string,
  payerName: string,
) => Promise<{ outcome: string; inflow: InflowRecord | null }>;

export function testTransfers(store: Pick<Store, 'funding'>, simulateTransfer: Simulate) {
  return {
    async simulateHolderTransfer(
      accountId: string,
      mode: Mode,
      amountKobo: number,
      reference: string,
      payerName: string,
    ): Promise<{ outcome: string }> {
      if (mode !== 'test')
        throw new DomainError(
          'FAILED_PRECONDITION',
          'A simulated transfer is for the test wallet only: live money comes from a real bank transfer.',
        );
      if (!Number.isSafeInteger(amountKobo) || amountKobo < 1 || amountKobo > MAX_TEST_TRANSFER_KOBO)
        throw invalid('amount_kobo', 'Enter an amount from ₦0.01 to ₦1,000,000.');
      if (!FORM_REFERENCE.test(reference))
        throw invalid('reference', 'reference must be 8 to 48 letters, digits, hyphens or underscores.');
      const accounts = await store.funding.listVirtualAccounts(accountId, 'test');
      const sandbox = accounts.find((a) => a.provider === 'sandbox' && a.status === 'active' && a.mode === 'test');
      if (sandbox === undefined)
        throw new DomainError(
          'FAILED_PRECONDITION',
          'The test wallet has no Sandbox Bank account yet: give the identity on this page first, then simulate ' +
            'a transfer to it.',
        );
      const { outcome } = await simulateTransfer(
        sandbox.accountNumber,
        amountKobo as Kobo,
        `${REFERENCE_PREFIX}${reference}`,
        payerName,
      );
      return { outcome };
    },
  };
}
