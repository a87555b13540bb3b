/**
 * The receipt SMS of the contract, 6 (docs/specification.md): an electricity payment with the optional `phone`
 * tells that phone the token, units and reference. A receipt is a courtesy: it is sent
 * after the payment settled, in the background, and its failure is only logged; it never
 * fails or refunds the payment.
 */
import { formatNaira } from '../domain/money.js';
import type { TransactionRecord } from '../domain/records.js';
import type { ProvidersByMode } from '../providers/port.js';

/** A receipt that cannot be handed to the SMS provider in this time is given up. */
const RECEIPT_TIMEOUT_MS = 10_000;

/** Tracks background work so that shutdown can wait for it. */
export class Background {
  private readonly running = new Set<Promise<void>>();

  run(work: () => Promise<void>): void {
    const promise = work().finally(() => this.running.delete(promise));
    this.running.add(promise);
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}

function receiptText(tx: TransactionRecord): string {
  const lines = [
    `${tx.service.toUpperCase()} ${tx.details.meterType ?? ''} meter ${tx.recipient}`.replace(/\s+/g, ' '),
  ];
  // Key-change tokens first: a meter may refuse the energy token until they are entered.
  for (const [i, kct] of (tx.result?.kctTokens ?? []).entries()) lines.push(`KCT${i + 1}: ${kct}`);
  if (tx.result?.token) lines.push(`Token: ${tx.result.token}`);
  for (const bonus of tx.result?.bonusTokens ?? []) lines.push(`Bonus token: ${bonus}`);
  if (tx.result?.units) lines.push(`Units: ${tx.result.units}`);
  lines.push(`Amount: N${formatNaira(tx.faceValueKobo)}`, `Ref: ${tx.reference}`);
  return lines.join('\n');
}

export function sendReceipt(
  deps: {
    providers: ProvidersByMode;
    background: Background;
    log: (event: string, fields: Record<string, unknown>) => void;
  },
  tx: TransactionRecord,
): void {
  const to = tx.details.customerPhone;
  if (tx.product !== 'electricity' || tx.status !== 'success' || !to) return;
  deps.background.run(async () => {
    const signal = AbortSignal.timeout(RECEIPT_TIMEOUT_MS);
    try {
      // A test purchase's receipt goes through the sandbox, like the purchase itself.
      const accepted = await deps.providers[tx.mode].bulksms.notify(
        { to, text: receiptText(tx), reference: tx.reference },
        signal,
      );
      deps.log('receipt.sent', { reference: tx.reference, accepted });
    } catch (error) {
      deps.log('receipt.failed', {
        reference: tx.reference,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  });
}
