/** GET ?action=balance: the wallet balance and the account's tier name. */
import type { Action } from './action.js';
import { naira } from './views.js';

export const balance: Action = {
  method: 'GET',
  async handle({ caller, core }) {
    const res = await core.purchase.getBalance({ accountId: caller.accountId });
    return { httpStatus: 200, body: { status: 'success', balance: naira(res.balanceKobo), tier: res.tierName } };
  },
};
