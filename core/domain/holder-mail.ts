/**
 * The mails an account's owners may turn off on the developer area's Mail settings page: a
 * credit to the live wallet (a bank transfer, or the operator's credit), the operator's manual
 * debit of it, and the approval of API access. Each person chooses for themselves; a mail
 * that is about signing in or a secret (resets, sign-ins, two-step, new key pairs, the
 * low-balance alert) is not a choice.
 */
const HOLDER_MAIL_KINDS = ['wallet_credited', 'wallet_debited', 'api_access_approved'] as const;
export type HolderMailKind = (typeof HOLDER_MAIL_KINDS)[number];

export function isHolderMailKind(word: string): word is HolderMailKind {
  return (HOLDER_MAIL_KINDS as readonly string[]).includes(word);
}
