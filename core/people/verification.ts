/**
 * Proving a signed-up account's email and phone (docs/sign-up.md). The email by the mailed
 * link: 32 random bytes in the link's path only, stored as their SHA-256, used once, within 24
 * hours, by a form posted from the page the link opens (a mail scanner fetching the link proves
 * nothing). The phone by a 6-digit code sent as an SMS on the platform's SMS route, never
 * charged to a wallet: stored as a hash keyed by the account, compared in constant time, good
 * for 10 minutes and 5 wrong tries, a new one at most once a minute and 5 a Lagos day. Once
 * both are proven the account may fund its live wallet and buy live (core/domain/sign-up.ts).
 */
import { randomInt } from 'node:crypto';
import type { Logger } from '../../runtime/log.js';
import { hashSecret, sameHash } from '../accounts/keys.js';
import { DomainError, invalid } from '../domain/errors.js';
import { lagosDay } from '../domain/people.js';
import type { AccountRecord, SignUpRecord } from '../domain/records.js';
import {
  liveAllowed,
  PHONE_CODE_TRIES,
  PHONE_CODE_TTL_MS,
  PHONE_CODES_PER_DAY,
  PHONE_RESEND_MS,
} from '../domain/sign-up.js';
import type { Notices } from '../mail/notices.js';
import type { NotificationSms } from '../providers/port.js';
import type { Store } from '../store/port.js';
import type { HolderContext } from './service.js';
import { emailLinkUrl, newEmailLink } from './sign-up.js';

/** Longest token accepted before hashing: ours are 43 characters. */
const MAX_TOKEN_CHARS = 128;
/** A new email link at most this often per account: each is a mail. */
const EMAIL_RESEND_MS = 60_000;

/** The platform's own SMS: the SMS route's notify, never charged to a wallet (core/providers/port.ts). */
interface PlatformSms {
  send(message: NotificationSms): Promise<boolean>;
  /** The route is the sandbox: nothing reaches a phone, so the code is written to the log to try it. */
  readonly sandbox: boolean;
}

export interface VerificationDeps {
  store: Pick<Store, 'signUps' | 'accounts'>;
  clock: () => Date;
  dashboardUrl: string;
  notices: Notices;
  sms: PlatformSms;
  log: Logger;
}

/** Where an account stands: only a signed-up account has anything to prove. */
export interface VerificationState {
  signedUp: boolean;
  emailVerified: boolean;
  phoneVerified: boolean;
  /** The phone the code goes to, its middle hidden (0803****567). */
  phoneMasked: string;
  /** Seconds until another code may be sent; 0: now. */
  nextCodeInSeconds: number;
  liveAllowed: boolean;
}

const linkInvalid = () =>
  new DomainError(
    'NOT_FOUND',
    'This email link is not valid: it was used already, is older than 24 hours or is mistyped. Sign in and ' +
      'ask for a new one on the Verify page.',
  );

/** A code's hash, keyed by its account so that the same six digits hash apart for two accounts. */
function codeHash(accountId: string, code: string): string {
  return hashSecret(`${accountId}\u0000${code}`);
}

function masked(phone: string): string {
  return `${phone.slice(0, 4)}****${phone.slice(-3)}`;
}

/** Seconds until a new code may go: a minute after the last, or the next Lagos day after the day's last. */
function nextCodeIn(signUp: SignUpRecord, now: Date): number {
  const sentAt = signUp.phoneCodeSentAt;
  if (sentAt === null) return 0;
  if (lagosDay(sentAt) === lagosDay(now) && signUp.phoneCodesToday >= PHONE_CODES_PER_DAY) {
    const tomorrowMs = (lagosDay(now) + 1) * 86_400_000 - 3_600_000;
    return Math.ceil((tomorrowMs - now.getTime()) / 1000);
  }
  return Math.max(0, Math.ceil((sentAt.getTime() + PHONE_RESEND_MS - now.getTime()) / 1000));
}

export function createVerification(deps: VerificationDeps) {
  const { store, clock, notices, log } = deps;
  const lastEmailLink = new Map<string, number>();

  async function signUpOf(context: HolderContext): Promise<SignUpRecord> {
    const signUp = await store.signUps.get(context.account.accountId);
    if (signUp === null)
      throw new DomainError('FAILED_PRECONDITION', 'This account was made by the operator: it has nothing to verify.');
    return signUp;
  }

  return {
    /** The Verify page's facts, for any member; a viewer sees them too. */
    async verificationState(context: HolderContext): Promise<VerificationState> {
      const { account } = context;
      const signUp = await store.signUps.get(account.accountId);
      return {
        signedUp: signUp !== null,
        emailVerified: account.emailVerifiedAt !== null,
        phoneVerified: account.phoneVerifiedAt !== null,
        phoneMasked: signUp === null ? '' : masked(signUp.phone),
        nextCodeInSeconds: signUp === null ? 0 : nextCodeIn(signUp, clock()),
        liveAllowed: liveAllowed(account),
      };
    },

    /** Uses an email link (the form on the page it opens): the account with its email proven. */
    async verifyEmail(token: string): Promise<AccountRecord> {
      const hash = token === '' || token.length > MAX_TOKEN_CHARS ? null : hashSecret(token);
      const account = hash === null ? null : await store.signUps.claimEmailLink(hash, clock());
      if (account === null) throw linkInvalid();
      log('people.email_verified', { account_id: account.accountId });
      return account;
    },

    /** A new email link for the session's person, replacing the one before; at most one a minute. */
    async resendEmailLink(context: HolderContext): Promise<{ mailConfigured: boolean }> {
      const signUp = await signUpOf(context);
      if (context.account.emailVerifiedAt !== null)
        throw new DomainError('FAILED_PRECONDITION', 'Your email address is verified already.');
      const now = clock();
      const last = lastEmailLink.get(signUp.accountId) ?? 0;
      if (now.getTime() - last < EMAIL_RESEND_MS)
        throw new DomainError('FAILED_PRECONDITION', 'A link was sent less than a minute ago; wait for it a little.');
      lastEmailLink.set(signUp.accountId, now.getTime());
      if (lastEmailLink.size > 100_000) lastEmailLink.delete(lastEmailLink.keys().next().value as string);
      const link = newEmailLink(now);
      await store.signUps.setEmailLink(signUp.accountId, link.hash, link.expiresAt);
      notices.signUpLink({
        email: context.user.email,
        accountName: context.account.name,
        url: emailLinkUrl(deps.dashboardUrl, link.token),
        expiresAt: link.expiresAt,
      });
      return { mailConfigured: notices.enabled };
    },

    ...phoneCommands(deps, signUpOf),
  };
}

/** The phone's code: sent by SMS, then checked. */
function phoneCommands(deps: VerificationDeps, signUpOf: (context: HolderContext) => Promise<SignUpRecord>) {
  const { store, clock, sms, log } = deps;
  return {
    /** Sends a new code to the sign-up's phone; the code before it stops working. */
    async sendPhoneCode(context: HolderContext): Promise<{ phoneMasked: string; expiresAt: Date }> {
      const signUp = await signUpOf(context);
      if (context.account.phoneVerifiedAt !== null)
        throw new DomainError('FAILED_PRECONDITION', 'Your phone number is verified already.');
      const now = clock();
      const wait = nextCodeIn(signUp, now);
      if (wait > 0)
        throw new DomainError(
          'FAILED_PRECONDITION',
          `A code was sent a moment ago; ask for another in ${wait} seconds.`,
        );
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const expiresAt = new Date(now.getTime() + PHONE_CODE_TTL_MS);
      await store.signUps.setPhoneCode(signUp.accountId, {
        hash: codeHash(signUp.accountId, code),
        expiresAt,
        sentAt: now,
        day: lagosDay(now),
      });
      const text = `Your prepaid verification code is ${code}. It works for 10 minutes. Never share it with anyone.`;
      const accepted = await sms.send({ to: signUp.phone, text, reference: `signup-${signUp.accountId}` });
      if (!accepted)
        throw new DomainError(
          'FAILED_PRECONDITION',
          'The SMS could not be sent just now; ask for a new code in a minute. If it keeps failing, contact support.',
        );
      // Only the sandbox's: nothing reaches a phone there, and whoever runs it needs the code to try sign-up.
      if (sms.sandbox) log('people.sandbox_phone_code', { account_id: signUp.accountId, code });
      return { phoneMasked: masked(signUp.phone), expiresAt };
    },

    /** Checks a code: right, the phone is proven; wrong, one try of PHONE_CODE_TRIES is spent. */
    async confirmPhoneCode(context: HolderContext, code: string): Promise<AccountRecord> {
      const signUp = await signUpOf(context);
      if (context.account.phoneVerifiedAt !== null) return context.account;
      const typed = code.replace(/\s/g, '');
      if (!/^\d{6}$/.test(typed)) throw invalid('code', 'Enter the 6-digit code from the SMS.');
      const now = clock();
      if (
        signUp.phoneCodeHash === null ||
        signUp.phoneCodeExpiresAt === null ||
        signUp.phoneCodeExpiresAt.getTime() <= now.getTime() ||
        signUp.phoneCodeTries >= PHONE_CODE_TRIES
      )
        throw invalid('code', 'This code has expired or was tried too often; ask for a new one.');
      const hash = codeHash(signUp.accountId, typed);
      if (!sameHash(hash, signUp.phoneCodeHash)) {
        const tries = await store.signUps.phoneCodeMissed(signUp.accountId);
        const left = PHONE_CODE_TRIES - tries;
        throw invalid(
          'code',
          left > 0
            ? `That code is not right; ${left} ${left === 1 ? 'try' : 'tries'} left.`
            : 'That code is not right, and it was tried too often; ask for a new one.',
        );
      }
      const account = await store.signUps.claimPhoneCode(signUp.accountId, hash, PHONE_CODE_TRIES, now);
      if (account === null) throw invalid('code', 'This code has expired or was tried too often; ask for a new one.');
      log('people.phone_verified', { account_id: account.accountId });
      return account;
    },
  };
}

export type Verification = ReturnType<typeof createVerification>;
