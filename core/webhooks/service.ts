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

async function requireAccount(deps: WebhookServiceDeps, accountId: string): Promise<void> {
  if ((await deps.accounts.get(accountId)) === null) throw notFound(`Account ${accountId || '""'}`);
}

async function requireEndpoint(
  deps: WebhookServiceDeps,
  accountId: string,
  mode: Mode,
): Promise<WebhookEndpointRecord> {
  await requireAccount(deps, accountId);
  const endpoint = await deps.webhooks.get(accountId, mode);
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

/** The first endpoint of a mode: enabled, with a secret of its own and none before it. */
function firstEndpoint(
  accountId: string,
  mode: Mode,
  url: string,
  at: Date,
): { endpoint: WebhookEndpointRecord; secret: string } {
  const secret = newWebhookSecret();
  return {
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
}

/** An event of another account or mode is not found for an owner, exactly as one that does not exist. */
async function ownedEvent(
  deps: WebhookServiceDeps,
  eventId: string,
  owner: { accountId: string; mode: Mode } | undefined,
): Promise<EventRecord> {
  const found = eventId === '' ? null : await deps.events.get(eventId);
  const event =
    found !== null && owner !== undefined && (found.accountId !== owner.accountId || found.mode !== owner.mode)
      ? null
      : found;
  if (event === null) throw notFound(`Event ${eventId.slice(0, 64) || '""'}`);
  return event;
}

export function createWebhookService(deps: WebhookServiceDeps) {
  const { events, webhooks, clock } = deps;

  return {
    /**
     * Sets the URL and enables deliveries, with a new secret shown once. An endpoint that
     * had a secret keeps the old one signing for a day, as a rotation does, so a receiver
     * moved to a new address is not cut off while its secret is updated.
     */
    async set(accountId: string, mode: Mode, urlText: string): Promise<EndpointWithSecret> {
      const checked = checkWebhookUrl(urlText, deps.allowPrivate);
      if (checked.url === undefined) throw invalid('url', checked.problem);
      await requireAccount(deps, accountId);
      const at = clock();
      const existing = await webhooks.get(accountId, mode);
      const url = checked.url.toString();
      const next = existing === null ? null : rotated(existing, at);
      const result =
        next === null
          ? firstEndpoint(accountId, mode, url, at)
          : { secret: next.secret, endpoint: { ...next.endpoint, url, enabled: true } };
      await webhooks.put(result.endpoint);
      return result;
    },

    async get(accountId: string, mode: Mode): Promise<WebhookEndpointRecord> {
      return requireEndpoint(deps, accountId, mode);
    },

    /** The endpoint, or null when the mode never had one (the developer area shows "not set"). */
    async find(accountId: string, mode: Mode): Promise<WebhookEndpointRecord | null> {
      await requireAccount(deps, accountId);
      return webhooks.get(accountId, mode);
    },

    async rotate(accountId: string, mode: Mode): Promise<EndpointWithSecret> {
      const endpoint = await requireEndpoint(deps, accountId, mode);
      const next = rotated(endpoint, clock());
      await webhooks.put(next.endpoint);
      return next;
    },

    /** Stops deliveries; events go on being recorded for the feed, and `set` enables it again. */
    async disable(accountId: string, mode: Mode): Promise<WebhookEndpointRecord> {
      const endpoint = await requireEndpoint(deps, accountId, mode);
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
      await requireAccount(deps, accountId);
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
      const event = await ownedEvent(deps, eventId, owner);
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
      const endpoint = await requireEndpoint(deps, accountId, mode);
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
