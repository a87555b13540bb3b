/**
 * `prepaid pricing ...`: the bulk SMS page rate, plan costs per upstream, tiers' price rules,
 * and the commissions that make airtime, electricity and cable costs.
 */

import { koboToNaira } from '../core/domain/money.js';
import { soldProductWord } from '../core/domain/words.js';
import { Product } from '../gen/prepaid/v1/types_pb.js';
import { type CommandGroup, type CommandResult, UsageError } from './command.js';
import { kobo, moneyFields, nairaArgument, nairaText, percentText } from './format.js';

/** A price rule's product word when --product is absent, and the one whose network is its service. */
const DATA = soldProductWord(Product.DATA);
const AIRTIME = soldProductWord(Product.AIRTIME);

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
function percentOption(text: string | undefined, name = '--margin-percent'): number {
  if (text === undefined) return 0;
  const match = /^(\d{1,4})(?:\.(\d{1,2}))?%?$/.exec(text);
  if (match === null)
    throw new UsageError(`${name} must be a percentage such as 5 or 2.5; got ${JSON.stringify(text)}.`);
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
              : `Plan ${planId} costs ${nairaText(kobo(costKobo))} at ${upstream}; ${res.events} ` +
                `event(s) for partners.`,
          ],
        };
      },
    },
    {
      name: 'rule',
      summary:
        "Set a tier's price rule (data, or airtime, electricity, cable over their commissions): " +
        'cost plus a margin (percent and/or flat), within an optional floor and ceiling.',
      args: ['TIER_ID'],
      options: {
        product: { placeholder: 'PRODUCT', summary: 'data (the default), airtime, electricity or cable.' },
        network: { placeholder: 'NET', summary: 'data, airtime: only this network (default: every network).' },
        type: { placeholder: 'TYPE', summary: 'data: only this plan type (default: every type).' },
        disco: { placeholder: 'DISCO', summary: 'electricity: only this disco (default: every disco).' },
        provider: { placeholder: 'PROVIDER', summary: 'cable: only this provider (default: every provider).' },
        'above-face-value': {
          placeholder: '',
          summary: 'airtime, electricity, cable: let the price go above the face value (never, by default).',
          flag: true,
        },
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
        const product = options['product'] ?? DATA;
        const rule = {
          product,
          // An airtime rule's network is its service.
          network: product === AIRTIME ? '' : (options['network'] ?? ''),
          service: (product === AIRTIME ? options['network'] : (options['disco'] ?? options['provider'])) ?? '',
          aboveFaceValue: options['above-face-value'] === 'yes',
          planType: options['type'] ?? '',
          marginBasisPoints: percentOption(options['margin-percent']),
          marginKobo: nairaOrZero('--margin-naira', options['margin-naira']),
          floorKobo: nairaOrZero('--floor', options['floor']),
          ceilingKobo: nairaOrZero('--ceiling', options['ceiling']),
        };
        const res = await core().setPriceRule({ tierId, rule, remove, note: options['note'] ?? '' });
        const scope =
          product === DATA
            ? `data plans (${rule.network || 'every network'}, ${rule.planType || 'every type'})`
            : `${product} (${rule.service || 'every one'})`;
        return {
          json: {
            tier_id: tierId,
            removed: remove,
            rules: (res.tier?.priceRules ?? []).map((r) => ({
              product: r.product || DATA,
              service: r.service || null,
              above_face_value: r.aboveFaceValue,
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
              : `Tier ${tierId}: ${scope} cost plus ${percentText(rule.marginBasisPoints)} plus ` +
                `${nairaText(kobo(rule.marginKobo))}; ${res.events} event(s) for partners.`,
          ],
        };
      },
    },
    {
      name: 'costs',
      summary:
        "Airtime, electricity and cable costs: `costs set PRODUCT` sets an upstream's " +
        'commission off face value (audited), `costs list` lists them.',
      args: ['set|list'],
      optionalArgs: ['PRODUCT'],
      options: {
        network: { placeholder: 'NET', summary: 'airtime: only this network (default: every network).' },
        disco: { placeholder: 'DISCO', summary: 'electricity: only this disco (default: every disco).' },
        provider: { placeholder: 'PROVIDER', summary: 'cable: only this provider (default: every provider).' },
        upstream: { placeholder: 'NAME', summary: 'set: the upstream, for example vtpass.' },
        'commission-percent': { placeholder: 'PCT', summary: "set: the upstream's commission, for example 3 or 2.5." },
        remove: { placeholder: '', summary: 'set: remove the rule instead.', flag: true },
        note: { placeholder: 'TEXT', summary: 'Why, kept in the audit log.' },
      },
      async run({ args, options }, core) {
        const [action, product] = args;
        if (action === 'list') {
          if (product !== undefined) throw new UsageError('costs list takes no PRODUCT.');
          const rules = (await core().listCostRules({})).rules;
          return {
            json: {
              rules: rules.map((r) => ({
                product: r.product,
                service: r.service || null,
                upstream: r.upstream,
                commission_percent: r.commissionBasisPoints / 100,
              })),
            },
            text:
              rules.length === 0
                ? ['No cost rules: airtime, electricity and cable sales have no margin guard.']
                : rules.map(
                    (r) =>
                      `${r.product} ${r.service || '(every one)'} at ${r.upstream}: commission ` +
                      `${percentText(r.commissionBasisPoints)}`,
                  ),
          };
        }
        if (action !== 'set') throw new UsageError(`costs takes set or list; got ${JSON.stringify(action)}.`);
        if (product === undefined) throw new UsageError('costs set needs a PRODUCT: airtime, electricity or cable.');
        const scoped = (['network', 'disco', 'provider'] as const).filter((name) => options[name] !== undefined);
        if (scoped.length > 1) throw new UsageError('give at most one of --network, --disco and --provider.');
        const service = scoped.length === 0 ? '' : options[scoped[0]!]!;
        const upstream = options['upstream'];
        if (upstream === undefined) throw new UsageError('costs set needs --upstream NAME.');
        const remove = options['remove'] === 'yes';
        const percent = options['commission-percent'];
        if (!remove && percent === undefined) throw new UsageError('costs set needs --commission-percent PCT.');
        const commissionBasisPoints = remove ? 0 : percentOption(percent, '--commission-percent');
        const res = await core().setCostRule({
          rule: { product, service, upstream, commissionBasisPoints },
          remove,
          note: options['note'] ?? '',
        });
        const scope = `${product} ${res.rule?.service || service || '(every one)'} at ${upstream}`;
        return {
          json: {
            product,
            service: res.rule?.service || service || null,
            upstream,
            removed: remove,
            commission_percent: remove ? null : commissionBasisPoints / 100,
            changed: res.changed,
          },
          text: [
            remove
              ? `${scope}: the commission rule is removed${res.changed ? '' : ' (there was none)'}.`
              : `${scope}: commission ` +
                `${percentText(commissionBasisPoints)}${res.changed ? '' : ' (unchanged)'}; ` +
                `sales priced below face value less it are refused.`,
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
