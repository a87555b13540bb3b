/**
 * The mails about an account's money and access that its owners may each turn off on the
 * developer area's Mail settings page (core/domain/holder-mail.ts): the live wallet credited
 * (a bank transfer or the operator's credit), debited by the operator (a manual debit), and
 * API access approved. The first two are sent by wallet-mail.ts from the events the money move
 * wrote in its own transaction; the approval is queued after the approval is stored, as an
 * invitation is. An owner who turned a kind off is skipped; nobody else is asked.
 */
import type { Logger } from '../../runtime/log.js';
import type { HolderMailKind } from '../domain/holder-mail.js';
import type { UserRecord } from '../domain/records.js';
import type { NoticeStore, PeopleStore } from '../store/port.js';
import { lagosTime, oneLine, ownersOf } from './text.js';

/** A live wallet's credit or debit as its mail tells it; amounts already in Naira (`1,234.50`). */
export interface WalletMoneyMail {
  accountId: string;
  reference: string;
  amount: string;
  balance: string;
  /** Who paid (a bank transfer), or the operator's memo; may be empty. */
  detail: string;
  at: Date;
}

export function holderNotices(deps: {
  enabled: boolean;
  people: PeopleStore;
  optOuts: Pick<NoticeStore, 'mailOptOuts'>;
  log: Logger;
  send: (kind: string, to: string, subject: string, text: string) => void;
}) {
  const { people, optOuts, send } = deps;

  /** The account's active owners who did not turn this kind of mail off. */
  async function recipients(accountId: string, kind: HolderMailKind): Promise<UserRecord[]> {
    const owners = await ownersOf(people, accountId);
    const off = await optOuts.mailOptOuts(owners.map((owner) => owner.userId));
    return owners.filter((owner) => !(off.get(owner.userId) ?? []).includes(kind));
  }

  const settings = 'To stop these mails, turn them off on the Mail settings page of the developer area.';

  return {
    async walletCredited({ accountId, reference, amount, balance, detail, at }: WalletMoneyMail): Promise<number> {
      if (!deps.enabled) return 0;
      const to = await recipients(accountId, 'wallet_credited');
      for (const owner of to) {
        send(
          'wallet_credited',
          owner.email,
          `₦${amount} arrived in your wallet`,
          `₦${amount} was credited to the live wallet of account ${accountId} at ${lagosTime(at)}` +
            `${detail ? ` (${oneLine(detail)})` : ''}.\n\nReference: ${oneLine(reference)}\nBalance after it: ` +
            `₦${balance}\n\n${settings}`,
        );
      }
      return to.length;
    },

    async walletDebited(debit: WalletMoneyMail & { reason: string }): Promise<number> {
      if (!deps.enabled) return 0;
      const to = await recipients(debit.accountId, 'wallet_debited');
      for (const owner of to) {
        send(
          'wallet_debited',
          owner.email,
          `₦${debit.amount} was taken out of your wallet by the platform`,
          `The platform's staff debited ₦${debit.amount} from the live wallet of account ${debit.accountId} at ` +
            `${lagosTime(debit.at)}.\n\nWhy: ${oneLine(debit.reason)}\nReference: ${oneLine(debit.reference)}\n` +
            `Balance after it: ₦${debit.balance}\n\nIf you do not recognise it, reply to the platform's support ` +
            `quoting the reference.\n\n${settings}`,
        );
      }
      return to.length;
    },

    apiAccessApproved({ accountId, tierName, at }: { accountId: string; tierName: string; at: Date }): void {
      if (!deps.enabled) return;
      recipients(accountId, 'api_access_approved')
        .then((to) => {
          for (const owner of to) {
            send(
              'api_access_approved',
              owner.email,
              'Your API access is approved',
              `Account ${accountId} has API access since ${lagosTime(at)} (the ${oneLine(tierName)} tier).\n\n` +
                'Open the API keys page of the developer area: your first live key pair is shown there, once, ' +
                `to the first owner who opens it.\n\n${settings}`,
            );
          }
        })
        .catch((error: unknown) =>
          deps.log('mail.send_warning', {
            kind: 'api_access_approved',
            reason: error instanceof Error ? error.message : String(error),
          }),
        );
    },
  };
}
