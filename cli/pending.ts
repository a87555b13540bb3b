/** `prepaid pending list`: purchases whose outcome is not final yet, oldest first. */
import { PENDING_PAGES } from '../core/domain/paging.js';
import { type CommandGroup, UsageError } from './command.js';
import { columns, isoTime, kobo, limitOption, moneyFields, nairaText, productName } from './format.js';

export const pendingGroup: CommandGroup = {
  name: 'pending',
  summary: 'Purchases waiting for the provider (unknown outcomes).',
  commands: [
    {
      name: 'list',
      summary: 'List pending purchases, oldest first; --attention shows only those past the recovery deadline.',
      args: [],
      options: {
        attention: { placeholder: 'yes|no', summary: 'yes: only purchases flagged for a person.' },
        limit: {
          placeholder: 'N',
          summary: `How many, 1 to ${PENDING_PAGES.maxSize}; default ${PENDING_PAGES.defaultSize}.`,
        },
      },
      async run({ options }, core) {
        const attention = options['attention'] ?? 'no';
        if (attention !== 'yes' && attention !== 'no')
          throw new UsageError(`--attention must be yes or no; got ${JSON.stringify(attention)}.`);
        const limit = limitOption(options['limit'], PENDING_PAGES.defaultSize, PENDING_PAGES.maxSize);
        const page = await core().listPendingTransactions({ needsAttentionOnly: attention === 'yes', pageSize: limit });
        const rows = page.transactions.map((t) => [
          t.reference,
          isoTime(t.createdAt) ?? '-',
          t.accountId,
          t.livemode ? 'live' : 'test',
          productName(t.product),
          t.service,
          t.recipient || '-',
          nairaText(kobo(t.chargedKobo)),
          t.needsAttention ? 'yes' : 'no',
        ]);
        return {
          json: {
            transactions: page.transactions.map((t) => ({
              reference: t.reference,
              account_id: t.accountId,
              mode: t.livemode ? 'live' : 'test',
              livemode: t.livemode,
              product: productName(t.product),
              service: t.service,
              recipient: t.recipient,
              ...moneyFields('charged', t.chargedKobo),
              needs_attention: t.needsAttention,
              created_at: isoTime(t.createdAt),
            })),
            has_more: page.nextPageToken !== '',
          },
          text:
            rows.length === 0
              ? ['No pending purchases.']
              : columns([
                  [
                    'REFERENCE',
                    'CREATED',
                    'ACCOUNT',
                    'MODE',
                    'PRODUCT',
                    'SERVICE',
                    'RECIPIENT',
                    'CHARGED',
                    'NEEDS A PERSON',
                  ],
                  ...rows,
                ]),
        };
      },
    },
  ],
};
