/**
 * The people of the developer area: invitations, passwords, sign-in with optional TOTP,
 * sessions, and the users of an account. Every RPC of the holder's service starts with
 * `authenticate`, which turns a session token into the user, account and tier it may act
 * for; `requireOwner` is the one role check. Tokens (invitation, session, challenge) are
 * 32 random bytes, handed out once and stored only as their SHA-256.
 */
import { randomBytes } from 'node:crypto';
import { hashSecret } from '../accounts/keys.js';
import { DomainError, invalid, notFound, throwIfViolations } from '../domain/errors.js';
import {
  checkEmail,
  INVITATION_TTL_MS,
  MAX_EMAIL_CHARS,
  MAX_PASSWORD_CHARS,
  normalizeEmail,
  passwordViolations,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  sessionEndsAt,
  TOTP_CHALLENGE_MS,
  USER_ROLES,
} from '../domain/people.js';
import type {
  AccountRecord,
  InvitationRecord,
  SessionRecord,
  TierRecord,
  UserRecord,
  UserRole,
} from '../domain/records.js';
import { createNotices, type Notices } from '../mail/notices.js';
import type { Store } from '../store/port.js';
import { dummyHash, hashPassword, verifyPassword } from './passwords.js';
import { matchingRecoveryHash, newRecoveryCodes, recoveryCodeHash } from './recovery.js';
import { createPasswordResets } from './resets.js';
import { createSignInThrottle, createStepUpThrottle, type SignInThrottle, type StepUpThrottle } from './throttle.js';
import { matchTotp, newTotpSecret, totpQrSvg, totpUri } from './totp.js';

/** Who a session acts for. */
export interface HolderContext {
  session: SessionRecord;
  user: UserRecord;
  account: AccountRecord;
  tier: TierRecord;
}

export interface NewInvitation {
  /** The secret token; shown once (in the link), stored as its hash. */
  token: string;
  url: string;
  invitation: InvitationRecord;
}

export type SignInAnswer =
  | { outcome: 'signed_in'; token: string; context: HolderContext }
  | { outcome: 'totp_required'; challenge: string }
  | { outcome: 'invalid_credentials' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

export interface PeopleDeps {
  store: Pick<Store, 'people' | 'accounts' | 'catalog' | 'passwordResets' | 'auditLog'>;
  clock: () => Date;
  /** The dashboard's public base URL, for invitation links (DASHBOARD_PUBLIC_URL). */
  dashboardUrl: string;
  throttle?: SignInThrottle;
  stepUpThrottle?: StepUpThrottle;
  /** Where operator actions on people are recorded (the core's JSON log); none in some tests. */
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** What is mailed (core/mail/notices.ts); none: nothing is (no SMTP_URL). */
  notices?: Notices;
}

/** How often a sign-in also removes ended sessions from the store. */
const SWEEP_EVERY_MS = 10 * 60_000;

/** Longest token accepted before hashing: ours are 43 characters. */
const MAX_TOKEN_CHARS = 128;

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function tokenHash(token: string): string | null {
  return token === '' || token.length > MAX_TOKEN_CHARS ? null : hashSecret(token);
}

const invitationInvalid = () =>
  new DomainError(
    'NOT_FOUND',
    'This invitation link is not valid: it was used already, has expired or is mistyped. Ask for a new one.',
  );

const sessionEnded = () => new DomainError('UNAUTHENTICATED', 'The session has ended or is not valid; sign in again.');

/** The link an invitee opens: the dashboard's accept page with the token as the last path segment. */
export function invitationUrl(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/invite/${token}`;
}

/** An account and its tier; NOT_FOUND for an unknown account. */
async function accountAndTierOf(
  store: Pick<Store, 'accounts' | 'catalog'>,
  accountId: string,
): Promise<{ account: AccountRecord; tier: TierRecord }> {
  const account = await store.accounts.get(accountId);
  if (!account) throw notFound(`Account ${accountId || '(empty id)'}`);
  const tier = await store.catalog.getTier(account.tierId);
  if (!tier)
    throw new DomainError('INTERNAL', `Account ${accountId} is on tier ${account.tierId}, which does not exist.`);
  return { account, tier };
}

/**
 * The step-up check: when two-step sign-in is on, a current code of `user` in this session.
 * Throttled per person and per session (throttle.ts): past the budget the code is not even
 * checked, and the answer says to wait.
 */
function stepUpCheck(
  stepUpThrottle: StepUpThrottle,
  acceptCode: (user: UserRecord, secret: string, code: string) => Promise<boolean>,
  clock: () => Date,
): (user: UserRecord, session: SessionRecord, code: string) => Promise<void> {
  return async (user, session, code) => {
    const secret = user.totpSecret;
    if (secret === null) return;
    if (code.trim() === '')
      throw invalid('totp_code', 'Enter the 6-digit code from your authenticator app, or a recovery code.');
    const wait = stepUpThrottle.waitMs(user.userId, session.tokenHash, clock());
    if (wait > 0) {
      throw invalid(
        'totp_code',
        `Too many wrong codes. Wait ${Math.ceil(wait / 1000)} seconds, then enter the code your app shows.`,
      );
    }
    if (!(await acceptCode(user, secret, code))) {
      stepUpThrottle.failed(user.userId, session.tokenHash, clock());
      throw invalid('totp_code', 'That code is not right (or was used already); try the next one, or a recovery code.');
    }
  };
}

/**
 * How codes are accepted. `acceptCode`: a code of the given secret, accepted once (the step it
 * matched is claimed in the store). `acceptSecondFactor`, at sign-in and for a step-up: a code
 * of the user's confirmed secret, or one of their recovery codes (used up by the call); never
 * for confirming a new secret.
 */
function codeChecks(people: Store['people'], clock: () => Date) {
  async function acceptCode(user: UserRecord, secret: string, code: string): Promise<boolean> {
    const step = matchTotp(secret, code, clock());
    return step !== null && (await people.claimTotpStep(user.userId, step));
  }
  async function acceptSecondFactor(user: UserRecord, secret: string, code: string): Promise<boolean> {
    const hash = recoveryCodeHash(code);
    if (hash === null) return acceptCode(user, secret, code);
    const matched = matchingRecoveryHash(user.recoveryCodeHashes, hash);
    return matched !== null && (await people.useRecoveryCode(user.userId, matched));
  }
  return { acceptCode, acceptSecondFactor };
}

export function createPeopleService(deps: PeopleDeps) {
  const { store, clock } = deps;
  const people = store.people;
  const throttle = deps.throttle ?? createSignInThrottle();
  const log = deps.log ?? (() => {});
  const notices = deps.notices ?? createNotices({ mailer: null, people, log });
  let lastSweepMs = 0;

  /** At most every SWEEP_EVERY_MS, on a sign-in, ended sessions are removed (MongoDB's TTL index does it there too). */
  function sweepNowAndThen(now: Date): void {
    if (now.getTime() - lastSweepMs < SWEEP_EVERY_MS) return;
    lastSweepMs = now.getTime();
    people.deleteExpiredSessions(now, new Date(now.getTime() - SESSION_IDLE_MS)).catch(() => undefined);
  }

  const accountAndTier = (accountId: string) => accountAndTierOf(store, accountId);

  async function startSession(user: UserRecord): Promise<{ token: string; context: HolderContext }> {
    const token = newToken();
    const now = clock();
    const session: SessionRecord = {
      tokenHash: hashSecret(token),
      stage: 'session',
      userId: user.userId,
      accountId: user.accountId,
      createdAt: now,
      lastSeenAt: now,
      absoluteExpiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
    };
    await people.insertSession(session);
    sweepNowAndThen(now);
    return { token, context: { session, user, ...(await accountAndTier(user.accountId)) } };
  }

  const { acceptCode, acceptSecondFactor } = codeChecks(people, clock);
  const stepUpThrottle = deps.stepUpThrottle ?? createStepUpThrottle();
  const checkStepUp = stepUpCheck(stepUpThrottle, acceptSecondFactor, clock);

  async function requireActiveUser(userId: string): Promise<UserRecord> {
    const user = await people.getUser(userId);
    if (!user || user.disabled) throw sessionEnded();
    return user;
  }

  function throttled(email: string, address: string): SignInAnswer | null {
    const wait = throttle.waitMs(email, address, clock());
    return wait > 0 ? { outcome: 'throttled', retryAfterSeconds: Math.ceil(wait / 1000) } : null;
  }

  const invitations = invitationCommands({
    people,
    clock,
    dashboardUrl: deps.dashboardUrl,
    accountAndTier,
    checkStepUp,
    notices,
  });

  return {
    ...invitations,

    ...signInCommands({
      people,
      clock,
      throttle,
      startSession,
      acceptCode: acceptSecondFactor,
      throttled,
      notices,
    }),

    ...createPasswordResets({ store, clock, dashboardUrl: deps.dashboardUrl, notices, log }),

    async signOut(token: string): Promise<void> {
      const hash = tokenHash(token);
      if (hash) await people.deleteSession(hash);
    },

    /**
     * The session's user, account and tier; extends the idle expiry. A session that is
     * unknown, a challenge, idle for 30 minutes, past 12 hours or of a disabled user is
     * UNAUTHENTICATED (and removed).
     */
    async authenticate(token: string): Promise<HolderContext> {
      const hash = tokenHash(token);
      const found = hash ? await people.findSession(hash) : null;
      if (found?.stage !== 'session') throw sessionEnded();
      const now = clock();
      if (sessionEndsAt(found).getTime() <= now.getTime()) {
        await people.deleteSession(found.tokenHash);
        throw sessionEnded();
      }
      const user = await people.getUser(found.userId);
      if (!user || user.disabled) {
        await people.deleteSession(found.tokenHash);
        throw sessionEnded();
      }
      const session = await people.touchSession(found.tokenHash, now);
      if (!session) throw sessionEnded();
      return { session, user, ...(await accountAndTier(user.accountId)) };
    },

    /** Refuses a viewer: the server decides, whatever the page showed. */
    requireOwner(context: HolderContext): void {
      if (context.user.role !== 'owner') {
        throw new DomainError(
          'PERMISSION_DENIED',
          'Only an owner of the account can do this; viewers can look but not change.',
        );
      }
    },

    /** When TOTP is on, a current code is needed again (creating a key, inviting an owner); throttled. */
    async requireFreshCode(context: HolderContext, code: string): Promise<void> {
      await checkStepUp(context.user, context.session, code);
    },

    async listUsers(accountId: string): Promise<UserRecord[]> {
      await accountAndTier(accountId);
      return people.listUsers(accountId);
    },

    /** Disables a user and ends their sessions. `accountId` limits it to one account's users (a holder's call). */
    async disableUser(userId: string, accountId: string | null): Promise<UserRecord> {
      const user = userId ? await people.getUser(userId) : null;
      if (!user || (accountId !== null && user.accountId !== accountId))
        throw notFound(`User ${userId || '(empty id)'}`);
      const disabled = await people.updateUser(user.userId, { disabled: true });
      if (!disabled) throw notFound(`User ${userId}`);
      await people.deleteUserSessions(user.userId);
      return disabled;
    },

    ...totpCommands({ people, clock, requireActiveUser, acceptCode, checkStepUp, notices }),

    ...operatorCommands({ store, clock, log, notices }),
    ...passwordCommands({ people, clock, stepUpThrottle, checkStepUp, startSession, notices }),

    /** Removes ended sessions and challenges (a housekeeping pass; expiry is checked on every read anyway). */
    sweepSessions(): Promise<number> {
      const now = clock().getTime();
      return people.deleteExpiredSessions(new Date(now), new Date(now - SESSION_IDLE_MS));
    },
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;

/** What only the operator does to people (UserAdminService). */
function operatorCommands({
  store,
  clock,
  log,
  notices,
}: {
  store: PeopleDeps['store'];
  clock: () => Date;
  log: NonNullable<PeopleDeps['log']>;
  notices: Notices;
}) {
  const people = store.people;
  return {
    /**
     * The operator's way back in for someone who lost both their phone and their recovery
     * codes: two-step sign-in off, recovery codes gone, every session ended, and a line in
     * the core's log saying who and when (the operator's identity is whoever holds the admin
     * token). The person sets two-step sign-in up again after signing in.
     */
    async resetTwoStep(userId: string): Promise<UserRecord> {
      const user = userId ? await people.getUser(userId) : null;
      if (!user) throw notFound(`User ${userId || '(empty id)'}`);
      const updated = await people.updateUser(user.userId, {
        totpSecret: null,
        totpPendingSecret: null,
        recoveryCodeHashes: [],
      });
      if (!updated) throw notFound(`User ${userId}`);
      const sessionsEnded = await people.deleteUserSessions(user.userId);
      log('people.two_step_reset', {
        user_id: user.userId,
        account_id: user.accountId,
        was_on: user.totpSecret !== null,
        sessions_ended: sessionsEnded,
        by: 'operator',
      });
      await store.auditLog.append({
        at: clock(),
        actor: 'cli',
        action: 'users.reset_2fa',
        target: user.userId,
        before: JSON.stringify({ two_step: user.totpSecret !== null }),
        after: JSON.stringify({ two_step: false, sessions_ended: sessionsEnded }),
        address: null,
        note: '',
      });
      notices.twoStep(updated, 'reset', clock());
      return updated;
    },
  };
}

/** What invitations share with the rest of the service. */
interface InvitationKit {
  people: Store['people'];
  clock: () => Date;
  dashboardUrl: string;
  accountAndTier(accountId: string): Promise<{ account: AccountRecord; tier: TierRecord }>;
  checkStepUp(user: UserRecord, session: SessionRecord, code: string): Promise<void>;
  notices: Notices;
}

function invitationCommands({ people, clock, dashboardUrl, accountAndTier, checkStepUp, notices }: InvitationKit) {
  async function invite(
    accountId: string,
    email: string,
    role: UserRole | null,
    invitedBy: string,
  ): Promise<NewInvitation> {
    const normalized = checkEmail('email', email);
    if (role === null || !(USER_ROLES as readonly string[]).includes(role))
      throw invalid('role', 'role must be owner or viewer.');
    const { account } = await accountAndTier(accountId);
    if (await people.findUserByEmail(normalized)) {
      throw new DomainError(
        'FAILED_PRECONDITION',
        `${normalized} is already a user; one email signs in to one account.`,
      );
    }
    const token = newToken();
    const now = clock();
    const invitation: InvitationRecord = {
      tokenHash: hashSecret(token),
      accountId,
      email: normalized,
      role,
      invitedBy,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      usedAt: null,
    };
    await people.insertInvitation(invitation);
    const url = invitationUrl(dashboardUrl, token);
    notices.invitation({ email: normalized, accountName: account.name, role, url, expiresAt: invitation.expiresAt });
    return { token, url, invitation };
  }

  /** An invitation that can still be accepted, or NOT_FOUND (unknown, used and expired all read the same). */
  async function openInvitation(token: string): Promise<InvitationRecord> {
    const hash = tokenHash(token);
    const invitation = hash ? await people.findInvitation(hash) : null;
    if (!invitation || invitation.usedAt !== null || invitation.expiresAt.getTime() <= clock().getTime()) {
      throw invitationInvalid();
    }
    return invitation;
  }

  return {
    /** The operator's or an owner's invitation; `invitedBy` is a user id or "operator". */
    invite,

    /**
     * An owner's invitation from the developer area. Making someone an owner hands them every
     * power over the account's money and keys, so it needs a step-up code as creating a key does.
     */
    async inviteFromAccount(
      context: HolderContext,
      email: string,
      role: UserRole | null,
      code: string,
    ): Promise<NewInvitation> {
      if (context.user.role !== 'owner')
        throw new DomainError('PERMISSION_DENIED', 'Only an owner of the account can invite people.');
      if (role === 'owner') await checkStepUp(context.user, context.session, code);
      return invite(context.account.accountId, email, role, context.user.userId);
    },

    async describeInvitation(token: string): Promise<{ invitation: InvitationRecord; accountName: string }> {
      const invitation = await openInvitation(token);
      const { account } = await accountAndTier(invitation.accountId);
      return { invitation, accountName: account.name };
    },

    async acceptInvitation(token: string, password: string): Promise<UserRecord> {
      throwIfViolations(passwordViolations('password', password));
      const invitation = await openInvitation(token);
      const user: UserRecord = {
        userId: `usr_${randomBytes(8).toString('hex')}`,
        accountId: invitation.accountId,
        email: invitation.email,
        role: invitation.role,
        passwordHash: await hashPassword(password),
        disabled: false,
        totpSecret: null,
        totpPendingSecret: null,
        totpLastStep: 0,
        recoveryCodeHashes: [],
        createdAt: clock(),
      };
      const result = await people.acceptInvitation(invitation.tokenHash, user);
      if (result.outcome === 'email_taken')
        throw new DomainError('FAILED_PRECONDITION', `${invitation.email} is already a user.`);
      if (result.outcome === 'invalid') throw invitationInvalid();
      return result.user;
    },
  };
}

/** What the sign-in steps share with the rest of the service. */
interface SignInKit {
  people: Store['people'];
  clock: () => Date;
  throttle: SignInThrottle;
  startSession(user: UserRecord): Promise<{ token: string; context: HolderContext }>;
  acceptCode(user: UserRecord, secret: string, code: string): Promise<boolean>;
  throttled(email: string, address: string): SignInAnswer | null;
  notices: Notices;
}

function signInCommands({ people, clock, throttle, startSession, acceptCode, throttled, notices }: SignInKit) {
  /** A session for `user`, and the mail that tells them of it. */
  async function signedIn(user: UserRecord, address: string, userAgent: string): Promise<SignInAnswer> {
    const started = await startSession(user);
    notices.signIn(user, { at: started.context.session.createdAt, address, userAgent });
    return { outcome: 'signed_in', ...started };
  }
  return {
    /**
     * Email and password, and the TOTP code when the user has two-step sign-in on (empty
     * asks for a challenge instead). Every failure reads the same; throttled attempts are
     * not checked at all.
     */
    async signIn(
      emailText: string,
      password: string,
      totpCode: string,
      address: string,
      userAgent = '',
    ): Promise<SignInAnswer> {
      const email = normalizeEmail(emailText).slice(0, MAX_EMAIL_CHARS);
      const refused = throttled(email, address);
      if (refused) return refused;
      const user = email === '' ? null : await people.findUserByEmail(email);
      const candidate = password.length <= MAX_PASSWORD_CHARS * 4 ? password : '';
      const passwordOk = await verifyPassword(
        candidate,
        user && !user.disabled ? user.passwordHash : await dummyHash(),
      );
      if (!user || user.disabled || !passwordOk) {
        throttle.failed(email, address, clock());
        return { outcome: 'invalid_credentials' };
      }
      if (user.totpSecret !== null) {
        if (totpCode.trim() === '') {
          const challenge = newToken();
          const now = clock();
          await people.insertSession({
            tokenHash: hashSecret(challenge),
            stage: 'totp',
            userId: user.userId,
            accountId: user.accountId,
            createdAt: now,
            lastSeenAt: now,
            absoluteExpiresAt: new Date(now.getTime() + TOTP_CHALLENGE_MS),
          });
          return { outcome: 'totp_required', challenge };
        }
        if (!(await acceptCode(user, user.totpSecret, totpCode))) {
          throttle.failed(email, address, clock());
          return { outcome: 'invalid_credentials' };
        }
      }
      throttle.succeeded(email, address);
      return signedIn(user, address, userAgent);
    },

    /** The second step: the challenge is used once, right or wrong, so a wrong code means signing in again. */
    async completeSignIn(challenge: string, totpCode: string, address: string, userAgent = ''): Promise<SignInAnswer> {
      const hash = tokenHash(challenge);
      const pending = hash ? await people.findSession(hash) : null;
      if (pending?.stage !== 'totp') return { outcome: 'invalid_credentials' };
      const user = await people.getUser(pending.userId);
      const email = user?.email ?? '';
      const refused = throttled(email, address);
      if (refused) return refused;
      const used = await people.deleteSession(pending.tokenHash);
      const fresh = pending.absoluteExpiresAt.getTime() > clock().getTime();
      if (
        !used ||
        !fresh ||
        !user ||
        user.disabled ||
        user.totpSecret === null ||
        !(await acceptCode(user, user.totpSecret, totpCode))
      ) {
        throttle.failed(email, address, clock());
        return { outcome: 'invalid_credentials' };
      }
      throttle.succeeded(email, address);
      return signedIn(user, address, userAgent);
    },
  };
}

/** What two-step sign-in setup shares with the rest of the service. */
interface TotpKit {
  people: Store['people'];
  clock: () => Date;
  notices: Notices;
  requireActiveUser(userId: string): Promise<UserRecord>;
  acceptCode(user: UserRecord, secret: string, code: string): Promise<boolean>;
  checkStepUp(user: UserRecord, session: SessionRecord, code: string): Promise<void>;
}

/**
 * Two-step sign-in, once on, is changed only by turning it off with a current code (or a
 * recovery code) and setting it up again: a session alone, perhaps a stolen one, can never
 * put another authenticator in the owner's place.
 */
const alreadyOn = () =>
  new DomainError(
    'FAILED_PRECONDITION',
    'Two-step sign-in is already on. To move it to another app, turn it off with a current code first, then set it up again.',
  );

function totpCommands({ people, clock, requireActiveUser, acceptCode, checkStepUp, notices }: TotpKit) {
  return {
    /**
     * A new pending secret; two-step sign-in stays as it was until confirmTotp. With
     * `keepPending`, the secret already being set up is shown again instead (after a mistyped
     * code, so that the entry just scanned stays the right one).
     */
    async beginTotpSetup(
      context: HolderContext,
      keepPending = false,
    ): Promise<{ secret: string; uri: string; qrSvg: string }> {
      const user = await requireActiveUser(context.user.userId);
      if (user.totpSecret !== null) throw alreadyOn();
      const secret = keepPending && user.totpPendingSecret !== null ? user.totpPendingSecret : newTotpSecret();
      if (secret !== user.totpPendingSecret) await people.updateUser(user.userId, { totpPendingSecret: secret });
      const uri = totpUri(secret, user.email);
      return { secret, uri, qrSvg: await totpQrSvg(uri) };
    },

    /** Turns two-step sign-in on; the answer carries the ten recovery codes, shown this once. */
    async confirmTotp(context: HolderContext, code: string): Promise<{ user: UserRecord; recoveryCodes: string[] }> {
      const user = await requireActiveUser(context.user.userId);
      if (user.totpSecret !== null) throw alreadyOn();
      if (user.totpPendingSecret === null)
        throw new DomainError('FAILED_PRECONDITION', 'Start the two-step sign-in setup first.');
      if (!(await acceptCode(user, user.totpPendingSecret, code)))
        throw invalid(
          'totp_code',
          'That code is not right. The QR code and key are the same as before, so keep the entry you added: check the time on your phone and enter the code it shows now.',
        );
      const recoveryCodes = newRecoveryCodes();
      const recoveryCodeHashes = recoveryCodes.map((one) => recoveryCodeHash(one)!);
      const updated = await people.updateUser(user.userId, {
        totpSecret: user.totpPendingSecret,
        totpPendingSecret: null,
        recoveryCodeHashes,
      });
      if (!updated) throw sessionEnded();
      notices.twoStep(updated, 'on', clock());
      return { user: updated, recoveryCodes };
    },

    async disableTotp(context: HolderContext, code: string): Promise<UserRecord> {
      const user = await requireActiveUser(context.user.userId);
      if (user.totpSecret === null) return user;
      await checkStepUp(user, context.session, code);
      const updated = await people.updateUser(user.userId, {
        totpSecret: null,
        totpPendingSecret: null,
        recoveryCodeHashes: [],
      });
      if (!updated) throw sessionEnded();
      notices.twoStep(updated, 'off', clock());
      return updated;
    },
  };
}

/** What a password change shares with the rest of the service. */
interface PasswordKit {
  people: Store['people'];
  clock: () => Date;
  stepUpThrottle: StepUpThrottle;
  checkStepUp(user: UserRecord, session: SessionRecord, code: string): Promise<void>;
  startSession(user: UserRecord): Promise<{ token: string; context: HolderContext }>;
  notices: Notices;
}

function passwordCommands({ people, clock, stepUpThrottle, checkStepUp, startSession, notices }: PasswordKit) {
  return {
    /**
     * A signed-in person's new password: the current one (wrong guesses spend the step-up
     * budget, so a stolen session cannot try passwords either) and, with two-step sign-in on,
     * a code. Every session of theirs ends; the answer is a new session for this browser.
     */
    async changePassword(
      context: HolderContext,
      current: string,
      next: string,
      code: string,
    ): Promise<{ token: string }> {
      const user = await people.getUser(context.user.userId);
      if (!user || user.disabled) throw sessionEnded();
      const wait = stepUpThrottle.waitMs(user.userId, context.session.tokenHash, clock());
      if (wait > 0)
        throw invalid(
          'current_password',
          `Too many wrong attempts. Wait ${Math.ceil(wait / 1000)} seconds, then try again.`,
        );
      const candidate = current.length <= MAX_PASSWORD_CHARS * 4 ? current : '';
      if (!(await verifyPassword(candidate, user.passwordHash))) {
        stepUpThrottle.failed(user.userId, context.session.tokenHash, clock());
        throw invalid('current_password', 'That is not your current password.');
      }
      await checkStepUp(user, context.session, code);
      throwIfViolations(passwordViolations('new_password', next));
      const updated = await people.updateUser(user.userId, { passwordHash: await hashPassword(next) });
      if (!updated) throw sessionEnded();
      await people.deleteUserSessions(user.userId);
      notices.passwordChanged(updated, 'changed', clock());
      const { token } = await startSession(updated);
      return { token };
    },
  };
}
