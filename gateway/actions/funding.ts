/**
 * GET ?action=funding: the bank accounts that fund the caller's wallet (live or test, as its
 * key pair) and the funding fee, so a partner can show its users where to transfer before
 * anyone does. `fee.percent` is the percentage of each transfer (0 when there is none) and
 * `fee.cap` the most one transfer pays in Naira (null: no cap). Accounts are opened by the
 * account's owner (the developer area's Fund wallet page) or the operator; none yet is `[]`.
 */
import { type Action, accountOf } from './action.js';
import { naira } from './views.js';

/** Basis points per percent: the core keeps the fee in whole basis points (100 = 1%). */
const BASIS_POINTS_PER_PERCENT = 100;

export const funding: Action = {
  method: 'GET',
  scope: 'balance',
  async handle({ caller, core }) {
    const res = await core.holderFunding.getAccountFunding({ ...accountOf(caller) });
    const fee = res.fee;
    return {
      httpStatus: 200,
      body: {
        status: 'success',
        accounts: res.accounts.map((a) => ({
          provider: a.provider,
          bank: a.bankName,
          account_number: a.accountNumber,
          account_name: a.accountName,
          status: a.status,
        })),
        fee: {
          percent: (fee?.basisPoints ?? 0) / BASIS_POINTS_PER_PERCENT,
          cap: fee === undefined || fee.capKobo === 0n ? null : naira(fee.capKobo),
        },
      },
    };
  },
};
