/** `prepaid plans ...`: the data plans catalog. */

import { formatNaira } from '../core/domain/money.js';
import { type CatalogPlan, PlanChangeAction } from '../gen/prepaid/v1/admin_pb.js';
import { type CommandGroup, type CommandSpec, UsageError } from './command.js';
import { columns, kobo, moneyFields, nairaText } from './format.js';

/** How `plans sync` names what it did to a plan. */
const ACTION_WORDS: Readonly<Record<PlanChangeAction, string>> = {
  [PlanChangeAction.UNSPECIFIED]: 'unknown',
  [PlanChangeAction.CREATED]: 'created',
  [PlanChangeAction.UPDATED]: 'updated',
  [PlanChangeAction.DEACTIVATED]: 'deactivated',
};

function planJson(plan: CatalogPlan | undefined): Record<string, unknown> | null {
  if (plan === undefined) return null;
  return {
    plan_id: Number(plan.planId),
    network: plan.network,
    label: plan.label,
    validity: plan.validity,
    provider_code: plan.providerCode,
    ...moneyFields('face_value', plan.faceValueKobo),
    active: plan.active,
  };
}

/** "label 1GB -> 1.5GB, face NGN 500.00 -> NGN 600.00" for an updated plan. */
function differences(before: CatalogPlan | undefined, after: CatalogPlan): string {
  if (before === undefined) return `${after.label} (${after.validity}), ${nairaText(kobo(after.faceValueKobo))}`;
  const parts: string[] = [];
  if (before.label !== after.label)
    parts.push(`label ${JSON.stringify(before.label)} -> ${JSON.stringify(after.label)}`);
  if (before.validity !== after.validity) parts.push(`validity ${before.validity} -> ${after.validity}`);
  if (before.faceValueKobo !== after.faceValueKobo)
    parts.push(`face ${nairaText(kobo(before.faceValueKobo))} -> ${nairaText(kobo(after.faceValueKobo))}`);
  if (before.active !== after.active) parts.push(after.active ? 'reactivated' : 'deactivated');
  return parts.join(', ') || 'no visible change';
}

/** `plans enable` and `plans disable`: one plan type on one network on or off. */
function switchCommand(enabled: boolean): CommandSpec {
  return {
    name: enabled ? 'enable' : 'disable',
    summary: enabled
      ? 'Sell one plan type on one network again; partners get plan.updated for its plans.'
      : 'Stop selling one plan type on one network (a purchase is 422 PLAN_DISABLED); partners get plan.disabled.',
    args: [],
    options: {
      network: { placeholder: 'NET', summary: 'mtn, glo, airtel or 9mobile (t2).', required: true },
      type: { placeholder: 'TYPE', summary: 'sme, sme2, cg, gifting, awoof or direct.', required: true },
      note: { placeholder: 'TEXT', summary: 'Why, kept in the audit log.' },
    },
    async run({ options }, core) {
      const network = options['network'] ?? '';
      const planType = options['type'] ?? '';
      const res = await core().setPlanTypeEnabled({ network, planType, enabled, note: options['note'] ?? '' });
      const state = enabled ? 'on sale' : 'switched off';
      return {
        json: {
          network,
          type: planType,
          enabled,
          changed: res.changed,
          plan_ids: res.plans.map((p) => Number(p.planId)),
          events: res.events,
        },
        text: [
          res.changed
            ? `${planType.toUpperCase()} plans on ${network} are now ${state}: ${res.plans.length} plan(s), ${res.events} event(s) for partners.`
            : `${planType.toUpperCase()} plans on ${network} were already ${state}; nothing changed.`,
        ],
      };
    },
  };
}

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
          p.type || '-',
          p.active ? (p.typeEnabled ? 'active' : 'type off') : 'inactive',
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
              type: p.type,
              size_mb: p.sizeMb,
              validity_days: p.validityDays,
              costs: p.costs.map((c) => ({ upstream: c.upstream, ...moneyFields('cost', c.costKobo) })),
              active: p.active,
              type_enabled: p.typeEnabled,
            })),
          },
          text:
            rows.length === 0
              ? [network ? `No plans for network ${network}.` : 'No plans.']
              : columns([
                  ['PLAN', 'NETWORK', 'LABEL', 'VALIDITY', 'FACE VALUE', 'TIER PRICES (NGN)', 'TYPE', 'STATE'],
                  ...rows,
                ]),
        };
      },
    },
    switchCommand(false),
    switchCommand(true),
    {
      name: 'sync',
      summary:
        "Make the data plans follow the data provider's plans (VTpass service-variations); plan ids stay stable.",
      args: [],
      options: { 'dry-run': { placeholder: 'yes|no', summary: 'yes: show what would change and change nothing.' } },
      async run({ options }, core) {
        const dryRunText = options['dry-run'] ?? 'no';
        if (dryRunText !== 'yes' && dryRunText !== 'no')
          throw new UsageError(`--dry-run must be yes or no; got ${JSON.stringify(dryRunText)}.`);
        const report = await core().syncPlans({ dryRun: dryRunText === 'yes' });
        const count = (action: PlanChangeAction) => report.changes.filter((c) => c.action === action).length;
        const counts = {
          created: count(PlanChangeAction.CREATED),
          updated: count(PlanChangeAction.UPDATED),
          deactivated: count(PlanChangeAction.DEACTIVATED),
          unchanged: report.unchanged,
        };
        const json = {
          provider: report.provider,
          supported: report.supported,
          dry_run: report.dryRun,
          ...counts,
          changes: report.changes.map((c) => ({
            action: ACTION_WORDS[c.action],
            plan: planJson(c.plan),
            before: planJson(c.before),
          })),
          uncoded_plan_ids: report.uncodedPlanIds.map(Number),
          warnings: report.warnings,
        };
        if (!report.supported) {
          return {
            json,
            text: [`The data provider is ${report.provider}, which publishes no plans: there is nothing to sync.`],
          };
        }
        const verb = report.dryRun ? 'Would sync' : 'Synced';
        const text = [
          `${verb} data plans from ${report.provider}: ${counts.created} created, ${counts.updated} updated, ${counts.deactivated} deactivated, ${counts.unchanged} unchanged.`,
        ];
        const rows = report.changes.map((c) => {
          const plan = c.plan!;
          return [
            ACTION_WORDS[c.action],
            plan.planId === 0n ? '(new)' : String(plan.planId),
            plan.network,
            plan.providerCode,
            differences(c.before, plan),
          ];
        });
        if (rows.length > 0)
          text.push('', ...columns([['CHANGE', 'PLAN', 'NETWORK', 'PROVIDER CODE', 'WHAT'], ...rows]));
        const warnings = [...report.warnings];
        if (report.uncodedPlanIds.length > 0) {
          warnings.push(
            `${report.uncodedPlanIds.length} active plan(s) have no provider code and cannot be bought from ${report.provider}: ${report.uncodedPlanIds.join(', ')}. ` +
              'Give them a provider code or deactivate them.',
          );
        }
        return { json, text, warnings };
      },
    },
  ],
};
