/** `prepaid plans ...`: the data plans catalog. */
import type { CommandGroup } from './command.js';
import { columns, kobo, moneyFields, nairaText } from './format.js';
import { formatNaira } from '../domain/money.js';

/** The plans command group. */
export const plansGroup: CommandGroup = {
  name: 'plans',
  summary: 'The data plans catalog.',
  commands: [
    {
      name: 'list',
      summary: 'List data plans with their face value and per-tier prices, inactive ones included.',
      args: [],
      options: { network: { placeholder: 'NET', summary: 'Only this network: mtn, glo, airtel or 9mobile.' } },
      async run({ options }, core) {
        const network = options['network'] ?? '';
        const { plans } = await core().listCatalogPlans({ network });
        const rows = plans.map((p) => [
          String(p.planId),
          p.network,
          p.label,
          p.validity,
          nairaText(kobo(p.faceValueKobo)),
          p.tierPrices.map((tp) => `${tp.tierId} ${formatNaira(kobo(tp.priceKobo))}`).join(', ') || '-',
          p.active ? 'active' : 'inactive',
        ]);
        return {
          json: {
            network: network || null,
            plans: plans.map((p) => ({
              plan_id: Number(p.planId),
              network: p.network,
              label: p.label,
              validity: p.validity,
              ...moneyFields('face_value', p.faceValueKobo),
              tier_prices: p.tierPrices.map((tp) => ({ tier_id: tp.tierId, ...moneyFields('price', tp.priceKobo) })),
              active: p.active,
            })),
          },
          text:
            rows.length === 0
              ? [network ? `No plans for network ${network}.` : 'No plans.']
              : columns([['PLAN', 'NETWORK', 'LABEL', 'VALIDITY', 'FACE VALUE', 'TIER PRICES (NGN)', 'STATE'], ...rows]),
        };
      },
    },
  ],
};
