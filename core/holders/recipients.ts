/**
 * The account's recipient controls as its owner sees and changes them in the developer area
 * (docs/developer-area.md, Recipients): its own blocklist and its per-recipient limits, always
 * for the session's account. The rules are the recipient controls' (core/accounts/recipients.ts),
 * the same the operator's CLI applies; who may (owners, with a fresh code where the handler asks
 * one) is decided by the RPC before anything here. The platform's list is never shown.
 */
import type { RecipientControlsService } from '../accounts/recipients.js';
import { NO_RECIPIENT_CONTROLS, type RecipientControls } from '../domain/recipient-controls.js';
import type { HolderContext } from '../people/service.js';
import type { RecipientBlock } from '../store/port.js';

export interface HolderRecipientControls {
  blocks: RecipientBlock[];
  controls: RecipientControls;
  duplicateWindowS: number;
}

export function createHolderRecipients(recipients: RecipientControlsService) {
  const own = (context: HolderContext) => context.account.accountId;
  return {
    async controls(context: HolderContext): Promise<HolderRecipientControls> {
      return {
        blocks: await recipients.listBlocks(own(context)),
        controls: context.account.recipientControls ?? NO_RECIPIENT_CONTROLS,
        duplicateWindowS: recipients.duplicateWindowS,
      };
    },

    /** Blocked by the owner, as the list shows it: `owner:<email>`. */
    block(context: HolderContext, value: string, reason: string): Promise<RecipientBlock> {
      return recipients.block(own(context), value, reason, `owner:${context.user.email}`);
    },

    unblock(context: HolderContext, value: string): Promise<boolean> {
      return recipients.unblock(own(context), value);
    },

    async setLimits(
      context: HolderContext,
      limits: { perDayCount: number; perDayKobo: number; duplicateGuard: boolean },
    ): Promise<RecipientControls> {
      const account = await recipients.setLimits(own(context), limits);
      return account.recipientControls ?? NO_RECIPIENT_CONTROLS;
    },
  };
}

export type HolderRecipients = ReturnType<typeof createHolderRecipients>;
