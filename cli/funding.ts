/**
 * `prepaid funding ...`: money in by bank transfer. Open an account's virtual accounts (the
 * BVN or NIN goes to the core and the providers, and is never printed back), list them,
 * simulate a transfer into a sandbox account, and decide what could not be matched.
 */

import { parseNaira } from '../core/domain/money.js';
import { FundingService, type Inflow, type OpeningRefusal, type VirtualAccount } from '../gen/prepaid/v1/funding_pb.js';
import { type CommandGroup, UsageError } from './command.js';
import {
  columns,
  isoTime,
  kobo,
  MODE_OPTION,
  modeArgument,
  modeName,
  moneyFields,
  nairaText,
  percentText,
  present,
} from './format.js';

function accountJson(a: VirtualAccount): Record<string, unknown> {
  return {
    provider: a.provider,
    bank: a.bankName,
    account_number: a.accountNumber,
    account_name: a.accountName,
    status: a.status,
    kyc: `${a.kycKind} ending ${a.kycLast4}`,
    created_at: isoTime(a.createdAt),
  };
}

function accountRows(accounts: readonly VirtualAccount[]): string[] {
  if (accounts.length === 0)
    return ['No virtual accounts yet: open them with `prepaid funding open ACCOUNT_ID --bvn ...`.'];
  return columns([
    ['PROVIDER', 'BANK', 'ACCOUNT NUMBER', 'ACCOUNT NAME', 'STATUS'],
    ...accounts.map((a) => [a.provider, a.bankName, a.accountNumber, a.accountName, a.status]),
  ]);
}

function inflowJson(i: Inflow): Record<string, unknown> {
  return {
    inflow_id: i.inflowId,
    provider: i.provider,
    provider_reference: i.providerReference,
    account_number: i.accountNumber,
    account_id: i.accountId === '' ? null : i.accountId,
    mode: modeName(i.mode),
    ...moneyFields('amount_paid', i.amountPaidKobo),
    ...moneyFields('fee', i.feeKobo),
    ...moneyFields('credited', i.creditedKobo),
    payer_name: i.payerName,
    status: i.status,
    reason: i.reason,
    raw: i.raw,
    created_at: isoTime(i.createdAt),
  };
}

function inflowText(i: Inflow): string {
  const where = i.accountId === '' ? `to ${i.accountNumber || 'an unnamed account'}` : `to ${i.accountId}`;
  return (
    `${i.inflowId} ${i.status}: ${nairaText(kobo(i.amountPaidKobo))} from ` +
    `${i.payerName || 'an unnamed payer'} ${where} via ${i.provider} ` +
    `(${i.providerReference})${i.reason === '' ? '' : `; ${i.reason}`}`
  );
}

function refusalJson(r: OpeningRefusal): Record<string, unknown> {
  return { provider: r.provider, at: isoTime(r.at), step: r.step, reason: r.reason };
}

/** A provider's refusal, and what to do about it. */
function refusalText(accountId: string, r: OpeningRefusal): string {
  const step = r.step === 'open' ? 'refused the identity' : `refused the ${r.step}`;
  return (
    `Refused: ${r.provider} ${step} at ${isoTime(r.at)}: ${r.reason} ` +
    `Give the identity again: \`prepaid funding open ${accountId} --bvn ...\` (or the owner on the Fund wallet page).`
  );
}

/** A threshold in Naira; 0 removes it. */
function thresholdArgument(text: string): bigint {
  const parsed = parseNaira(text);
  if (!parsed.ok) throw new UsageError(`AMOUNT_NAIRA ${parsed.reason}; got ${JSON.stringify(text)}.`);
  return BigInt(parsed.kobo);
}

export const fundingGroup: CommandGroup = {
  name: 'funding',
  summary:
    'Wallet funding by bank transfer: virtual accounts, simulated transfers, ' +
    'unmatched inflows, low-balance thresholds.',
  commands: [
    {
      name: 'open',
      summary:
        "Opens the wallet's virtual accounts with every enabled provider; needs a BVN or " +
        'NIN (11 digits, never stored whole nor shown again).',
      args: ['ACCOUNT_ID'],
      options: {
        bvn: { placeholder: 'BVN', summary: 'The 11-digit Bank Verification Number (or give --nin).' },
        nin: { placeholder: 'NIN', summary: 'The 11-digit National Identification Number (or give --bvn).' },
        'first-name': { placeholder: 'NAME', summary: 'First name, as on the BVN or NIN record.', required: true },
        'last-name': { placeholder: 'NAME', summary: 'Last name, as on the BVN or NIN record.', required: true },
        phone: { placeholder: 'PHONE', summary: 'Phone number, for example 08031234567.', required: true },
        email: { placeholder: 'EMAIL', summary: 'Email address.', required: true },
        'bank-code': {
          placeholder: 'CODE',
          summary: "Paystack's identification step: the bank code of an account linked to the BVN.",
        },
        'bank-account': {
          placeholder: 'NUMBER',
          summary: "Paystack's identification step: that bank account's 10-digit number.",
        },
        mode: MODE_OPTION,
      },
      async run({ args, options }, _core, clients) {
        const bvn = options['bvn'];
        const nin = options['nin'];
        if ((bvn === undefined) === (nin === undefined)) throw new UsageError('Give exactly one of --bvn and --nin.');
        const response = await clients(FundingService).openFundingAccounts({
          accountId: args[0],
          mode: modeArgument(options['mode']),
          kyc: {
            kind: bvn === undefined ? 'nin' : 'bvn',
            number: bvn ?? nin ?? '',
            firstName: options['first-name'] ?? '',
            lastName: options['last-name'] ?? '',
            phone: options['phone'] ?? '',
            email: options['email'] ?? '',
            bankCode: options['bank-code'] ?? '',
            bankAccount: options['bank-account'] ?? '',
          },
        });
        return {
          json: {
            account_id: args[0],
            accounts: response.accounts.map(accountJson),
            pending: response.pending,
            refused: response.refused.map(refusalJson),
          },
          text: [
            `Virtual accounts of ${args[0]}:`,
            ...accountRows(response.accounts),
            ...response.pending.map((p) => `Pending: ${p}`),
            ...response.refused.map((r) => refusalText(args[0]!, r)),
          ],
        };
      },
    },
    {
      name: 'accounts',
      summary:
        "Lists the wallet's virtual accounts, the funding fee, the low-balance threshold and recent funding credits.",
      args: ['ACCOUNT_ID'],
      options: { mode: MODE_OPTION },
      async run({ args, options }, _core, clients) {
        const r = await clients(FundingService).getFunding({ accountId: args[0], mode: modeArgument(options['mode']) });
        const fee = present(r.fee, 'fee');
        const cap = fee.capKobo > 0n ? `, at most ${nairaText(kobo(fee.capKobo))}` : '';
        const feeText = `${percentText(fee.basisPoints)}${cap}`;
        return {
          json: {
            account_id: args[0],
            accounts: r.accounts.map(accountJson),
            fee: { percent: fee.basisPoints / 100, cap: fee.capKobo > 0n ? Number(fee.capKobo) / 100 : null },
            low_balance_threshold: r.lowBalanceThresholdKobo > 0n ? Number(r.lowBalanceThresholdKobo) / 100 : null,
            recent_credits: r.recentCredits.map(inflowJson),
            refusals: r.refusals.map(refusalJson),
          },
          text: [
            ...accountRows(r.accounts),
            ...r.refusals.map((refusal) => refusalText(args[0]!, refusal)),
            `Fee: ${feeText}. Low-balance threshold: ` +
              `${r.lowBalanceThresholdKobo > 0n ? nairaText(kobo(r.lowBalanceThresholdKobo)) : 'none'}.`,
            ...r.recentCredits.map(inflowText),
          ],
        };
      },
    },
    {
      name: 'simulate-transfer',
      summary:
        'Sends a simulated bank transfer into a sandbox account number; it is credited ' +
        'through the same path as a real transfer.',
      args: ['ACCOUNT_NUMBER', 'AMOUNT_NAIRA'],
      options: {
        reference: {
          placeholder: 'REF',
          summary: 'The transfer reference (the same REF again is the same transfer); made up when absent.',
        },
        payer: { placeholder: 'NAME', summary: "The payer's name shown with the credit." },
      },
      async run({ args, options }, _core, clients) {
        const amount = thresholdArgument(args[1] ?? '');
        if (amount <= 0n) throw new UsageError('AMOUNT_NAIRA must be more than zero.');
        const r = await clients(FundingService).simulateTransfer({
          accountNumber: args[0],
          amountKobo: amount,
          reference: options['reference'] ?? '',
          payerName: options['payer'] ?? '',
        });
        return {
          json: { outcome: r.outcome, inflow: r.inflow === undefined ? null : inflowJson(r.inflow) },
          text: [`Transfer ${r.outcome}.`, ...(r.inflow === undefined ? [] : [inflowText(r.inflow)])],
        };
      },
    },
    {
      name: 'unmatched',
      summary: "Lists transfers that could not be matched to a wallet, oldest first, with the provider's answer.",
      args: [],
      async run(_input, _core, clients) {
        const r = await clients(FundingService).listInflows({ status: 'unmatched' });
        return {
          json: { inflows: r.inflows.map(inflowJson) },
          text: r.inflows.length === 0 ? ['No unmatched transfers.'] : r.inflows.map(inflowText),
        };
      },
    },
    {
      name: 'assign',
      summary: "Credits an unmatched transfer to an account's wallet (once; less the funding fee).",
      args: ['INFLOW_ID', 'ACCOUNT_ID'],
      async run({ args }, _core, clients) {
        const r = await clients(FundingService).assignInflow({ inflowId: args[0], accountId: args[1] });
        if (r.proposalId !== '')
          // CLI_MONEY_MOVES=proposals on the core: nothing moved; a finance member approves in the console.
          return {
            json: { inflow_id: args[0], account_id: args[1], proposal_id: r.proposalId, status: r.proposalStatus },
            text: [
              `Proposed crediting transfer ${args[0]} to ${args[1]} as ${r.proposalId}; nothing moves until ` +
                'a finance or admin member approves it in the console (within 24 hours).',
            ],
          };
        const inflow = present(r.inflow, 'inflow');
        return {
          json: inflowJson(inflow),
          text: [`Credited ${nairaText(kobo(inflow.creditedKobo))} to ${inflow.accountId}.`, inflowText(inflow)],
        };
      },
    },
    {
      name: 'reject',
      summary: 'Marks an unmatched transfer rejected (for example returned to the sender): it is never credited.',
      args: ['INFLOW_ID'],
      options: { reason: { placeholder: 'TEXT', summary: 'Why, for the record.', required: true } },
      async run({ args, options }, _core, clients) {
        const r = await clients(FundingService).rejectInflow({ inflowId: args[0], reason: options['reason'] ?? '' });
        const inflow = present(r.inflow, 'inflow');
        return { json: inflowJson(inflow), text: [inflowText(inflow)] };
      },
    },
    {
      name: 'low-balance',
      summary:
        "Sets the wallet's low-balance threshold in Naira (0 removes it): a debit that " +
        'crosses it sends one wallet.low_balance event.',
      args: ['ACCOUNT_ID', 'AMOUNT_NAIRA'],
      options: { mode: MODE_OPTION },
      async run({ args, options }, _core, clients) {
        const threshold = thresholdArgument(args[1] ?? '');
        await clients(FundingService).setLowBalanceThreshold({
          accountId: args[0],
          mode: modeArgument(options['mode']),
          thresholdKobo: threshold,
        });
        return {
          json: { account_id: args[0], low_balance_threshold: threshold > 0n ? Number(threshold) / 100 : null },
          text: [
            threshold > 0n
              ? `Low-balance threshold of ${args[0]}: ${nairaText(kobo(threshold))}.`
              : `Low-balance threshold of ${args[0]} removed.`,
          ],
        };
      },
    },
  ],
};
