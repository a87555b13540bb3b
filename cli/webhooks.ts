/**
 * `prepaid webhooks ...`: an account's webhook URL and secret, its deliveries, resending an
 * event and sending a test one. A secret is printed only by the command that creates it
 * (set, rotate-secret), with the same warning as a key pair's.
 */

import { HISTORY_PAGES } from '../core/domain/paging.js';
import type { Mode } from '../gen/prepaid/v1/types_pb.js';
import { type Delivery, type Webhook, WebhookService } from '../gen/prepaid/v1/webhooks_pb.js';
import type { CommandGroup } from './command.js';
import { columns, isoTime, limitOption, MODE_OPTION, modeArgument, modeName, present } from './format.js';

const WEBHOOK_SECRET_WARNING =
  'warning: the webhook secret is shown only this once and cannot be retrieved later; store it now.';

function modeOf(options: Record<string, string | undefined>): Mode {
  return modeArgument(options['mode']);
}

function webhookJson(webhook: Webhook): Record<string, unknown> {
  return {
    account_id: webhook.accountId,
    mode: modeName(webhook.mode),
    url: webhook.url,
    enabled: webhook.enabled,
    secret_hint: webhook.secretHint,
    previous_secret_until: isoTime(webhook.previousSecretUntil),
    created_at: isoTime(webhook.createdAt),
    updated_at: isoTime(webhook.updatedAt),
  };
}

function webhookText(webhook: Webhook): string[] {
  const until = isoTime(webhook.previousSecretUntil);
  return [
    `Webhook of ${webhook.accountId} (${modeName(webhook.mode)}): ${webhook.url}`,
    `State: ${webhook.enabled ? 'enabled' : 'disabled'}; secret ${webhook.secretHint}${
      until === null ? '' : `, the previous one signs too until ${until}`
    }.`,
  ];
}

function deliveryJson(d: Delivery): Record<string, unknown> {
  return {
    event_id: d.eventId,
    type: d.type,
    state: d.state,
    attempts: d.attempts,
    last_status: d.lastStatus,
    last_error: d.lastError === '' ? null : d.lastError,
    next_attempt_at: isoTime(d.nextAttemptAt),
    created_at: isoTime(d.createdAt),
    last_attempt_at: isoTime(d.lastAttemptAt),
  };
}

function deliveryRow(d: Delivery): string[] {
  return [
    d.eventId,
    d.type,
    d.state,
    String(d.attempts),
    d.lastStatus === 0 ? '-' : String(d.lastStatus),
    isoTime(d.nextAttemptAt) ?? '-',
  ];
}

/** The webhooks command group. */
export const webhooksGroup: CommandGroup = {
  name: 'webhooks',
  summary: "Accounts' webhook URLs and secrets, deliveries, resends and test events.",
  commands: [
    {
      name: 'set',
      summary:
        'Set the webhook URL (https, public) and enable it; prints a new secret once (a previous one signs for ' +
        '24 h more).',
      args: ['ACCOUNT_ID', 'URL'],
      options: { mode: MODE_OPTION },
      async run({ args, options }, _core, clients) {
        const webhooks = () => clients(WebhookService);
        const mode = modeOf(options);
        const res = await webhooks().setWebhook({ accountId: args[0], url: args[1], mode });
        const webhook = present(res.webhook, 'webhook');
        return {
          json: { ...webhookJson(webhook), secret: res.secret },
          text: [...webhookText(webhook), `Secret: ${res.secret}`],
          warnings: [WEBHOOK_SECRET_WARNING],
        };
      },
    },
    {
      name: 'get',
      summary: 'Show the webhook URL, its state and the last characters of its secret.',
      args: ['ACCOUNT_ID'],
      options: { mode: MODE_OPTION },
      async run({ args, options }, _core, clients) {
        const webhooks = () => clients(WebhookService);
        const webhook = present(
          (await webhooks().getWebhook({ accountId: args[0], mode: modeOf(options) })).webhook,
          'webhook',
        );
        return { json: webhookJson(webhook), text: webhookText(webhook) };
      },
    },
    {
      name: 'rotate-secret',
      summary: 'Issue a new secret, printed once; the old one keeps signing for 24 hours.',
      args: ['ACCOUNT_ID'],
      options: { mode: MODE_OPTION },
      async run({ args, options }, _core, clients) {
        const webhooks = () => clients(WebhookService);
        const res = await webhooks().rotateWebhookSecret({ accountId: args[0], mode: modeOf(options) });
        const webhook = present(res.webhook, 'webhook');
        return {
          json: { ...webhookJson(webhook), secret: res.secret },
          text: [...webhookText(webhook), `Secret: ${res.secret}`],
          warnings: [WEBHOOK_SECRET_WARNING],
        };
      },
    },
    {
      name: 'disable',
      summary: 'Stop deliveries (events are still recorded for ?action=events); `set` enables it again.',
      args: ['ACCOUNT_ID'],
      options: { mode: MODE_OPTION },
      async run({ args, options }, _core, clients) {
        const webhooks = () => clients(WebhookService);
        const webhook = present(
          (await webhooks().disableWebhook({ accountId: args[0], mode: modeOf(options) })).webhook,
          'webhook',
        );
        return { json: webhookJson(webhook), text: webhookText(webhook) };
      },
    },
    {
      name: 'deliveries',
      summary: 'List deliveries, newest first: event id, type, state, attempts, last status, next attempt.',
      args: ['ACCOUNT_ID'],
      options: {
        mode: MODE_OPTION,
        failed: { placeholder: '', summary: 'Only the failed ones.', flag: true },
        limit: {
          placeholder: 'N',
          summary: `How many, 1 to ${HISTORY_PAGES.maxSize} (default ${HISTORY_PAGES.defaultSize}).`,
        },
      },
      async run({ args, options }, _core, clients) {
        const webhooks = () => clients(WebhookService);
        const failed = options['failed'] === 'yes' ? 'yes' : 'no';
        const limit = limitOption(options['limit'], undefined, HISTORY_PAGES.maxSize);
        const res = await webhooks().listDeliveries({
          accountId: args[0],
          mode: modeOf(options),
          failedOnly: failed === 'yes',
          pageSize: limit,
        });
        return {
          json: {
            account_id: args[0],
            deliveries: res.deliveries.map(deliveryJson),
            next_cursor: res.nextPageToken === '' ? null : res.nextPageToken,
          },
          text:
            res.deliveries.length === 0
              ? [`No deliveries for ${args[0]}.`]
              : columns([
                  ['EVENT ID', 'TYPE', 'STATE', 'ATTEMPTS', 'LAST STATUS', 'NEXT ATTEMPT'],
                  ...res.deliveries.map(deliveryRow),
                ]),
        };
      },
    },
    {
      name: 'resend',
      summary: 'Deliver an event again now, whatever became of its earlier attempts.',
      args: ['EVENT_ID'],
      async run({ args }, _core, clients) {
        const webhooks = () => clients(WebhookService);
        const delivery = present((await webhooks().resendEvent({ eventId: args[0] })).delivery, 'delivery');
        return { json: deliveryJson(delivery), text: [`Queued ${delivery.eventId} (${delivery.type}) for delivery.`] };
      },
    },
    {
      name: 'test',
      summary: 'Record a ping event and deliver it, to check the receiver.',
      args: ['ACCOUNT_ID'],
      options: { mode: MODE_OPTION },
      async run({ args, options }, _core, clients) {
        const webhooks = () => clients(WebhookService);
        const delivery = present(
          (await webhooks().sendTestEvent({ accountId: args[0], mode: modeOf(options) })).delivery,
          'delivery',
        );
        return {
          json: deliveryJson(delivery),
          text: [`Queued test event ${delivery.eventId} for delivery; see \`prepaid webhooks deliveries ${args[0]}\`.`],
        };
      },
    },
  ],
};
