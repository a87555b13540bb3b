/**
 * The sandbox funding provider: a pretend bank ("Sandbox Bank") that issues account numbers
 * and records simulated transfers, so a newcomer sees the whole flow without a provider
 * contract. `simulateTransfer` puts a transfer in the sandbox bank and hands its notification
 * to the core, which re-queries this provider and credits exactly as for a real one.
 *
 * The sandbox bank lives in memory: its transfers are forgotten on restart (the accounts it
 * opened are in the store and keep working). It is the only provider of test mode.
 */
import { randomInt } from 'node:crypto';
import type { VirtualAccountRecord } from '../domain/funding.js';
import type { Kobo } from '../domain/money.js';
import type { ConfirmedInflow, FundingProvider, InflowHint } from './port.js';

const SANDBOX_BANK_NAME = 'Sandbox Bank';
const SANDBOX_BANK_CODE = '999';

/** Transfers the sandbox bank remembers; the oldest are forgotten past this, like a bank's short history. */
const MAX_SANDBOX_TRANSFERS = 100_000;

interface SandboxTransfer {
  reference: string;
  accountNumber: string;
  amountKobo: Kobo;
  payerName: string;
  at: Date;
}

export interface SandboxFunding extends FundingProvider {
  /** Records a transfer into `accountNumber` and returns the notification the bank would send. */
  transfer(accountNumber: string, amountKobo: Kobo, reference: string, payerName: string, at: Date): InflowHint;
}

export function createSandboxFunding(
  options: { isTaken?: (accountNumber: string) => Promise<boolean> } = {},
): SandboxFunding {
  const transfers = new Map<string, SandboxTransfer>();
  const confirmed = (t: SandboxTransfer): ConfirmedInflow => ({
    providerReference: t.reference,
    accountNumber: t.accountNumber,
    customerRef: '',
    amountPaidKobo: t.amountKobo,
    payerName: t.payerName,
    raw: JSON.stringify({
      bank: SANDBOX_BANK_NAME,
      reference: t.reference,
      account_number: t.accountNumber,
      amount_kobo: t.amountKobo,
      payer: t.payerName,
    }),
  });
  return {
    name: 'sandbox',
    async open(request) {
      // 99 and eight random digits; a number the store already has is drawn again.
      for (;;) {
        const accountNumber = `99${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
        if (options.isTaken !== undefined && (await options.isTaken(accountNumber))) continue;
        const accountName = `PREPAID / ${request.kyc.firstName} ${request.kyc.lastName}`.toUpperCase();
        return {
          kind: 'opened',
          accounts: [
            {
              accountNumber,
              bankName: SANDBOX_BANK_NAME,
              bankCode: SANDBOX_BANK_CODE,
              accountName,
              providerCustomerRef: `SBX-${request.accountId}-${request.mode}`,
            },
          ],
        };
      }
    },
    async verify(reference) {
      const transfer = transfers.get(reference);
      return transfer === undefined
        ? { kind: 'not_paid', reason: 'the sandbox bank has no such transfer' }
        : { kind: 'paid', inflow: confirmed(transfer) };
    },
    async recentInflows(account: VirtualAccountRecord, since: Date) {
      return [...transfers.values()]
        .filter((t) => t.accountNumber === account.accountNumber && t.at >= since)
        .reverse()
        .map(confirmed);
    },
    async close() {},
    transfer(accountNumber, amountKobo, reference, payerName, at) {
      if (!transfers.has(reference)) {
        if (transfers.size >= MAX_SANDBOX_TRANSFERS) transfers.delete(transfers.keys().next().value!);
        transfers.set(reference, { reference, accountNumber, amountKobo, payerName, at });
      }
      const recorded = transfers.get(reference)!;
      return {
        providerReference: reference,
        accountNumber: recorded.accountNumber,
        amountPaidKobo: recorded.amountKobo,
      };
    },
  };
}
