/**
 * Password reset by a link. Asking for one takes an email address and always gets the same
 * answer, whether or not a person has that address, and the lookup, the link and the mail
 * happen well after the answer (RESET_WORK_DELAY_MS), for every email alike, so neither the
 * words nor the time of the answer tell. Asking is
 * throttled per email and per client address (an IPv6 client by its /64). The link's token is
 * 32 random bytes, in the link's path only (the mail, or the operator's terminal for
 * `prepaid users reset-password`), stored as its SHA-256, used once, within an hour; using it
 * sets the new password (the same rules as everywhere), ends every session of that person and
 * every other open link of theirs.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../runtime/log.js';
import { hashSecret } from '../accounts/keys.js';
import { addressBudgetKey } from '../domain/addresses.js';
import { DomainError, notFound, throwIfViolations } from '../domain/errors.js';
import { MAX_EMAIL_CHARS, normalizeEmail, passwordViolations } from '../domain/people.js';
import type { MemberRecord, PasswordResetRecord, UserRecord } from '../domain/records.js';
import type { Notices } from '../mail/notices.js';
import type { Store } from '../store/port.js';
import { hashPassword } from './passwords.js';

/** How long a reset link works. */
const RESET_TTL_MS = 3_600_000;
/** Links asked for one email address within RESET_WINDOW_MS at most: enough for a lost mail or two. */
const RESETS_PER_EMAIL = 3;
/** Links asked from one client address (an IPv6 /64) within RESET_WINDOW_MS at most. */
const RESETS_PER_ADDRESS = 10;
const RESET_WINDOW_MS = 3_600_000;
/** Keys the throttle remembers at most; the oldest go first. */
const MAX_THROTTLE_KEYS = 100_000;
/** Longest token accepted before hashing: ours are 43 characters. */
const MAX_TOKEN_CHARS = 128;
/**
 * How long after its answer a request's lookup and link are made. Done at once, they were
 * done before the answer left: the link's write syncs the disk on the event loop, and every
 * RPC answer waits for the store to settle, so a known email was answered about 6 ms later
 * than an unknown one. Done on a later turn, their cost falls on whatever request is running
 * then, known or not; a person waits a tenth of a second longer for the mail.
 */
const RESET_WORK_DELAY_MS = 100;
/**
 * Requests waiting for their lookup at most. The throttle holds each address to
 * RESETS_PER_ADDRESS an hour; past this, a request gets the usual answer and no link (a
 * warning in the log), so a crowd of addresses cannot grow the core's memory.
 */
const MAX_WAITING_RESETS = 1_000;

/** The link a person opens: the dashboard's reset page with the token as the last path segment. */
function resetUrl(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/reset/${token}`;
}

const linkInvalid = () =>
  new DomainError(
    'NOT_FOUND',
    'This password reset link is not valid: it was used already, is older than an ' +
      'hour or is mistyped. Ask for a new one.',
  );

/** Counts requests (not failures: every request may send a mail) in a sliding window per key. */
function requestCounter(clock: () => Date) {
  const times = new Map<string, number[]>();
  function recent(key: string, nowMs: number): number[] {
    const kept = (times.get(key) ?? []).filter((at) => nowMs - at < RESET_WINDOW_MS);
    if (kept.length === 0) times.delete(key);
    return kept;
  }
  return {
    /** Milliseconds to wait, or 0 after counting this request. */
    take(keys: ReadonlyArray<readonly [string, number]>): number {
      const nowMs = clock().getTime();
      let wait = 0;
      for (const [key, limit] of keys) {
        const kept = recent(key, nowMs);
        if (kept.length >= limit) wait = Math.max(wait, kept[0]! + RESET_WINDOW_MS - nowMs);
      }
      if (wait > 0) return wait;
      for (const [key] of keys) {
        const kept = recent(key, nowMs);
        kept.push(nowMs);
        // Re-inserted so that the Map's order is the order of last use: the oldest go first.
        times.delete(key);
        times.set(key, kept.slice(-RESETS_PER_ADDRESS));
      }
      while (times.size > MAX_THROTTLE_KEYS) times.delete(times.keys().next().value as string);
      return 0;
    },
  };
}

export interface ResetDeps {
  store: Pick<Store, 'people' | 'passwordResets' | 'auditLog'>;
  clock: () => Date;
  dashboardUrl: string;
  notices: Notices;
  log: Logger;
}

export function createPasswordResets({ store, clock, dashboardUrl, notices, log }: ResetDeps) {
  const counter = requestCounter(clock);
  const later = laterWork(log, async (email) => {
    const user = await store.people.findUserByEmail(email);
    if (!user || (await shutOut(user))) return;
    const { url, expiresAt } = await newLink(user);
    notices.passwordReset(user, url, expiresAt);
  });

  async function newLink(user: UserRecord): Promise<{ url: string; expiresAt: Date }> {
    const token = randomBytes(32).toString('base64url');
    const now = clock();
    const record: PasswordResetRecord = {
      tokenHash: hashSecret(token),
      userId: user.userId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + RESET_TTL_MS),
      usedAt: null,
    };
    await store.passwordResets.insert(record);
    return { url: resetUrl(dashboardUrl, token), expiresAt: record.expiresAt };
  }

  /** A person disabled in every account they belong to (the operator's `users disable`) gets no link. */
  async function shutOut(user: UserRecord): Promise<boolean> {
    return (await store.people.listMemberships(user.userId)).every((one) => one.disabled);
  }

  /** The person with the membership they sign in to first: what a User message shows. */
  async function asMember(user: UserRecord): Promise<MemberRecord> {
    const memberships = await store.people.listMemberships(user.userId);
    const membership = memberships.find((one) => !one.disabled) ?? memberships[0];
    if (!membership) throw notFound(`User ${user.userId}`);
    return { user, membership };
  }

  async function openLink(token: string): Promise<{ reset: PasswordResetRecord; user: UserRecord }> {
    const hash = token === '' || token.length > MAX_TOKEN_CHARS ? null : hashSecret(token);
    const reset = hash === null ? null : await store.passwordResets.find(hash);
    if (!reset || reset.usedAt !== null || reset.expiresAt.getTime() <= clock().getTime()) throw linkInvalid();
    const user = await store.people.getUser(reset.userId);
    if (!user || (await shutOut(user))) throw linkInvalid();
    return { reset, user };
  }

  return {
    /**
     * "Forgot password?": the answer says only whether mail is set up at all, and how long to
     * wait when throttled; whether the address is anyone's is decided after it, in the background.
     */
    requestPasswordReset(emailText: string, address: string): { mailConfigured: boolean; retryAfterSeconds: number } {
      if (!notices.enabled) return { mailConfigured: false, retryAfterSeconds: 0 };
      const email = normalizeEmail(emailText).slice(0, MAX_EMAIL_CHARS);
      const wait = counter.take([
        [`e\u0000${email}`, RESETS_PER_EMAIL],
        [`a\u0000${addressBudgetKey(address)}`, RESETS_PER_ADDRESS],
      ]);
      if (wait > 0) return { mailConfigured: true, retryAfterSeconds: Math.ceil(wait / 1000) };
      if (email !== '') later(email);
      return { mailConfigured: true, retryAfterSeconds: 0 };
    },

    /**
     * The operator's link for a person (`prepaid users reset-password`): printed, and mailed when mail is set up.
     * Audited.
     */
    async issuePasswordReset(
      userId: string,
      who: { actor: string; address: string | null } = { actor: 'cli', address: null },
    ): Promise<{ user: MemberRecord; url: string; expiresAt: Date; mailed: boolean }> {
      const user = userId ? await store.people.getUser(userId) : null;
      if (!user) throw notFound(`User ${userId || '(empty id)'}`);
      if (await shutOut(user))
        throw new DomainError('FAILED_PRECONDITION', `${user.email} is disabled; invite them anew instead.`);
      const { url, expiresAt } = await newLink(user);
      notices.passwordReset(user, url, expiresAt);
      // The link itself is never written down: the row says that one was made, and until when.
      await store.auditLog.append({
        at: clock(),
        actor: who.actor,
        action: 'users.reset_password',
        target: user.userId,
        before: null,
        after: JSON.stringify({ link_expires_at: expiresAt.toISOString(), mailed: notices.enabled }),
        address: who.address,
        note: '',
      });
      return { user: await asMember(user), url, expiresAt, mailed: notices.enabled };
    },

    /** The reset page: whose link it is, while it still works; NOT_FOUND otherwise. */
    async describePasswordReset(token: string): Promise<{ email: string; expiresAt: Date }> {
      const { reset, user } = await openLink(token);
      return { email: user.email, expiresAt: reset.expiresAt };
    },

    /** Sets the new password with the link (once), and ends every session of that person. */
    async resetPassword(token: string, password: string): Promise<MemberRecord> {
      // A password the rules refuse does not use the link up.
      throwIfViolations(passwordViolations('password', password));
      const { reset } = await openLink(token);
      const passwordHash = await hashPassword(password);
      const claimed = await store.passwordResets.claim(reset.tokenHash, clock());
      if (!claimed) throw linkInvalid();
      const updated = await store.people.updateUser(claimed.userId, { passwordHash });
      if (!updated) throw linkInvalid();
      await store.people.deleteUserSessions(updated.userId);
      notices.passwordChanged(updated, 'reset', clock());
      return asMember(updated);
    },
  };
}

/**
 * The reset requests' lookups, made RESET_WORK_DELAY_MS after they were asked, in order, one
 * at a time; a failure is a warning in the log and the next goes on.
 */
function laterWork(log: Logger, work: (email: string) => Promise<void>): (email: string) => void {
  const waiting: string[] = [];
  let scheduled = false;
  const warn = (reason: string) => log('mail.send_warning', { kind: 'password_reset', reason });
  async function drain(): Promise<void> {
    scheduled = false;
    // Only the requests asked before this turn: those asked since wait their own delay.
    for (const email of waiting.splice(0, waiting.length)) {
      await work(email).catch((error: unknown) => warn(error instanceof Error ? error.message : String(error)));
    }
  }
  return (email) => {
    if (waiting.length >= MAX_WAITING_RESETS) return warn('too many reset requests waiting');
    waiting.push(email);
    // Not holding the process open: a request lost to a stop is asked again.
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => void drain(), RESET_WORK_DELAY_MS).unref();
  };
}
