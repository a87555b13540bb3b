/**
 * Cable bouquets that follow the upstream (VTpass's `variations-update` pushes for dstv,
 * gotv and startimes). The push is only a hint: the provider's bouquets are read again
 * from the upstream's own list, then
 *   - a bouquet we sell whose code is listed takes the listed price (its name stays ours),
 *     and is on sale again if it had been withdrawn;
 *   - a code we do not know becomes a new package, on sale at the listed price;
 *   - a bouquet we sell whose code is no longer listed is withdrawn (inactive, never
 *     deleted: old transactions name it), and buying it answers 422 saying so.
 * A package's code at the upstream is its provider code, else its package code, compared
 * ignoring case. A list that shares no code with the bouquets on sale is a mapping problem
 * (the operator has not set the provider codes), not every bouquet withdrawn at once: it is
 * left alone with a warn line. One audit row per push that changed something.
 */
import type { CableProvider } from '../domain/products.js';
import type { CablePackageRecord } from '../domain/records.js';
import type { Providers, UpstreamPlan } from '../providers/port.js';
import type { Store } from '../store/port.js';
import type { ChangeAuthor } from './changes.js';

/** Reading one provider's bouquets may take this long (the plans sync's bound). */
const FOLLOW_TIMEOUT_MS = 60_000;
/** The catalog's bound on names shown to partners (core/catalog/service.ts). */
const MAX_NAME = 60;

/** What following one provider's list did to one package. */
interface PackageChange {
  action: 'created' | 'repriced' | 'withdrawn' | 'restored';
  packageCode: string;
  name: string;
  priceKobo: number;
  /** The price before, for repriced packages. */
  beforeKobo?: number;
}

/** What a follow did. */
export interface CableFollowReport {
  provider: CableProvider;
  /** False when the cable provider publishes no bouquets (the sandbox): nothing was done. */
  supported: boolean;
  changes: PackageChange[];
  /** Why nothing was changed although the list was read, if so. */
  skipped?: string;
}

const keyOf = (pkg: CablePackageRecord) => (pkg.providerCode || pkg.packageCode).toLowerCase();

export function createCableFollow(deps: {
  store: Pick<Store, 'catalog' | 'auditLog'>;
  providers: Pick<Providers, 'cable'>;
  clock: () => Date;
  log: (event: string, fields: Record<string, unknown>) => void;
}) {
  /** The writes that make `existing` follow `listed`, or why none are made. */
  function plan(
    existing: readonly CablePackageRecord[],
    listed: readonly UpstreamPlan[],
    provider: CableProvider,
  ): { writes: CablePackageRecord[]; changes: PackageChange[] } | { skipped: string } {
    if (listed.length === 0) return { skipped: 'the upstream listed no bouquets' };
    const byKey = new Map(listed.map((item) => [item.code.toLowerCase(), item]));
    const onSale = existing.filter((pkg) => pkg.active);
    if (onSale.length > 0 && !onSale.some((pkg) => byKey.has(keyOf(pkg))))
      return {
        skipped:
          'none of the bouquets on sale has a code the upstream lists; ' +
          'set their provider codes (UpsertCablePackage) first',
      };
    const writes: CablePackageRecord[] = [];
    const changes: PackageChange[] = [];
    const known = new Set<string>();
    for (const pkg of existing) {
      const key = keyOf(pkg);
      known.add(key);
      const item = byKey.get(key);
      if (item === undefined) {
        if (!pkg.active) continue;
        writes.push({ ...pkg, active: false });
        changes.push({ action: 'withdrawn', packageCode: pkg.packageCode, name: pkg.name, priceKobo: pkg.priceKobo });
        continue;
      }
      if (pkg.active && pkg.priceKobo === item.amountKobo) continue;
      writes.push({ ...pkg, priceKobo: item.amountKobo, active: true });
      changes.push({
        action: pkg.active ? 'repriced' : 'restored',
        packageCode: pkg.packageCode,
        name: pkg.name,
        priceKobo: item.amountKobo,
        beforeKobo: pkg.priceKobo,
      });
    }
    for (const item of listed) {
      if (known.has(item.code.toLowerCase())) continue;
      const name = item.name.length > MAX_NAME ? `${item.name.slice(0, MAX_NAME - 1)}…` : item.name;
      writes.push({
        provider,
        packageCode: item.code,
        name,
        priceKobo: item.amountKobo,
        active: true,
        providerCode: '',
      });
      changes.push({ action: 'created', packageCode: item.code, name, priceKobo: item.amountKobo });
    }
    return { writes, changes };
  }

  return {
    /**
     * Makes one cable provider's packages follow the upstream's list now. Throws when the
     * list cannot be read, so the pusher is told to send the push again.
     */
    async followProvider(provider: CableProvider, author: ChangeAuthor): Promise<CableFollowReport> {
      const source = deps.providers.cable;
      if (source.listPackages === undefined) return { provider, supported: false, changes: [] };
      // A bouquet listed without a price is not one we can sell: never put on sale at 0.
      const listed = (await source.listPackages(provider, AbortSignal.timeout(FOLLOW_TIMEOUT_MS))).filter(
        (item) => item.amountKobo > 0,
      );
      const existing = await deps.store.catalog.listCablePackages({ provider });
      const planned = plan(existing, listed, provider);
      if ('skipped' in planned) {
        deps.log('catalog.cable_follow_skipped', {
          level: 'warn',
          provider: source.name,
          cable_provider: provider,
          reason: planned.skipped,
        });
        return { provider, supported: true, changes: [], skipped: planned.skipped };
      }
      if (planned.writes.length === 0) return { provider, supported: true, changes: [] };
      for (const pkg of planned.writes) await deps.store.catalog.upsertCablePackage(pkg);
      await deps.store.auditLog.append({
        at: deps.clock(),
        actor: author.actor,
        action: 'cable.packages_follow',
        target: `${source.name}/${provider}`,
        before: JSON.stringify(
          planned.changes
            .filter((c) => c.action !== 'created')
            .map((c) => existing.find((pkg) => pkg.packageCode === c.packageCode)),
        ),
        after: JSON.stringify(planned.changes),
        address: null,
        note: author.note,
      });
      deps.log('catalog.cable_followed', {
        provider: source.name,
        cable_provider: provider,
        created: planned.changes.filter((c) => c.action === 'created').length,
        repriced: planned.changes.filter((c) => c.action === 'repriced').length,
        withdrawn: planned.changes.filter((c) => c.action === 'withdrawn').length,
        restored: planned.changes.filter((c) => c.action === 'restored').length,
      });
      return { provider, supported: true, changes: planned.changes };
    },
  };
}

/** The cable follow use case, as the push handler sees it. */
export type CableFollow = ReturnType<typeof createCableFollow>;
