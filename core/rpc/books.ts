/** The books' admin RPCs: the trial balance, an upstream's top-up, a provider's settlement. No rule lives here. */
import { DomainError } from '../domain/errors.js';
import { lagosDayStart, parseLagosDate } from '../domain/people.js';
import type { OwnBooked, OwnMoney } from '../ledger/own-money.js';
import type { Actor } from '../staff/audit.js';
import { koboIn, MODE_TO_PROTO, timestampInit } from './convert.js';

/** The end of a Lagos day given as YYYY-MM-DD (the balances at its close); none for an empty one. */
function untilOf(atDate: string): Date | undefined {
  if (atDate.trim() === '') return undefined;
  return lagosDayStart(parseLagosDate('at_date', atDate) + 1);
}

/** GetTrialBalanceResponse (the console's GetBooks reads it through the admin handlers). */
async function trialBalanceAnswer(ownMoney: OwnMoney, atDate: string) {
  const until = untilOf(atDate);
  const modes = await ownMoney.trialBalance(until);
  return {
    modes: modes.map((of) => ({
      mode: MODE_TO_PROTO[of.mode],
      lines: of.lines.map((line) => ({
        account: line.account,
        kind: line.kind,
        debitKobo: BigInt(line.debitKobo),
        creditKobo: BigInt(line.creditKobo),
      })),
      debitTotalKobo: BigInt(of.debitTotalKobo),
      creditTotalKobo: BigInt(of.creditTotalKobo),
    })),
    ...(until === undefined ? {} : { until: timestampInit(until) }),
  };
}

function bookedMessage(booked: OwnBooked) {
  const { entry } = booked;
  return {
    entry: {
      entryId: entry.entryId,
      kind: entry.kind,
      mode: MODE_TO_PROTO[entry.mode],
      reference: entry.reference,
      at: timestampInit(entry.at),
      postings: entry.postings.map((p) => ({ account: p.account, amountKobo: BigInt(p.amountKobo) })),
    },
    replayed: booked.replayed,
  };
}

/**
 * Under CLI_MONEY_MOVES=proposals every money move of the CLI waits for a second person; the
 * platform's own entries are no proposal kind yet, so they are refused rather than made alone.
 */
function refuseUnderProposals(held: boolean, what: string): void {
  if (held)
    throw new DomainError(
      'FAILED_PRECONDITION',
      `CLI_MONEY_MOVES=proposals is set on the core: ${what} needs four eyes, and it cannot be proposed yet. ` +
        'Nothing was booked; record it with CLI_MONEY_MOVES=direct.',
    );
}

export function booksHandlers(ownMoney: OwnMoney, heldForProposals: boolean, who: Actor) {
  return {
    getTrialBalance: (req: { atDate: string }) => trialBalanceAnswer(ownMoney, req.atDate),
    async fundUpstream(req: { upstream: string; amountKobo: bigint; reference: string }) {
      refuseUnderProposals(heldForProposals, "an upstream's top-up");
      const amount = koboIn(req.amountKobo, 'amount');
      return bookedMessage(await ownMoney.fundUpstream(req.upstream, amount, req.reference, who));
    },
    async recordSettlement(req: { provider: string; amountKobo: bigint; feeKobo: bigint; reference: string }) {
      refuseUnderProposals(heldForProposals, "a provider's settlement");
      const amount = koboIn(req.amountKobo, 'amount');
      const fee = koboIn(req.feeKobo, 'fee');
      return bookedMessage(await ownMoney.recordSettlement(req.provider, amount, fee, req.reference, who));
    },
  };
}
