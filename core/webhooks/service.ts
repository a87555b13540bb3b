/**
 * Webhook management, the operator's side (the CLI's `webhooks` commands, and later the
 * developer area's Webhooks page): set a URL, read it, rotate or disable it, list the
 * deliveries, resend an event, send a test event. Secrets are created here, returned once
 * to the caller, and never logged.
 */
import { DomainError, invalid, notFound } from '../domain/errors.js';
import { type EventRecord, type Mode, pingEvent, type WebhookEndpointRecord } from '../domain/events.js';
import { historyPageSize, type Page, readPage } from '../domain/paging.js';
import type { EventStore, WebhookStore } from '../store/event-port.js';
import type { AccountStore } from '../store/port.js';
import { checkWebhookUrl } from './destination.js';
import { newWebhookSecret } from './signing.js';

/** How long the previous secret keeps signing after a rotation: a day to deploy the new one. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface WebhookServiceDeps {
  accounts: AccountStore;
  events: EventStore;
  webhooks: WebhookStore;
  clock: () => Date;
  /** WEBHOOK_ALLOW_PRIVATE: http and private addresses are accepted (development and tests). */
  allowPrivate: boolean;
  /** Tells the delivery worker that an event of this destination is due now. */
  nudge: (destination: { accountId: string; mode: Mode }) => void;
}

/** An endpoint and, when this call made one, its new secret (shown this once). */
export interface EndpointWithSecret {
  endpoint: WebhookEndpointRecord;
  secret: string | null;
}

export function createWebhookService(deps: WebhookServiceDeps) {
  const { accounts, events, webhooks, clock } = deps;

  async function requireAccount(accountId: string): Promise<void> {
    if ((await accounts.get(accountId)) === null) throw notFound(`Account ${accountId || '""'}`);
  }

  async function requireEndpoint(accountId: string, mode: Mode): Promise<WebhookEndpointRecord> {
    await requireAccount(accountId);
    const endpoint = await webhooks.get(accountId, mode);
    if (endpoint === null) throw notFound(`The ${mode} webhook of account ${accountId}`);
    return endpoint;
  }

  /** A new secret, the one it replaces still signing for ROTATION_OVERLAP_MS. */
  function rotated(endpoint: WebhookEndpointRecord, at: Date): { endpoint: WebhookEndpointRecord; secret: string } {
    const secret = newWebhookSecret();
    return {
      secret,
      endpoint: {
        ...endpoint,
        secret,
        previousSecret: endpoint.secret,
        previousSecretUntil: new Date(at.getTime() + ROTATION_OVERLAP_MS),
        updatedAt: at,
      },
    };
  }

  return {
    /**
     * Sets the URL and enables deliveries, with a new secret shown once. An endpoint that
     * had a secret keeps the old one signing for a day, as a rotation does, so a receiver
     * moved to a new address is not cut off while its secret is updated.
     */
    async set(accountId: string, mode: Mode, urlText: string): Promise<EndpointWithSecret> {
      const checked = checkWebhookUrl(urlText, deps.allowPrivate);
      if (checked.url === undefined) throw invalid('url', checked.problem);
      await requireAccount(accountId);
      const at = clock();
      const existing = await webhooks.get(accountId, mode);
      const url = checked.url.toString();
      let result: { endpoint: WebhookEndpointRecord; secret: string };
      if (existing === null) {
        const secret = newWebhookSecret();
        result = {
          secret,
          endpoint: {
            accountId,
            mode,
            url,
            secret,
            previousSecret: null,
            previousSecretUntil: null,
            enabled: true,
            createdAt: at,
            updatedAt: at,
          },
        };
      } else {
        const next = rotated(existing, at);
        result = { secret: next.secret, endpoint: { ...next.endpoint, url, enabled: true } };
      }
      await webhooks.put(result.endpoint);
      return result;
    },

    async get(accountId: string, mode: Mode): Promise<WebhookEndpointRecord> {
      return requireEndpoint(accountId, mode);
    },

    /** The endpoint, or null when the mode never had one (the developer area shows "not set"). */
    async find(accountId: string, mode: Mode): Promise<WebhookEndpointRecord | null> {
      await requireAccount(accountId);
      return webhooks.get(accountId, mode);
    },

    async rotate(accountId: string, mode: Mode): Promise<EndpointWithSecret> {
      const endpoint = await requireEndpoint(accountId, mode);
      const next = rotated(endpoint, clock());
      await webhooks.put(next.endpoint);
      return next;
    },

    /** Stops deliveries; events go on being recorded for the feed, and `set` enables it again. */
    async disable(accountId: string, mode: Mode): Promise<WebhookEndpointRecord> {
      const endpoint = await requireEndpoint(accountId, mode);
      const disabled = { ...endpoint, enabled: false, updatedAt: clock() };
      await webhooks.put(disabled);
      return disabled;
    },

    async deliveries(
      accountId: string,
      mode: Mode,
      failedOnly: boolean,
      pageSize: number | undefined,
      pageToken: string,
    ): Promise<Page<EventRecord>> {
      const limit = historyPageSize(pageSize);
      await requireAccount(accountId);
      return readPage('cursor', () =>
        events.listDeliveries(accountId, mode, { failedOnly }, { limit, ...(pageToken ? { after: pageToken } : {}) }),
      );
    },

    /**
     * Queues an event again now, whatever became of its earlier attempts. Its webhook must be
     * enabled. With `owner` (the developer area), an event of another account or mode is not
     * found, exactly as one that does not exist.
     */
    async resend(eventId: string, owner?: { accountId: string; mode: Mode }): Promise<EventRecord> {
      const found = eventId === '' ? null : await events.get(eventId);
      const event =
        found !== null && owner !== undefined && (found.accountId !== owner.accountId || found.mode !== owner.mode)
          ? null
          : found;
      if (event === null) throw notFound(`Event ${eventId.slice(0, 64) || '""'}`);
      const endpoint = await webhooks.get(event.accountId, event.mode);
      if (endpoint === null || !endpoint.enabled) {
        throw new DomainError(
          'FAILED_PRECONDITION',
          `Account ${event.accountId} has no enabled ${event.mode} webhook to send the event to.`,
        );
      }
      const requeued = await events.requeue(eventId, clock());
      if (requeued === null) throw notFound(`Event ${eventId}`);
      deps.nudge(requeued);
      return requeued;
    },

    /** Records a ping event and queues it, to check that a receiver takes and verifies deliveries. */
    async test(accountId: string, mode: Mode): Promise<EventRecord> {
      const endpoint = await requireEndpoint(accountId, mode);
      if (!endpoint.enabled)
        throw new DomainError(
          'FAILED_PRECONDITION',
          `The ${mode} webhook of account ${accountId} is disabled; set it again first.`,
        );
      const recorded = await events.insertPing(pingEvent(accountId, mode, clock()));
      deps.nudge(recorded);
      return recorded;
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
