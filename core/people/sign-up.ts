/**
 * Signing up in the developer area (docs/sign-up.md). A sign-up takes a name, an email, a
 * mobile number and a password, and always gets the same answer ("check your email") whether
 * or not the email is a person's already: the answer is made from the form and the address's
 * budget alone, and the person, the account and the mail come after it (SIGN_UP_WORK_DELAY_MS),
 * for every email alike, with the same scrypt work. A new email gets a person, an account on
 * the default tier with them its owner, and the link that proves the email; an email we know
 * gets a mail saying someone tried it, and nothing else happens: no second account.
 *
 * Throttled per client address (an IPv6 client by its /64) and per email domain, in memory,
 * and by the unverified accounts an address has signed up for this Lagos day, counted in the
 * store (SIGNUP_PER_ADDRESS_DAY), so that a restart does not hand the budget back.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../runtime/log.js';
import { hashSecret } from '../accounts/keys.js';
import { DEFAULT_TIER_ID } from '../catalog/defaults.js';
import { addressBudgetKey } from '../domain/addresses.js';
import { throwIfViolations } from '../domain/errors.js';
import { lagosDay, lagosDayStart } from '../domain/people.js';
import type { UserRecord } from '../domain/records.js';
import {
  checkSignUp,
  EMAIL_LINK_TTL_MS,
  emailDomain,
  type SignUpInput,
  type SignUpMode,
  type ValidSignUp,
} from '../domain/sign-up.js';
import type { Notices } from '../mail/notices.js';
import type { Store } from '../store/port.js';
import { hashPassword } from './passwords.js';

/**
 * Sign-ups taken from one client address (an IPv6 /64) within THROTTLE_WINDOW_MS: a burst
 * waits, and the day's bound (SIGNUP_PER_ADDRESS_DAY, 20 by default) is reached first.
 */
const SIGN_UPS_PER_ADDRESS_WINDOW = 30;
/**
 * Sign-ups of one email domain within THROTTLE_WINDOW_MS: a crowd of made-up mailboxes at one
 * domain waits, while a big provider's many real people (gmail.com) seldom reach it.
 */
const SIGN_UPS_PER_DOMAIN_WINDOW = 200;
const THROTTLE_WINDOW_MS = 3_600_000;
/** Keys the throttle remembers at most; the oldest go first. */
const MAX_THROTTLE_KEYS = 100_000;
/**
 * How long after its answer a sign-up's lookup, account and mail are made: done before the
 * answer, a known email would be answered sooner than a new one (no account written, no disk
 * sync before the answer). A person waits a tenth of a second longer for the mail.
 */
const SIGN_UP_WORK_DELAY_MS = 100;
/** Sign-ups waiting for their work at most; past it a sign-up is told to wait, so memory stays bounded. */
const MAX_WAITING_SIGN_UPS = 1_000;

export type SignUpAnswer =
  | { outcome: 'accepted'; mailConfigured: boolean }
  | { outcome: 'throttled'; retryAfterSeconds: number }
  | { outcome: 'closed' };

export interface SignUpDeps {
  store: Pick<Store, 'people' | 'signUps'>;
  clock: () => Date;
  dashboardUrl: string;
  notices: Notices;
  log: Logger;
  /** SIGNUP. */
  mode: SignUpMode;
  /** SIGNUP_PER_ADDRESS_DAY: unverified accounts one address may sign up for in a Lagos day. */
  perAddressPerDay: number;
}

/** The link a person opens: the dashboard's email page with the token as the last path segment. */
export function emailLinkUrl(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/verify/email/${token}`;
}

/** A new email link: the token for the mail, its hash for the store. */
export function newEmailLink(now: Date): { token: string; hash: string; expiresAt: Date } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSecret(token), expiresAt: new Date(now.getTime() + EMAIL_LINK_TTL_MS) };
}

/** Requests in a sliding window per key; `take` counts one for every key, or says how long to wait. */
function windowCounter(clock: () => Date) {
  const times = new Map<string, number[]>();
  const recent = (key: string, nowMs: number) => (times.get(key) ?? []).filter((at) => nowMs - at < THROTTLE_WINDOW_MS);
  return {
    take(keys: ReadonlyArray<readonly [string, number]>): number {
      const nowMs = clock().getTime();
      let wait = 0;
      for (const [key, limit] of keys) {
        const kept = recent(key, nowMs);
        if (kept.length >= limit) wait = Math.max(wait, kept[kept.length - limit]! + THROTTLE_WINDOW_MS - nowMs);
      }
      if (wait > 0) return wait;
      for (const [key, limit] of keys) {
        const kept = [...recent(key, nowMs), nowMs].slice(-limit);
        // Re-inserted so that the Map's order is the order of last use: the oldest go first.
        times.delete(key);
        times.set(key, kept);
      }
      while (times.size > MAX_THROTTLE_KEYS) times.delete(times.keys().next().value as string);
      return 0;
    },
  };
}

export function createSignUps(deps: SignUpDeps) {
  const { store, clock, notices, log } = deps;
  const counter = windowCounter(clock);
  /** Sign-ups taken but not yet written, per address key: they count against the day's budget too. */
  const waitingFrom = new Map<string, number>();
  const work = createSignUpWork(deps);
  const later = laterWork(log, async (signUp: WaitingSignUp) => {
    try {
      await work(signUp);
    } finally {
      const left = (waitingFrom.get(signUp.addressKey) ?? 1) - 1;
      if (left <= 0) waitingFrom.delete(signUp.addressKey);
      else waitingFrom.set(signUp.addressKey, left);
    }
  });

  return {
    /** SIGNUP, as the developer area asks it whether to show the form. */
    signUpMode: deps.mode,

    /** The form's answer; whether the email is anyone's is decided after it, in the background. */
    async signUp(input: SignUpInput, address: string): Promise<SignUpAnswer> {
      if (deps.mode !== 'open') return { outcome: 'closed' };
      const checked = checkSignUp(input);
      if ('violations' in checked) throwIfViolations(checked.violations);
      const valid = (checked as { valid: ValidSignUp }).valid;
      const addressKey = addressBudgetKey(address);
      const now = clock();
      const day = lagosDay(now);
      const signedUp = await store.signUps.unverifiedFrom(addressKey, lagosDayStart(day));
      if (signedUp + (waitingFrom.get(addressKey) ?? 0) >= deps.perAddressPerDay) {
        return {
          outcome: 'throttled',
          retryAfterSeconds: Math.ceil((lagosDayStart(day + 1).getTime() - now.getTime()) / 1000),
        };
      }
      const wait = counter.take([
        [`a\u0000${addressKey}`, SIGN_UPS_PER_ADDRESS_WINDOW],
        [`d\u0000${emailDomain(valid.email)}`, SIGN_UPS_PER_DOMAIN_WINDOW],
      ]);
      if (wait > 0) return { outcome: 'throttled', retryAfterSeconds: Math.ceil(wait / 1000) };
      if (!later({ ...valid, addressKey, at: now })) return { outcome: 'throttled', retryAfterSeconds: 60 };
      waitingFrom.set(addressKey, (waitingFrom.get(addressKey) ?? 0) + 1);
      return { outcome: 'accepted', mailConfigured: notices.enabled };
    },
  };
}

/** A sign-up taken, waiting for its work. */
interface WaitingSignUp extends ValidSignUp {
  addressKey: string;
  at: Date;
}

/**
 * The work after the answer: the password hashed (for a known email too: the same cost), then
 * a new person with their account and email link, or the "someone tried" mail.
 */
function createSignUpWork(deps: SignUpDeps): (signUp: WaitingSignUp) => Promise<void> {
  const { store, notices, log } = deps;
  return async (signUp) => {
    const passwordHash = await hashPassword(signUp.password);
    const known = await store.people.findUserByEmail(signUp.email);
    if (known !== null) {
      notices.signUpRepeated(signUp.email, signUp.at);
      return;
    }
    const user: UserRecord = {
      userId: `usr_${randomBytes(8).toString('hex')}`,
      email: signUp.email,
      passwordHash,
      totpSecret: null,
      totpPendingSecret: null,
      totpLastStep: 0,
      recoveryCodeHashes: [],
      createdAt: signUp.at,
    };
    const accountId = `acc_${randomBytes(8).toString('hex')}`;
    const link = newEmailLink(signUp.at);
    const created = await store.signUps.create({
      user,
      account: { accountId, name: signUp.name, tierId: DEFAULT_TIER_ID, createdAt: signUp.at },
      signUp: {
        accountId,
        userId: user.userId,
        phone: signUp.phone,
        addressKey: signUp.addressKey,
        emailDomain: emailDomain(signUp.email),
        createdAt: signUp.at,
        emailTokenHash: link.hash,
        emailTokenExpiresAt: link.expiresAt,
        phoneCodeHash: null,
        phoneCodeExpiresAt: null,
        phoneCodeTries: 0,
        phoneCodeSentAt: null,
        phoneCodesToday: 0,
      },
    });
    // The email became a person's since the lookup (another sign-up, an invitation): told as a repeat.
    if (created === 'email_taken') return notices.signUpRepeated(signUp.email, signUp.at);
    log('people.signed_up', { account_id: accountId, user_id: user.userId });
    notices.signUpLink({
      email: signUp.email,
      accountName: signUp.name,
      url: emailLinkUrl(deps.dashboardUrl, link.token),
      expiresAt: link.expiresAt,
    });
  };
}

/**
 * The sign-ups' work, made SIGN_UP_WORK_DELAY_MS after they were taken, in order, one at a
 * time; a failure is a warning in the log and the next goes on. False when too many wait.
 */
function laterWork(log: Logger, work: (signUp: WaitingSignUp) => Promise<void>): (signUp: WaitingSignUp) => boolean {
  const waiting: WaitingSignUp[] = [];
  let scheduled = false;
  async function drain(): Promise<void> {
    scheduled = false;
    for (const signUp of waiting.splice(0, waiting.length)) {
      await work(signUp).catch((error: unknown) =>
        log('people.sign_up_failed', { level: 'warn', reason: error instanceof Error ? error.message : String(error) }),
      );
    }
  }
  return (signUp) => {
    if (waiting.length >= MAX_WAITING_SIGN_UPS) return false;
    waiting.push(signUp);
    if (!scheduled) {
      scheduled = true;
      // Not holding the process open: a sign-up lost to a stop is made again by its person.
      setTimeout(() => void drain(), SIGN_UP_WORK_DELAY_MS).unref();
    }
    return true;
  };
}

export type SignUps = ReturnType<typeof createSignUps>;
