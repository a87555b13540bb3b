/**
 * What the core mails people, and when: the text of each mail, in plain sentences, and who
 * gets it. Every notice is queued on the mailer (mailer.ts) and never awaited by the request
 * that caused it. Without SMTP_URL there is no mailer and every notice is a no-op; the
 * operator hands links over by hand then (`prepaid users invite`, `users reset-password`).
 *
 * What a person typed or their browser sent (a user agent) is put in the text only after
 * control characters are taken out and it is cut to a bound: a mail is plain text, but a
 * line break in it could still forge a line that looks like ours.
 */
import type { Logger } from '../../runtime/log.js';
import type { UserRecord, UserRole } from '../domain/records.js';
import type { NoticeStore, PeopleStore } from '../store/port.js';
import { holderNotices, type WalletMoneyMail } from './holder-notices.js';
import type { Mailer } from './mailer.js';
import { lagosTime, oneLine, ownersOf } from './text.js';

const SIGN_OFF = '\n\n— The prepaid developer area';
const NOT_YOU =
  'If this was not you, reset your password from the sign-in page ("Forgot ' +
  'password?") and tell the operator of the platform.';

interface SignInFacts {
  at: Date;
  address: string;
  userAgent: string;
}

export interface Notices {
  /** Whether mail goes out at all (SMTP_URL is set). */
  readonly enabled: boolean;
  invitation(invite: { email: string; accountName: string; role: UserRole; url: string; expiresAt: Date }): void;
  /** A staff member's one-time set-up link for the console, to them alone. */
  staffSetup(invite: { email: string; role: string; url: string; expiresAt: Date }): void;
  passwordReset(user: UserRecord, url: string, expiresAt: Date): void;
  passwordChanged(user: UserRecord, how: 'changed' | 'reset', at: Date): void;
  signIn(user: UserRecord, facts: SignInFacts): void;
  twoStep(user: UserRecord, change: 'on' | 'off' | 'reset', at: Date): void;
  /** Mails every active owner of the account; looked up in the background. */
  keyCreated(key: {
    accountId: string;
    accountName: string;
    mode: string;
    publicKey: string;
    by: string;
    at: Date;
  }): void;
  /** Mails every active owner of the account that one of its key pairs was frozen; looked up in the background. */
  keyFrozen(key: { accountId: string; mode: string; publicKey: string; reason: string; at: Date }): void;
  /** Mails every active owner of the account (low-balance.ts calls it once per event). */
  lowBalance(alert: { accountId: string; balance: string; threshold: string; at: Date }): Promise<number>;
  /** Mails the owners who did not turn it off that the live wallet was credited (wallet-mail.ts, once per event). */
  walletCredited(credit: WalletMoneyMail): Promise<number>;
  /** Mails the owners who did not turn it off that the operator debited the live wallet. */
  walletDebited(debit: WalletMoneyMail & { reason: string }): Promise<number>;
  /** Mails the owners who did not turn it off that API access was approved; looked up in the background. */
  apiAccessApproved(approval: { accountId: string; tierName: string; at: Date }): void;
  /** The link that proves a new account's email (core/people/sign-up.ts). */
  signUpLink(link: { email: string; accountName: string; url: string; expiresAt: Date }): void;
  /** Someone signed up with the email of a person we know: they are told, and nothing else happens. */
  signUpRepeated(email: string, at: Date): void;
}

/** The console's mail: a staff member's set-up link, signed as the console (not the developer area). */
function staffNotices(mailer: Mailer | null): Pick<Notices, 'staffSetup'> {
  return {
    staffSetup({ email, role, url, expiresAt }) {
      mailer?.send({
        kind: 'staff_setup',
        to: email,
        subject: "You are invited to the platform's console",
        text:
          `You are invited to the operator's console of the prepaid platform as ${role === 'admin' ? 'an' : 'a'} ` +
          `${oneLine(role)} member.\n\nOpen this link to choose your password and set up two-step sign-in ` +
          `(it works once, until ${lagosTime(expiresAt)}):\n${url}\n\n` +
          'Nobody else has this link: not even the colleague who invited you. If you did not expect this, ' +
          'ignore this mail and tell the operator of the platform.\n\n— The prepaid console\n',
      });
    },
  };
}

/** What the owners of an account are told about its key pairs: a new pair, a frozen one. */
function keyNotices(
  mailer: Mailer | null,
  people: PeopleStore,
  log: Logger,
  send: (kind: string, to: string, subject: string, text: string) => void,
): Pick<Notices, 'keyCreated' | 'keyFrozen'> {
  return {
    keyCreated({ accountId, accountName, mode, publicKey, by, at }) {
      if (mailer === null) return;
      ownersOf(people, accountId)
        .then((owners) => {
          for (const owner of owners) {
            send(
              'key_created',
              owner.email,
              `A new ${mode} key pair for ${oneLine(accountName)}`,
              `${by} created a ${mode} key pair for ${oneLine(accountName)} at ${lagosTime(at)}.\n\n` +
                `Public key: ${publicKey.slice(0, 12)}…\n\nIf nobody of your account did this, ` +
                `revoke it on the API keys page at once and tell the operator of the platform.`,
            );
          }
        })
        .catch((error: unknown) =>
          log('mail.send_warning', {
            kind: 'key_created',
            reason: error instanceof Error ? error.message : String(error),
          }),
        );
    },

    keyFrozen({ accountId, mode, publicKey, reason, at }) {
      if (mailer === null) return;
      ownersOf(people, accountId)
        .then((owners) => {
          for (const owner of owners) {
            send(
              'key_frozen',
              owner.email,
              `A ${mode} API key of yours was frozen`,
              `The ${mode} key pair ${publicKey} of account ${accountId} was frozen at ${lagosTime(at)}: ` +
                `${oneLine(reason)}.\n\nEvery call with it is refused (403 KEY_FROZEN) until it is unfrozen. ` +
                'If your own systems made these purchases, unfreeze it on the API keys page with your two-step ' +
                'code. If not, its secret may have leaked: roll or revoke the key there instead, and tell the ' +
                'operator of the platform.',
            );
          }
        })
        .catch((error: unknown) =>
          log('mail.send_warning', {
            kind: 'key_frozen',
            reason: error instanceof Error ? error.message : String(error),
          }),
        );
    },
  };
}

/** What a sign-up mails: the email link, or to a known address, that someone tried its email. */
function signUpNotices(
  send: (kind: string, to: string, subject: string, text: string) => void,
): Pick<Notices, 'signUpLink' | 'signUpRepeated'> {
  return {
    signUpLink({ email, accountName, url, expiresAt }) {
      send(
        'sign_up_link',
        email,
        'Verify your email for the prepaid developer area',
        `Welcome! ${email} was used to sign up ${oneLine(accountName)} on the prepaid developer area.\n\n` +
          `Open this link to verify your email address (it works once, until ${lagosTime(expiresAt)}):\n` +
          `${url}\n\nLive funding and live purchases open once your email and your phone are verified; the ` +
          'test world is open already. If you did not sign up, ignore this mail.',
      );
    },

    signUpRepeated(email, at) {
      send(
        'sign_up_repeated',
        email,
        'Someone tried to sign up with your email',
        `At ${lagosTime(at)} someone tried to sign up on the prepaid developer area with ${email}, which ` +
          'already has an account with us. Nothing was created and nothing changed.\n\nIf it was you, sign in ' +
          'instead; "Forgot password?" on the sign-in page sends a reset link. If it was not you, ignore this mail.',
      );
    },
  };
}

export function createNotices(deps: {
  mailer: Mailer | null;
  people: PeopleStore;
  optOuts: Pick<NoticeStore, 'mailOptOuts'>;
  log: Logger;
}): Notices {
  const { mailer, people, log } = deps;
  const send = (kind: string, to: string, subject: string, text: string) =>
    mailer?.send({ kind, to, subject, text: `${text}${SIGN_OFF}\n` });

  return {
    enabled: mailer !== null,
    ...holderNotices({ enabled: mailer !== null, people, optOuts: deps.optOuts, log, send }),
    ...staffNotices(mailer),
    ...keyNotices(mailer, people, log, send),
    ...signUpNotices(send),

    invitation({ email, accountName, role, url, expiresAt }) {
      send(
        'invitation',
        email,
        `You are invited to ${oneLine(accountName)} on the prepaid developer area`,
        `You are invited to the developer area of ${oneLine(accountName)} as ` +
          `${role === 'owner' ? 'an owner' : 'a viewer'}.\n\n` +
          `Open this link to set your password (it works once, until ${lagosTime(expiresAt)}):\n${url}\n\n` +
          'If you did not expect this, ignore this mail: nothing happens unless the link is opened.',
      );
    },

    passwordReset(user, url, expiresAt) {
      send(
        'password_reset',
        user.email,
        'Reset your password for the prepaid developer area',
        `Someone (we hope you) asked to reset the password of ${user.email}.\n\n` +
          `Open this link to choose a new one. It works once, until ${lagosTime(expiresAt)}:\n${url}\n\n` +
          'Setting a new password signs you out everywhere. If you did not ask for this, ' +
          'ignore this mail: your password stays as it is.',
      );
    },

    passwordChanged(user, how, at) {
      send(
        'password_changed',
        user.email,
        'Your password was changed',
        `The password of ${user.email} was ` +
          `${how === 'reset' ? 'reset by email link' : 'changed on the Security page'} at ` +
          `${lagosTime(at)}, and every other session was ended.\n\n${NOT_YOU}`,
      );
    },

    signIn(user, { at, address, userAgent }) {
      send(
        'sign_in',
        user.email,
        'New sign-in to the prepaid developer area',
        `${user.email} signed in at ${lagosTime(at)}.\n\nAddress: ` +
          `${oneLine(address)}\nBrowser: ${oneLine(userAgent)}\n\n${NOT_YOU}`,
      );
    },

    twoStep(user, change, at) {
      const what =
        change === 'on'
          ? 'was turned on'
          : change === 'off'
            ? 'was turned off'
            : 'was turned off by the operator of the platform, at your request, and your sessions were ended';
      send(
        'two_step',
        user.email,
        `Two-step sign-in ${change === 'on' ? 'turned on' : 'turned off'}`,
        `Two-step sign-in for ${user.email} ${what} at ${lagosTime(at)}.` +
          (change === 'on' ? '' : ' Set it up again on the Security page after you sign in.') +
          `\n\n${NOT_YOU}`,
      );
    },

    async lowBalance({ accountId, balance, threshold, at }) {
      if (mailer === null) return 0;
      const owners = await ownersOf(people, accountId);
      for (const owner of owners) {
        send(
          'low_balance',
          owner.email,
          `Your balance is low: ₦${balance}`,
          `The live wallet of account ${accountId} fell to ₦${balance} at ` +
            `${lagosTime(at)}, below the ₦${threshold} you set.\n\n` +
            'Fund it by bank transfer to your account number on the Fund wallet page, so ' +
            'that purchases are not refused.',
        );
      }
      return owners.length;
    },
  };
}
