/** The table of `?action=` names to their modules; the only place an action is registered. */
import type { Action } from './action.js';
import { airtime } from './airtime.js';
import { balance } from './balance.js';
import { bulksms } from './bulksms.js';
import { cable } from './cable.js';
import { data } from './data.js';
import { electricity } from './electricity.js';
import { events } from './events.js';
import { funding } from './funding.js';
import { packages } from './packages.js';
import { plans } from './plans.js';
import { transaction } from './transaction.js';
import { transactions } from './transactions.js';
import { verify } from './verify.js';

/** Every action of the public API, by its `?action=` name. */
export const ACTIONS: Readonly<Record<string, Action>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, Action>, {
    balance,
    airtime,
    data,
    plans,
    packages,
    electricity,
    cable,
    bulksms,
    transaction,
    transactions,
    events,
    verify,
    funding,
  }),
);

/** The action a name stands for, if it is one; inherited names such as "toString" are not. */
export function findAction(name: string | null): Action | undefined {
  if (name === null || !Object.hasOwn(ACTIONS, name)) return undefined;
  return ACTIONS[name];
}
