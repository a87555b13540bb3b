/**
 * An account's webhooks as its console page shows them: each mode's
 * destination (URL, enabled), its newest delivery and how it went, and its backlog (events
 * still waiting for delivery, since when). Never the signing secret.
 */
import type { DeliveryState } from '../domain/events.js';
import { MODES, type Mode } from '../domain/mode.js';
import type { Store } from '../store/port.js';

export interface WebhookState {
  mode: Mode;
  /** Empty when the account has set no destination for this mode. */
  url: string;
  enabled: boolean;
  /** The newest event meant for delivery: its state and its last attempt (null: none yet). */
  lastDelivery: {
    state: DeliveryState;
    attemptAt: Date | null;
    status: number | null;
    error: string | null;
  } | null;
  /** Events still waiting for delivery, and the creation time of the oldest (null: none). */
  undelivered: number;
  undeliveredSince: Date | null;
}

/** Both modes' webhooks state of one account, from the store as it is now. */
export async function webhooksState(
  store: Pick<Store, 'webhooks' | 'events'>,
  accountId: string,
  now: Date,
): Promise<WebhookState[]> {
  const [backlog, ...perMode] = await Promise.all([
    store.events.failingDestinations(now, MODES.length, accountId),
    ...MODES.map(async (mode) => {
      const [endpoint, newest] = await Promise.all([
        store.webhooks.get(accountId, mode),
        store.events.listDeliveries(accountId, mode, { failedOnly: false }, { limit: 1 }),
      ]);
      return { mode, endpoint, newest: newest.items[0] };
    }),
  ]);
  return perMode.map(({ mode, endpoint, newest }) => {
    const waiting = backlog.find((d) => d.mode === mode);
    return {
      mode,
      url: endpoint?.url ?? '',
      enabled: endpoint?.enabled ?? false,
      lastDelivery:
        newest === undefined
          ? null
          : {
              state: newest.delivery,
              attemptAt: newest.lastAttemptAt,
              status: newest.lastStatus,
              error: newest.lastError,
            },
      undelivered: waiting?.undelivered ?? 0,
      undeliveredSince: waiting?.oldestCreatedAt ?? null,
    };
  });
}
