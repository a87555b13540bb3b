/**
 * The platform's blocklist as staff change it from the console (docs/console.md, Blocked
 * numbers): the recipient controls' own block and unblock (core/accounts/recipients.ts, the
 * same rules and the same list the CLI changes), by the member, each change in the audit log.
 * The role check is the RPC's (`realm.require(token, 'recipients')`), before anything here.
 */
import type { RecipientControlsService } from '../accounts/recipients.js';
import { invalid } from '../domain/errors.js';
import type { RecipientBlock } from '../store/port.js';
import type { Actor, AuditTrail } from './audit.js';

/** The platform's list, in the recipient controls: the account id of no account. */
const PLATFORM = '';

export interface StaffBlocklistDeps {
  recipients: Pick<RecipientControlsService, 'block' | 'unblock' | 'listBlocks'>;
  audit: AuditTrail;
}

export function createStaffBlocklist({ recipients, audit }: StaffBlocklistDeps) {
  return {
    list: (): Promise<RecipientBlock[]> => recipients.listBlocks(PLATFORM),

    /**
     * Blocks `value` for every account. A member says why (the audit log and the list keep it;
     * a partner is never told), as a suspension's note is required.
     */
    async block(value: string, reason: string, who: Actor): Promise<RecipientBlock> {
      if (reason.trim() === '') throw invalid('reason', 'Say why the number is blocked (at most 200 characters).');
      const block = await recipients.block(PLATFORM, value, reason, who.actor);
      await audit(who, {
        action: 'recipient.block',
        target: block.value,
        after: { value: block.value, reason: block.reason },
        note: block.reason,
      });
      return block;
    },

    /** Lifts the platform's block of `value`; audited when there was one. */
    async unblock(value: string, who: Actor): Promise<boolean> {
      const removed = await recipients.unblock(PLATFORM, value);
      if (removed)
        await audit(who, { action: 'recipient.unblock', target: value.trim(), before: { value: value.trim() } });
      return removed;
    },
  };
}

export type StaffBlocklist = ReturnType<typeof createStaffBlocklist>;
