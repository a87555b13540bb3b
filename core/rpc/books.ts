/** The books' admin RPCs: the trial balance, an upstream's top-up, a provider's settlement. No rule lives here. */
import { lagosDayStart, parseLagosDate } from '../domain/people.js';
import type { OwnBooked, OwnMoney } from '../ledger/own-money.js';
import type { Actor } from '../staff/audit.js';
import { int64In, koboIn, MODE_TO_PROTO, timestampInit } from './convert.js';

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

/** A top-up or settlement the CLI asked for under CLI_MONEY_MOVES=proposals. */
export interface OwnProposal {
  kind: 'upstream_topup' | 'provider_settlement';
  /** The upstream or the funding provider. */
  target: string;
  amountKobo: number;
  feeKobo: number;
  reference: string;
}

/**
 * Under CLI_MONEY_MOVES=proposals: the top-up or settlement made a four-eyes proposal (or,
 * under a reference proposed before, that proposal: replayed); nothing is booked until a
 * second person approves it.
 */
export type ProposeOwn = (move: OwnProposal) => Promise<{ proposalId: string; replayed: boolean; status: string }>;

function proposedMessage(proposed: Awaited<ReturnType<ProposeOwn>>) {
  return { replayed: proposed.replayed, proposalId: proposed.proposalId, proposalStatus: proposed.status };
}

export function booksHandlers(ownMoney: OwnMoney, propose: ProposeOwn | undefined, who: Actor) {
  return {
    getTrialBalance: (req: { atDate: string }) => trialBalanceAnswer(ownMoney, req.atDate),
    async fundUpstream(req: { upstream: string; amountKobo: bigint; reference: string }) {
      if (propose !== undefined) {
        const amountKobo = int64In(req.amountKobo, 'amount');
        const move = { kind: 'upstream_topup', target: req.upstream, amountKobo, feeKobo: 0 } as const;
        return proposedMessage(await propose({ ...move, reference: req.reference }));
      }
      const amount = koboIn(req.amountKobo, 'amount');
      return bookedMessage(await ownMoney.fundUpstream(req.upstream, amount, req.reference, who));
    },
    async recordSettlement(req: { provider: string; amountKobo: bigint; feeKobo: bigint; reference: string }) {
      if (propose !== undefined) {
        const amountKobo = int64In(req.amountKobo, 'amount');
        const feeKobo = int64In(req.feeKobo, 'fee');
        const move = { kind: 'provider_settlement', target: req.provider, amountKobo, feeKobo } as const;
        return proposedMessage(await propose({ ...move, reference: req.reference }));
      }
      const amount = koboIn(req.amountKobo, 'amount');
      const fee = koboIn(req.feeKobo, 'fee');
      return bookedMessage(await ownMoney.recordSettlement(req.provider, amount, fee, req.reference, who));
    },
  };
}
