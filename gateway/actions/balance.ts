/**
 * GET ?action=balance: the balance of the caller's wallet (live or test, as its key pair), the tier name, and the mode.
 */

import { modeWord } from '../../core/domain/words.js';
import { type Action, accountOf } from './action.js';
import { naira } from './views.js';

export const balance: Action = {
  method: 'GET',
  scope: 'balance',
  async handle({ caller, core }) {
    const res = await core.purchase.getBalance({ ...accountOf(caller) });
    const mode = modeWord(res.mode);
    return { httpStatus: 200, body: { status: 'success', balance: naira(res.balanceKobo), tier: res.tierName, mode } };
  },
};
