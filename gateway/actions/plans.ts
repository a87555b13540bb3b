/**
 * GET ?action=plans[&network=mtn]: the active data plans at the price this account pays.
 * An unknown network is the core's 422. A network may be named by any of its names (t2 for
 * 9mobile); each plan lists every name of its network in `network_names`.
 */
import { canonicalNetwork, networkNames } from '../../core/domain/products.js';
import { type Action, accountOf } from './action.js';
import { FieldReader } from './params.js';
import { int64, naira } from './views.js';

export const plans: Action = {
  method: 'GET',
  async handle({ caller, query, core }) {
    const fields = new FieldReader(query);
    const network = fields.optionalString('network');
    fields.done();

    const res = await core.purchase.listPlans({ ...accountOf(caller), network });
    return {
      httpStatus: 200,
      body: {
        status: 'success',
        plans: res.plans.map((plan) => ({
          plan_id: int64(plan.planId),
          network: plan.network,
          network_names: networkNames(canonicalNetwork(plan.network) ?? plan.network),
          plan: plan.label,
          validity: plan.validity,
          price: naira(plan.priceKobo),
        })),
      },
    };
  },
};
