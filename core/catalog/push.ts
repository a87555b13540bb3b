/**
 * An upstream's push that its data plans changed (VTpass's `variations-update`), as a
 * callback handler. The push is a hint and nothing more: it names a service, and the plans
 * of that network are read again from the upstream itself and followed as a sync follows
 * them (costs move, prices built on them follow, partners are told, all audited). A push
 * about a cable provider's bouquets makes its packages follow the upstream's list the same
 * way (core/catalog/cable-follow.ts). A push about another service (Smile) is taken and
 * ignored.
 */
import type { CableProvider, Network } from '../domain/products.js';
import type { CallbackResult, PushHandler } from '../purchases/callbacks.js';
import type { CableFollow } from './cable-follow.js';
import type { PlanSync } from './sync.js';

/** What an upstream's parser makes of a callback body. */
type ParsedPush = { kind: 'variations'; serviceId: string } | { kind: 'other' } | { kind: 'bad'; reason: string };

export function createVariationsPush(deps: {
  upstream: string;
  parse: (body: Uint8Array) => ParsedPush;
  /** The network whose data plans a service sells; undefined for any other service. */
  networkOf: (serviceId: string) => Network | undefined;
  planSync: PlanSync;
  /** The cable provider whose bouquets a service sells; undefined for any other service. */
  cableProviderOf: (serviceId: string) => CableProvider | undefined;
  cableFollow: CableFollow;
  log: (event: string, fields: Record<string, unknown>) => void;
}): PushHandler {
  const answer = (disposition: CallbackResult['disposition']): CallbackResult => ({
    disposition,
    reference: '',
    status: null,
  });
  return async (body) => {
    const parsed = deps.parse(body);
    if (parsed.kind === 'other') return null;
    if (parsed.kind === 'bad') {
      deps.log('catalog.push_ignored', { provider: deps.upstream, reason: parsed.reason });
      return answer('ignored');
    }
    const cable = deps.cableProviderOf(parsed.serviceId);
    if (cable !== undefined) {
      try {
        const report = await deps.cableFollow.followProvider(cable, {
          actor: 'system',
          note: `${deps.upstream} variations-update push for ${parsed.serviceId}`,
        });
        return answer(report.changes.length > 0 ? 'applied' : 'unchanged');
      } catch (error) {
        deps.log('catalog.push_failed', {
          level: 'warn',
          provider: deps.upstream,
          service: parsed.serviceId,
          error: error instanceof Error ? error.message : String(error),
        });
        return answer('retry_later');
      }
    }
    const network = deps.networkOf(parsed.serviceId);
    if (network === undefined) {
      deps.log('catalog.push_ignored', {
        provider: deps.upstream,
        service: parsed.serviceId,
        reason: 'not a data or cable service',
      });
      return answer('ignored');
    }
    try {
      const report = await deps.planSync.followNetwork(network, {
        actor: 'system',
        note: `${deps.upstream} variations-update push for ${parsed.serviceId}`,
      });
      return answer(report.changes.length > 0 ? 'applied' : 'unchanged');
    } catch (error) {
      deps.log('catalog.push_failed', {
        level: 'warn',
        provider: deps.upstream,
        service: parsed.serviceId,
        error: error instanceof Error ? error.message : String(error),
      });
      return answer('retry_later');
    }
  };
}
