/** prepaid.v1.WebhookService: requests in, use cases, messages out. No rule lives here; no secret is logged. */

import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type {
  DeliverySchema,
  WebhookSchema,
  WebhookService as WebhookServiceDesc,
} from '../../gen/prepaid/v1/webhooks_pb.js';
import type { EventRecord, WebhookEndpointRecord } from '../domain/events.js';
import type { WebhookService } from '../webhooks/service.js';
import { secretHint } from '../webhooks/signing.js';
import { MODE_TO_PROTO, modeIn } from './convert.js';
import type { Handlers } from './grpc.js';

export function webhookMessage(endpoint: WebhookEndpointRecord, now: Date): MessageInitShape<typeof WebhookSchema> {
  const rotating = endpoint.previousSecretUntil !== null && endpoint.previousSecretUntil > now;
  return {
    accountId: endpoint.accountId,
    mode: MODE_TO_PROTO[endpoint.mode],
    url: endpoint.url,
    enabled: endpoint.enabled,
    secretHint: secretHint(endpoint.secret),
    ...(rotating ? { previousSecretUntil: timestampFromDate(endpoint.previousSecretUntil!) } : {}),
    createdAt: timestampFromDate(endpoint.createdAt),
    updatedAt: timestampFromDate(endpoint.updatedAt),
  };
}

export function deliveryMessage(event: EventRecord): MessageInitShape<typeof DeliverySchema> {
  return {
    eventId: event.eventId,
    type: event.type,
    state: event.delivery,
    attempts: event.attempts,
    lastStatus: event.lastStatus ?? 0,
    lastError: event.lastError ?? '',
    ...(event.delivery === 'pending' && event.nextAttemptAt !== null
      ? { nextAttemptAt: timestampFromDate(event.nextAttemptAt) }
      : {}),
    createdAt: timestampFromDate(event.createdAt),
    ...(event.lastAttemptAt === null ? {} : { lastAttemptAt: timestampFromDate(event.lastAttemptAt) }),
  };
}

export function webhookHandlers(
  webhooks: WebhookService,
  clock: () => Date,
): Handlers<(typeof WebhookServiceDesc)['method']> {
  return {
    async setWebhook(req) {
      const { endpoint, secret } = await webhooks.set(req.accountId, modeIn(req.mode), req.url);
      return { webhook: webhookMessage(endpoint, clock()), secret: secret ?? '' };
    },
    async getWebhook(req) {
      return { webhook: webhookMessage(await webhooks.get(req.accountId, modeIn(req.mode)), clock()) };
    },
    async rotateWebhookSecret(req) {
      const { endpoint, secret } = await webhooks.rotate(req.accountId, modeIn(req.mode));
      return { webhook: webhookMessage(endpoint, clock()), secret: secret ?? '' };
    },
    async disableWebhook(req) {
      return { webhook: webhookMessage(await webhooks.disable(req.accountId, modeIn(req.mode)), clock()) };
    },
    async listDeliveries(req) {
      const page = await webhooks.deliveries(
        req.accountId,
        modeIn(req.mode),
        req.failedOnly,
        req.pageSize,
        req.pageToken,
      );
      return { deliveries: page.items.map(deliveryMessage), nextPageToken: page.next ?? '' };
    },
    async resendEvent(req) {
      return { delivery: deliveryMessage(await webhooks.resend(req.eventId)) };
    },
    async sendTestEvent(req) {
      return { delivery: deliveryMessage(await webhooks.test(req.accountId, modeIn(req.mode))) };
    },
  };
}
