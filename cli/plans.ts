/** `prepaid plans ...`: the data plans catalog. */

import { formatNaira } from '../core/domain/money.js';
import { type CatalogPlan, PlanChangeAction } from '../gen/prepaid/v1/admin_pb.js';
import { type AdminClient, type CommandGroup, type CommandSpec, UsageError } from './command.js';
import { columns, isoTime, kobo, moneyFields, nairaText } from './format.js';

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
            ? `${planType.toUpperCase()} plans on ${network} are now ${state}: ${res.plans.length} plan(s), ` +
              `${res.events} event(s) for partners.`
            : `${planType.toUpperCase()} plans on ${network} were already ${state}; nothing changed.`,
        ],
      };
    },
  };
}

/** "500.01 (was 500.02)" for a matched plan's code. */
function codeChange(code: string, before: string): string {
  return before === '' || before === code ? code : `${code} (was ${before})`;
}

/** `plans codes list|set|clear`: each declared upstream's code for our data plans. */
const codesCommand: CommandSpec = {
  name: 'codes',
  summary:
    'Upstream plan codes: `codes list [--upstream U]`, `codes set PLAN_ID UPSTREAM CODE`, `codes clear PLAN_ID ' +
    'UPSTREAM` (audited).',
  args: ['ACTION'],
  variadic: true,
  options: { upstream: { placeholder: 'U', summary: 'list: only this upstream.' } },
  async run({ args, options }, core) {
    const [action, ...rest] = args;
    const planIdOf = (text: string | undefined): bigint => {
      if (text === undefined || !/^[1-9]\d{0,15}$/.test(text))
        throw new UsageError(`PLAN_ID must be a plan id; got ${JSON.stringify(text ?? '')}.`);
      return BigInt(text);
    };
    const arity = (count: number, usage: string) => {
      if (rest.length !== count) throw new UsageError(`usage: prepaid plans codes ${usage}`);
    };
    switch (action) {
      case 'list': {
        arity(0, 'list [--upstream U]');
        const { codes } = await core().listPlanCodes({ upstream: options['upstream'] ?? '' });
        return {
          json: {
            upstream: options['upstream'] ?? null,
            codes: codes.map((c) => ({
              plan_id: Number(c.planId),
              upstream: c.upstream,
              code: c.code,
              network: c.network,
              label: c.label,
              updated_at: isoTime(c.updatedAt),
            })),
          },
          text:
            codes.length === 0
              ? ['No plan codes.']
              : columns([
                  ['UPSTREAM', 'PLAN', 'NETWORK', 'LABEL', 'CODE', 'SET'],
                  ...codes.map((c) => [
                    c.upstream,
                    String(c.planId),
                    c.network || '-',
                    c.label || '-',
                    c.code,
                    isoTime(c.updatedAt) ?? '-',
                  ]),
                ]),
        };
      }
      case 'set': {
        arity(3, 'set PLAN_ID UPSTREAM CODE');
        const res = await core().setPlanCode({ planId: planIdOf(rest[0]), upstream: rest[1]!, code: rest[2]! });
        const code = res.code!;
        return {
          json: { plan_id: Number(code.planId), upstream: code.upstream, code: code.code, before: res.before ?? null },
          text: [
            `Plan ${code.planId} (${code.network} ${code.label}) is sold at ${code.upstream} as ${code.code}` +
              (res.before === undefined ? '.' : ` (was ${res.before}).`),
          ],
        };
      }
      case 'clear': {
        arity(2, 'clear PLAN_ID UPSTREAM');
        const res = await core().clearPlanCode({ planId: planIdOf(rest[0]), upstream: rest[1]! });
        return {
          json: { plan_id: Number(rest[0]), upstream: rest[1], before: res.before ?? null },
          text: [
            res.before === undefined
              ? `Plan ${rest[0]} had no code at ${rest[1]}; nothing changed.`
              : `Plan ${rest[0]} is no longer sold at ${rest[1]} (its code was ${res.before}).`,
          ],
        };
      }
      default:
        throw new UsageError(`ACTION must be list, set or clear; got ${JSON.stringify(action)}.`);
    }
  },
};

/** `plans sync --upstream NAME`: one declared upstream's plan codes from its plan list. */
async function syncUpstream(upstream: string, dryRun: boolean, core: () => AdminClient) {
  const report = await core().syncUpstreamPlans({ upstream, dryRun });
  const changed = report.matched.filter((m) => m.changed);
  const json = {
    upstream: report.upstream,
    dry_run: report.dryRun,
    matched: report.matched.map((m) => ({
      plan_id: Number(m.planId),
      network: m.network,
      label: m.label,
      code: m.code,
      upstream_name: m.upstreamName,
      ...moneyFields('cost', m.costKobo),
      before_code: m.beforeCode || null,
      changed: m.changed,
    })),
    unmatched: report.unmatched.map((u) => ({
      network: u.network,
      code: u.code,
      upstream_name: u.upstreamName,
      reason: u.reason,
      candidate_plan_ids: u.candidatePlanIds.map(Number),
    })),
    cleared: report.cleared.map((c) => ({ plan_id: Number(c.planId), network: c.network, code: c.code })),
    warnings: report.warnings,
  };
  const verb = report.dryRun ? 'Would match' : 'Matched';
  const text = [
    `${verb} ${report.matched.length} of ${upstream}'s plans to ours (${changed.length} new or changed), ` +
      `${report.unmatched.length} not matched, ${report.cleared.length} code(s) ${
        report.dryRun ? 'to clear' : 'cleared'
      }.`,
  ];
  if (report.matched.length > 0)
    text.push(
      '',
      ...columns([
        ['PLAN', 'NETWORK', 'LABEL', 'CODE', 'COST', 'THEIR NAME'],
        ...report.matched.map((m) => [
          String(m.planId),
          m.network,
          m.label,
          codeChange(m.code, m.beforeCode),
          nairaText(kobo(m.costKobo)),
          m.upstreamName,
        ]),
      ]),
    );
  if (report.unmatched.length > 0)
    text.push(
      '',
      'Not matched (set these by hand with `prepaid plans codes set`):',
      ...columns([
        ['NETWORK', 'CODE', 'THEIR NAME', 'WHY', 'OUR CANDIDATES'],
        ...report.unmatched.map((u) => [
          u.network,
          u.code,
          u.upstreamName,
          u.reason,
          u.candidatePlanIds.map(String).join(',') || '-',
        ]),
      ]),
    );
  if (report.cleared.length > 0)
    text.push(
      '',
      `No longer listed by ${upstream} (code ${report.dryRun ? 'would be ' : ''}removed):`,
      ...report.cleared.map((c) => `  plan ${c.planId} (${c.network} ${c.label}): ${c.code}`),
    );
  return { json, text, warnings: [...report.warnings] };
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
    codesCommand,
    {
      name: 'sync',
      summary:
        "Make the data plans follow the data provider's plans (VTpass service-variations); plan ids stay stable.",
      args: [],
      options: {
        'dry-run': { placeholder: 'yes|no', summary: 'yes: show what would change and change nothing.' },
        upstream: {
          placeholder: 'NAME',
          summary:
            'A declared ClubKonnect or ported-number upstream: match its plan list to ours, set its codes and costs.',
        },
      },
      async run({ options }, core) {
        const dryRunText = options['dry-run'] ?? 'no';
        if (dryRunText !== 'yes' && dryRunText !== 'no')
          throw new UsageError(`--dry-run must be yes or no; got ${JSON.stringify(dryRunText)}.`);
        const upstream = options['upstream'];
        if (upstream !== undefined) return syncUpstream(upstream, dryRunText === 'yes', core);
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
          `${verb} data plans from ${report.provider}: ${counts.created} created, ${counts.updated} updated, ` +
            `${counts.deactivated} deactivated, ${counts.unchanged} unchanged.`,
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
            `${report.uncodedPlanIds.length} active plan(s) have no provider code and cannot be bought from ` +
              `${report.provider}: ${report.uncodedPlanIds.join(', ')}. ` +
              'Give them a provider code or deactivate them.',
          );
        }
        return { json, text, warnings };
      },
    },
  ],
};
