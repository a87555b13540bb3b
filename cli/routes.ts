/**
 * `prepaid routes`: which upstreams sell each product, in order. `set` and `clear`
 * change the route table in the store (audited, actor `cli`); `attempts` shows which upstream
 * got each call of one purchase. The core checks every name; nothing here decides.
 */
import { formatNaira } from '../core/domain/money.js';
import { PRODUCTS } from '../core/domain/products.js';
import { productOfWord, soldProductWord } from '../core/domain/words.js';
import { Product } from '../gen/prepaid/v1/types_pb.js';
import { type CommandGroup, UsageError } from './command.js';
import { columns, isoTime, kobo, productName } from './format.js';

/** The options that narrow a route, shared by set and clear. */
const KEY_OPTIONS = {
  network: { placeholder: 'N', summary: 'Only this network (airtime, data), for example mtn.' },
  'plan-type': { placeholder: 'T', summary: 'Only this data plan type, for example sme.' },
  disco: { placeholder: 'D', summary: 'Only this disco or cable provider (electricity, cable).' },
} as const;

/** A product as the API names it (bulksms); bulk_sms, the enum's name, is accepted too. */
function productArgument(text: string | undefined): Product {
  const word = (text ?? '').toLowerCase();
  const product = productOfWord(word === 'bulk_sms' ? soldProductWord(Product.BULK_SMS) : word);
  if (product === Product.UNSPECIFIED)
    throw new UsageError(
      `PRODUCT must be ${PRODUCTS.slice(0, -1).join(', ')} or ${PRODUCTS.at(-1)}; got ${JSON.stringify(text)}.`,
    );
  return product;
}

function keyOf(product: string | undefined, options: Record<string, string | undefined>) {
  return {
    product: productArgument(product),
    network: options['network'] ?? '',
    planType: options['plan-type'] ?? '',
    disco: options['disco'] ?? '',
  };
}

function keyText(key: { product: Product; network: string; planType: string; disco: string } | undefined): string {
  if (key === undefined) return '-';
  const parts = [productName(key.product)];
  if (key.network) parts.push(`network=${key.network}`);
  if (key.planType) parts.push(`plan-type=${key.planType}`);
  if (key.disco) parts.push(`disco=${key.disco}`);
  return parts.join(' ');
}

export const routesGroup: CommandGroup = {
  name: 'routes',
  summary: 'Which upstreams sell each product, in order; the next is tried only on proven non-delivery.',
  commands: [
    {
      name: 'list',
      summary: 'List the route table, each product’s default (PROVIDER_<FAMILY>) and the configured upstreams.',
      args: [],
      async run(_input, core) {
        const listed = await core().listRoutes({});
        const json = {
          routes: listed.routes.map((r) => ({
            product: productName(r.key!.product),
            network: r.key!.network,
            plan_type: r.key!.planType,
            disco: r.key!.disco,
            upstreams: r.upstreams,
            updated_at: isoTime(r.updatedAt),
          })),
          defaults: listed.defaults.map((r) => ({ product: productName(r.key!.product), upstreams: r.upstreams })),
          upstreams: listed.upstreams.map((u) => ({
            name: u.name,
            kind: u.kind,
            products: u.products.map(productName),
          })),
        };
        return {
          json,
          text: [
            ...columns([
              ['ROUTE', 'UPSTREAMS', 'SET'],
              ...listed.routes.map((r) => [keyText(r.key), r.upstreams.join(','), isoTime(r.updatedAt) ?? '-']),
              ...listed.defaults.map((r) => [`${keyText(r.key)} (default)`, r.upstreams.join(','), '-']),
            ]),
            '',
            ...columns([
              ['UPSTREAM', 'KIND', 'SELLS'],
              ...listed.upstreams.map((u) => [u.name, u.kind, u.products.map(productName).join(',')]),
            ]),
          ],
        };
      },
    },
    {
      name: 'set',
      summary: 'Set the upstreams of a product (optionally one network, plan type or disco), first tried first.',
      args: ['PRODUCT', 'UPSTREAM[,UPSTREAM...]'],
      options: KEY_OPTIONS,
      async run({ args, options }, core) {
        const key = keyOf(args[0], options);
        const upstreams = (args[1] ?? '').split(',').map((name) => name.trim());
        if (upstreams.some((name) => name === '')) throw new UsageError('UPSTREAM names are separated by commas.');
        const set = await core().setRoute({ key, upstreams });
        const before = set.before?.upstreams.join(',') ?? 'none';
        return {
          json: {
            route: keyText(set.route?.key),
            upstreams: set.route?.upstreams ?? [],
            before: set.before?.upstreams ?? null,
          },
          text: [`${keyText(set.route?.key)}: ${set.route?.upstreams.join(',')} (was ${before}).`],
        };
      },
    },
    {
      name: 'clear',
      summary: 'Remove a route; the next less specific route, or the default, applies.',
      args: ['PRODUCT'],
      options: KEY_OPTIONS,
      async run({ args, options }, core) {
        const key = keyOf(args[0], options);
        const cleared = await core().clearRoute({ key });
        return {
          json: { route: keyText(key), before: cleared.before?.upstreams ?? null },
          text: [
            cleared.before === undefined
              ? `${keyText(key)} had no route.`
              : `${keyText(key)}: removed (was ${cleared.before.upstreams.join(',')}).`,
          ],
        };
      },
    },
    {
      name: 'attempts',
      summary: 'Which upstream got each call of one purchase, and why it moved on.',
      args: ['REFERENCE'],
      async run({ args }, core) {
        const reference = args[0] ?? '';
        const { attempts } = await core().listUpstreamAttempts({ reference });
        return {
          json: {
            reference,
            attempts: attempts.map((a) => ({
              seq: a.seq,
              upstream: a.upstream,
              outcome: a.outcome || null,
              evidence: a.evidence || null,
              // What the upstream said it charged, in Naira; null where it did not say.
              cost_naira: a.costKobo > 0n ? formatNaira(kobo(a.costKobo)) : null,
              started_at: isoTime(a.startedAt),
            })),
          },
          text:
            attempts.length === 0
              ? [`${reference}: no upstream recorded (a test purchase, or one made before upstreams were recorded).`]
              : columns([
                  ['#', 'UPSTREAM', 'OUTCOME', 'EVIDENCE', 'COST', 'STARTED'],
                  ...attempts.map((a) => [
                    String(a.seq),
                    a.upstream,
                    a.outcome || 'calling',
                    a.evidence || '-',
                    a.costKobo > 0n ? formatNaira(kobo(a.costKobo)) : '-',
                    isoTime(a.startedAt) ?? '-',
                  ]),
                ]),
        };
      },
    },
  ],
};
