/**
 * GET ?action=plans[&network=mtn][&type=sme]: the data plans on sale at the price this
 * account pays. An unknown network or type is the core's 422. A network may be named by any
 * of its names (t2 for 9mobile); each plan lists every name of its network in
 * `network_names`. The object is the one plan.updated and plan.disabled events carry
 * (publicPlan in core/domain/events.ts).
 */
import { canonicalNetwork, networkNames } from '../../core/domain/products.js';
import { type Action, accountOf } from './action.js';
import { FieldReader } from './params.js';
import { int64, naira } from './views.js';

export const plans: Action = {
  method: 'GET',
  scope: 'read',
  async handle({ caller, query, core }) {
    const fields = new FieldReader(query);
    const network = fields.optionalString('network');
    const planType = fields.optionalString('type');
    fields.done();

    const res = await core.purchase.listPlans({ ...accountOf(caller), network, planType });
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
          type: plan.type,
          size_mb: plan.sizeMb,
          validity_days: plan.validityDays,
        })),
      },
    };
  },
};
