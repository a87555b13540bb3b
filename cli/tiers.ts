/** `prepaid tiers ...`: the pricing tiers and their discounts. */
import type { CommandGroup } from './command.js';
import { columns, percentText, productName } from './format.js';

/** The tiers command group. */
export const tiersGroup: CommandGroup = {
  name: 'tiers',
  summary: 'Pricing tiers.',
  commands: [
    {
      name: 'list',
      summary: 'List the tiers, whether they have API access, and their discounts.',
      args: [],
      async run(_input, core) {
        const { tiers } = await core().listTiers({});
        const rows = tiers.map((t) => [
          t.tierId,
          t.name,
          t.apiAccess ? 'API access' : 'no API access',
          t.discounts.length === 0
            ? 'no discounts'
            : t.discounts
                .map(
                  (d) => `${productName(d.product)}${d.service ? `/${d.service}` : ''} ${percentText(d.basisPoints)}`,
                )
                .join(', '),
        ]);
        return {
          json: {
            tiers: tiers.map((t) => ({
              tier_id: t.tierId,
              name: t.name,
              api_access: t.apiAccess,
              discounts: t.discounts.map((d) => ({
                product: productName(d.product),
                service: d.service,
                basis_points: d.basisPoints,
              })),
            })),
          },
          text: columns([['TIER', 'NAME', 'ACCESS', 'DISCOUNTS'], ...rows]),
        };
      },
    },
  ],
};
