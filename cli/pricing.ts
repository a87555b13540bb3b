/** `prepaid pricing ...`: the bulk SMS page rate, plan costs per upstream and tiers' price rules. */

import { koboToNaira } from '../core/domain/money.js';
import { type CommandGroup, type CommandResult, UsageError } from './command.js';
import { kobo, moneyFields, nairaArgument, nairaText, percentText } from './format.js';

function rateResult(koboPerPage: bigint, verb: string): CommandResult {
  const rateKobo = kobo(koboPerPage);
  return {
    json: { naira_per_page: koboToNaira(rateKobo), kobo_per_page: rateKobo },
    text: [`SMS page rate ${verb} ${nairaText(rateKobo)} per page per recipient.`],
  };
}

/** A Naira option that may be 0 (none), in kobo; a usage error for anything else. */
function nairaOrZero(name: string, text: string | undefined): bigint {
  if (text === undefined || text === '0') return 0n;
  return BigInt(nairaArgument(name, text));
}

/** "5%" or "5" as basis points (500); at most two decimals. */
function percentOption(text: string | undefined): number {
  if (text === undefined) return 0;
  const match = /^(\d{1,4})(?:\.(\d{1,2}))?%?$/.exec(text);
  if (match === null)
    throw new UsageError(`--margin-percent must be a percentage such as 5 or 2.5; got ${JSON.stringify(text)}.`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/** The pricing command group. */
export const pricingGroup: CommandGroup = {
  name: 'pricing',
  summary: "Prices: the bulk SMS page rate, what upstreams charge for plans, and tiers' cost-plus rules.",
  commands: [
    {
      name: 'cost',
      summary: 'Set what an upstream charges for a data plan, in Naira (0 forgets it); prices built on it follow.',
      args: ['PLAN_ID', 'NAIRA'],
      options: {
        upstream: { placeholder: 'NAME', summary: 'The upstream, for example vtpass.', required: true },
        note: { placeholder: 'TEXT', summary: 'Why, kept in the audit log.' },
      },
      async run({ args, options }, core) {
        const planId = Number(args[0]);
        if (!Number.isSafeInteger(planId) || planId <= 0)
          throw new UsageError(`PLAN_ID must be a plan id; got ${JSON.stringify(args[0])}.`);
        const costKobo = nairaOrZero('NAIRA', args[1]);
        const upstream = options['upstream'] ?? '';
        const res = await core().setPlanCost({
          planId: BigInt(planId),
          upstream,
          costKobo,
          note: options['note'] ?? '',
        });
        return {
          json: {
            plan_id: planId,
            upstream,
            ...moneyFields('cost', costKobo),
            costs: (res.plan?.costs ?? []).map((c) => ({ upstream: c.upstream, ...moneyFields('cost', c.costKobo) })),
            events: res.events,
          },
          text: [
            costKobo === 0n
              ? `Plan ${planId}: the cost at ${upstream} is forgotten; ${res.events} event(s) for partners.`
              : `Plan ${planId} costs ${nairaText(kobo(costKobo))} at ${upstream}; ${res.events} event(s) for partners.`,
          ],
        };
      },
    },
    {
      name: 'rule',
      summary:
        "Set a tier's data price rule: cost plus a margin (percent and/or flat), within an optional floor and ceiling.",
      args: ['TIER_ID'],
      options: {
        network: { placeholder: 'NET', summary: 'Only this network (default: every network).' },
        type: { placeholder: 'TYPE', summary: 'Only this plan type (default: every type).' },
        'margin-percent': { placeholder: 'PCT', summary: 'Margin as a percentage of the cost, for example 5.' },
        'margin-naira': { placeholder: 'NAIRA', summary: 'Flat margin in Naira, added to the percentage.' },
        floor: { placeholder: 'NAIRA', summary: 'The least the price may be.' },
        ceiling: { placeholder: 'NAIRA', summary: 'The most the price may be (a price below cost is then refused).' },
        remove: { placeholder: '', summary: 'Remove the rule for this network and type instead.', flag: true },
        note: { placeholder: 'TEXT', summary: 'Why, kept in the audit log.' },
      },
      async run({ args, options }, core) {
        const tierId = args[0] ?? '';
        const remove = options['remove'] === 'yes';
        const rule = {
          network: options['network'] ?? '',
          planType: options['type'] ?? '',
          marginBasisPoints: percentOption(options['margin-percent']),
          marginKobo: nairaOrZero('--margin-naira', options['margin-naira']),
          floorKobo: nairaOrZero('--floor', options['floor']),
          ceilingKobo: nairaOrZero('--ceiling', options['ceiling']),
        };
        const res = await core().setPriceRule({ tierId, rule, remove, note: options['note'] ?? '' });
        const scope = `${rule.network || 'every network'}, ${rule.planType || 'every type'}`;
        return {
          json: {
            tier_id: tierId,
            removed: remove,
            rules: (res.tier?.priceRules ?? []).map((r) => ({
              network: r.network || null,
              type: r.planType || null,
              margin_percent: r.marginBasisPoints / 100,
              ...moneyFields('margin', r.marginKobo),
              ...moneyFields('floor', r.floorKobo),
              ...moneyFields('ceiling', r.ceilingKobo),
            })),
            events: res.events,
          },
          text: [
            remove
              ? `Tier ${tierId}: the rule for ${scope} is removed; ${res.events} event(s) for partners.`
              : `Tier ${tierId}: data plans (${scope}) cost plus ${percentText(rule.marginBasisPoints)} plus ${nairaText(kobo(rule.marginKobo))}; ${res.events} event(s) for partners.`,
          ],
        };
      },
    },
    {
      name: 'set-sms-rate',
      summary: 'Set the price of one SMS page to one recipient, in Naira.',
      args: ['NAIRA_PER_PAGE'],
      async run({ args }, core) {
        const koboPerPage = nairaArgument('NAIRA_PER_PAGE', args[0] ?? '');
        return rateResult((await core().setSmsRate({ koboPerPage: BigInt(koboPerPage) })).koboPerPage, 'is now');
      },
    },
    {
      name: 'get-sms-rate',
      summary: 'Show the price of one SMS page to one recipient.',
      args: [],
      async run(_input, core) {
        return rateResult((await core().getSmsRate({})).koboPerPage, 'is');
      },
    },
  ],
};
