/** The admin service's recipient controls (docs/security.md, Recipient controls): blocklists and limits. */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { RecipientControlsService } from '../accounts/recipients.js';
import type { AccountService } from '../accounts/service.js';
import { NO_RECIPIENT_CONTROLS } from '../domain/recipient-controls.js';
import type { RecipientBlock } from '../store/port.js';
import { koboCapIn } from './convert.js';

/** Blocks by the admin token are the operator's, as its other changes are. */
const BY_CLI = 'cli';

/** A block as every service answers it. */
export function blockMessage(block: RecipientBlock) {
  return {
    accountId: block.accountId,
    value: block.value,
    reason: block.reason,
    blockedBy: block.by,
    createdAt: timestampFromDate(block.at),
  };
}

export function recipientHandlers(recipients: RecipientControlsService, accounts: Pick<AccountService, 'getAccount'>) {
  return {
    async blockRecipient(req: { accountId: string; value: string; reason: string }) {
      return { block: blockMessage(await recipients.block(req.accountId, req.value, req.reason, BY_CLI)) };
    },
    async unblockRecipient(req: { accountId: string; value: string }) {
      return { removed: await recipients.unblock(req.accountId, req.value) };
    },
    async listRecipientBlocks(req: { accountId: string }) {
      if (req.accountId !== '') await accounts.getAccount(req.accountId);
      return { blocks: (await recipients.listBlocks(req.accountId)).map(blockMessage) };
    },
    async setRecipientLimits(req: {
      accountId: string;
      perDayCount: number;
      perDayKobo: bigint;
      duplicateGuard: boolean;
    }) {
      const account = await recipients.setLimits(req.accountId, {
        perDayCount: req.perDayCount,
        perDayKobo: koboCapIn(req.perDayKobo),
        duplicateGuard: req.duplicateGuard,
      });
      const set = account.recipientControls ?? NO_RECIPIENT_CONTROLS;
      return {
        accountId: account.accountId,
        perDayCount: set.perDayCount,
        perDayKobo: BigInt(set.perDayKobo),
        duplicateGuard: set.duplicateGuard,
      };
    },
  };
}
