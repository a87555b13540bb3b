/**
 * The people of the developer area: invitations, passwords, sign-in with optional TOTP,
 * sessions, and the members of an account. One person (email, password, two-step sign-in)
 * may belong to several accounts, each membership with its own role and disabled flag; a
 * session acts for one of them at a time (the account switcher moves it). Every RPC of the
 * holder's service starts with `authenticate`, which turns a session token into the person,
 * membership, account and tier it may act for; `requireOwner` is the one role check, on the
 * session's current membership. Tokens (invitation, session, challenge) are
 * 32 random bytes, handed out once and stored only as their SHA-256.
 */
import { randomBytes } from 'node:crypto';
import { hashSecret } from '../accounts/keys.js';
import { DomainError, invalid, notFound, refuseHolderWriteIfSuspended, throwIfViolations } from '../domain/errors.js';
import {
  checkEmail,
  INVITATION_TTL_MS,
  MAX_EMAIL_CHARS,
  MAX_OPEN_INVITATIONS,
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
  MemberRecord,
  MembershipRecord,
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

/** The one role check: only an owner changes the account. */
function checkOwnerRole(context: HolderContext): void {
  if (context.membership.role !== 'owner') {
    throw new DomainError(
      'PERMISSION_DENIED',
      'Only an owner of the account can do this; viewers can look but not change.',
    );
  }
}

/**
 * A form is acted on only for the account it was made for: a session switched to another account in another tab
 * would otherwise charge, key or invite for the account it acts for now, not the one the page showed. An empty
 * id (a caller that names none) is not checked. The refusal names the account the session acts for, so the page
 * can say so; the form's own account is not described (the person may have left it).
 */
function checkFormAccount(context: HolderContext, formAccountId: string): void {
  if (formAccountId === '' || formAccountId === context.account.accountId) return;
  throw new DomainError(
    'FAILED_PRECONDITION',
    `This form was made for account ${formAccountId.slice(0, 64)}, but you are now working in ` +
      `${context.account.name} (${context.account.accountId}), chosen in another tab or window. Nothing was done.`,
    { metadata: { active_account_id: context.account.accountId, active_account_name: context.account.name } },
  );
}

/** Who a session acts for: the person, and their membership of the session's account. */
export interface HolderContext {
  session: SessionRecord;
  user: UserRecord;
  membership: MembershipRecord;
  account: AccountRecord;
  tier: TierRecord;
}

/** An account a person may act for (the account switcher's choices). */
interface AccountChoice {
  accountId: string;
  name: string;
  role: UserRole;
}

/** An open invitation as the Users page lists it. */
interface OpenInvitation {
  invitation: InvitationRecord;
  /** The inviting member's email, "the operator", or "" when that person is gone. */
  invitedBy: string;
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

/** The same answer for an account that does not exist and one the person is not (or no longer) a member of. */
const noSuchAccount = () => new DomainError('NOT_FOUND', 'You are not a member of that account.');

const sessionEnded = () => new DomainError('UNAUTHENTICATED', 'The session has ended or is not valid; sign in again.');

/** The link an invitee opens: the dashboard's accept page with the token as the last path segment. */
function invitationUrl(base: string, token: string): string {
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

/** Starts the sessions of signed-in people, sweeping ended ones now and then. */
function sessionStarter(
  people: Store['people'],
  clock: () => Date,
  accountAndTier: (accountId: string) => Promise<{ account: AccountRecord; tier: TierRecord }>,
) {
  let lastSweepMs = 0;

  /**
   * At most every SWEEP_EVERY_MS, on a sign-in, ended sessions are removed (MongoDB's TTL index
   * does it there too).
   */
  function sweepNowAndThen(now: Date): void {
    if (now.getTime() - lastSweepMs < SWEEP_EVERY_MS) return;
    lastSweepMs = now.getTime();
    people.deleteExpiredSessions(now, new Date(now.getTime() - SESSION_IDLE_MS)).catch(() => undefined);
  }

  /** A new session of `user` acting for `membership`'s account. */
  async function startSession(
    user: UserRecord,
    membership: MembershipRecord,
  ): Promise<{ token: string; context: HolderContext }> {
    const token = newToken();
    const now = clock();
    const session: SessionRecord = {
      tokenHash: hashSecret(token),
      stage: 'session',
      userId: user.userId,
      accountId: membership.accountId,
      createdAt: now,
      lastSeenAt: now,
      absoluteExpiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
    };
    await people.insertSession(session);
    sweepNowAndThen(now);
    return { token, context: { session, user, membership, ...(await accountAndTier(membership.accountId)) } };
  }

  return startSession;
}

export function createPeopleService(deps: PeopleDeps) {
  const { store, clock } = deps;
  const people = store.people;
  const throttle = deps.throttle ?? createSignInThrottle();
  const log = deps.log ?? (() => {});
  const notices =
    deps.notices ?? createNotices({ mailer: null, people, optOuts: { mailOptOuts: async () => new Map() }, log });
  const accountAndTier = (accountId: string) => accountAndTierOf(store, accountId);
  const startSession = sessionStarter(people, clock, accountAndTier);

  const { acceptCode, acceptSecondFactor } = codeChecks(people, clock);
  const stepUpThrottle = deps.stepUpThrottle ?? createStepUpThrottle();
  const checkStepUp = stepUpCheck(stepUpThrottle, acceptSecondFactor, clock);

  async function requireActiveUser(userId: string): Promise<UserRecord> {
    const user = await people.getUser(userId);
    if (!user) throw sessionEnded();
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
    throttle,
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

    ...accountCommands(store, accountAndTier),

    async signOut(token: string): Promise<void> {
      const hash = tokenHash(token);
      if (hash) await people.deleteSession(hash);
    },

    authenticate: sessionAuthenticator(people, clock, accountAndTier),

    /** Refuses a viewer of the session's account: the server decides, whatever the page showed. */
    requireOwner(context: HolderContext): void {
      checkOwnerRole(context);
      // Every change to an account from the developer area passes here; a suspended one is read-only.
      refuseHolderWriteIfSuspended(context.account);
    },

    /** Refuses a form made for another account than the one the session acts for now (checkFormAccount). */
    requireFormAccount: checkFormAccount,

    /** The role check alone, for an owner's reads that a suspension leaves open (the first key's claim). */
    requireOwnerRole: checkOwnerRole,

    /** When TOTP is on, a current code is needed again (creating a key, inviting an owner); throttled. */
    async requireFreshCode(context: HolderContext, code: string): Promise<void> {
      await checkStepUp(context.user, context.session, code);
    },

    ...memberCommands(people, accountAndTier),

    ...totpCommands({ people, clock, requireActiveUser, acceptCode, checkStepUp, notices }),

    ...operatorCommands({ store, clock, log, notices }),
    ...invitationListCommands(people, clock),
    ...passwordCommands({ people, clock, stepUpThrottle, checkStepUp, startSession, notices }),

    /** Removes ended sessions and challenges (a housekeeping pass; expiry is checked on every read anyway). */
    sweepSessions(): Promise<number> {
      const now = clock().getTime();
      return people.deleteExpiredSessions(new Date(now), new Date(now - SESSION_IDLE_MS));
    },
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;

/**
 * The session's person, membership, account and tier; extends the idle expiry. A session
 * that is unknown, a challenge, idle for 30 minutes, past 12 hours, or whose membership of
 * its account is gone or disabled is UNAUTHENTICATED (and removed).
 */
function sessionAuthenticator(
  people: Store['people'],
  clock: () => Date,
  accountAndTier: (accountId: string) => Promise<{ account: AccountRecord; tier: TierRecord }>,
) {
  return async (token: string): Promise<HolderContext> => {
    const hash = tokenHash(token);
    const found = hash ? await people.findSession(hash) : null;
    if (found?.stage !== 'session') throw sessionEnded();
    const now = clock();
    if (sessionEndsAt(found).getTime() <= now.getTime()) {
      await people.deleteSession(found.tokenHash);
      throw sessionEnded();
    }
    const user = await people.getUser(found.userId);
    const membership = user ? await people.getMembership(user.userId, found.accountId) : null;
    if (!user || !membership || membership.disabled) {
      await people.deleteSession(found.tokenHash);
      throw sessionEnded();
    }
    const session = await people.touchSession(found.tokenHash, now);
    if (!session) throw sessionEnded();
    return { session, user, membership, ...(await accountAndTier(session.accountId)) };
  };
}

/** An account's members, and disabling one (an owner's, for their account) or a person everywhere (the operator's). */
function memberCommands(
  people: Store['people'],
  accountAndTier: (accountId: string) => Promise<{ account: AccountRecord; tier: TierRecord }>,
) {
  return {
    async listUsers(accountId: string): Promise<MemberRecord[]> {
      await accountAndTier(accountId);
      return people.listMembers(accountId);
    },

    /**
     * Disables a person's membership of `accountId` and ends their sessions acting for it; their
     * other accounts go on. With `accountId` null (the operator), every membership of the person
     * is disabled and every session ends; the answer is their oldest membership.
     */
    async disableUser(userId: string, accountId: string | null): Promise<MemberRecord> {
      const user = userId ? await people.getUser(userId) : null;
      const targets = user
        ? (await people.listMemberships(user.userId)).filter((one) => accountId === null || one.accountId === accountId)
        : [];
      if (!user || targets.length === 0) throw notFound(`User ${userId || '(empty id)'}`);
      const disabled: MembershipRecord[] = [];
      for (const one of targets) {
        const changed = await people.setMembershipDisabled(user.userId, one.accountId, true);
        if (changed) disabled.push(changed);
      }
      await people.deleteUserSessions(user.userId, accountId ?? undefined);
      if (disabled.length === 0) throw notFound(`User ${userId}`);
      return { user, membership: disabled[0]! };
    },
  };
}

/** The account switcher: which accounts a person may act for, and moving the session to one. */
function accountCommands(
  store: PeopleDeps['store'],
  accountAndTier: (accountId: string) => Promise<{ account: AccountRecord; tier: TierRecord }>,
) {
  return {
    /**
     * Moves the session to another account of the same person. An account they are not an
     * active member of, or one that does not exist, reads the same (NOT_FOUND).
     */
    async switchAccount(context: HolderContext, accountId: string): Promise<HolderContext> {
      const membership = accountId ? await store.people.getMembership(context.user.userId, accountId) : null;
      if (!membership || membership.disabled) throw noSuchAccount();
      const session = await store.people.setSessionAccount(context.session.tokenHash, membership.accountId);
      if (!session) throw sessionEnded();
      return { session, user: context.user, membership, ...(await accountAndTier(membership.accountId)) };
    },

    /** The accounts the session's person may act for (active memberships), oldest membership first. */
    async accountChoices(context: HolderContext): Promise<AccountChoice[]> {
      const choices: AccountChoice[] = [];
      for (const membership of await store.people.listMemberships(context.user.userId)) {
        if (membership.disabled) continue;
        const account = await store.accounts.get(membership.accountId);
        if (account) choices.push({ accountId: account.accountId, name: account.name, role: membership.role });
      }
      return choices;
    },
  };
}

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
    async resetTwoStep(
      userId: string,
      who: { actor: string; address: string | null } = { actor: 'cli', address: null },
    ): Promise<MemberRecord> {
      const user = userId ? await people.getUser(userId) : null;
      const memberships = user ? await people.listMemberships(user.userId) : [];
      if (!user || memberships.length === 0) throw notFound(`User ${userId || '(empty id)'}`);
      const updated = await people.updateUser(user.userId, {
        totpSecret: null,
        totpPendingSecret: null,
        recoveryCodeHashes: [],
      });
      if (!updated) throw notFound(`User ${userId}`);
      const sessionsEnded = await people.deleteUserSessions(user.userId);
      log('people.two_step_reset', {
        user_id: user.userId,
        // The account they joined first, and every account they belong to.
        account_id: memberships[0]!.accountId,
        account_ids: memberships.map((one) => one.accountId),
        was_on: user.totpSecret !== null,
        sessions_ended: sessionsEnded,
        by: who.actor === 'cli' ? 'operator' : who.actor,
      });
      await store.auditLog.append({
        at: clock(),
        actor: who.actor,
        action: 'users.reset_2fa',
        target: user.userId,
        before: JSON.stringify({ two_step: user.totpSecret !== null }),
        after: JSON.stringify({ two_step: false, sessions_ended: sessionsEnded }),
        address: who.address,
        note: '',
      });
      notices.twoStep(updated, 'reset', clock());
      return { user: updated, membership: memberships[0]! };
    },
  };
}

/** An invitation that can still be accepted, or NOT_FOUND (unknown, used, revoked and expired all read the same). */
async function findOpenInvitation(
  people: Store['people'],
  clock: () => Date,
  token: string,
): Promise<InvitationRecord> {
  const hash = tokenHash(token);
  const invitation = hash ? await people.findInvitation(hash) : null;
  if (
    !invitation ||
    invitation.usedAt !== null ||
    invitation.revokedAt !== null ||
    invitation.expiresAt.getTime() <= clock().getTime()
  ) {
    throw invitationInvalid();
  }
  return invitation;
}

/** The invitee who has a password already proves it is them; wrong guesses spend the sign-in budget. */
async function checkJoiningPassword(
  throttle: SignInThrottle,
  clock: () => Date,
  person: UserRecord,
  password: string,
  address: string,
): Promise<void> {
  const wait = throttle.waitMs(person.email, address, clock());
  if (wait > 0)
    throw invalid('password', `Too many wrong passwords. Wait ${Math.ceil(wait / 1000)} seconds, then try again.`);
  const candidate = password.length <= MAX_PASSWORD_CHARS * 4 ? password : '';
  if (!(await verifyPassword(candidate, person.passwordHash))) {
    throttle.failed(person.email, address, clock());
    throw invalid('password', 'That is not your password. Enter the password you sign in to the developer area with.');
  }
  throttle.succeeded(person.email, address);
}

/** What invitations share with the rest of the service (a `...Kit`: the deps one group of RPCs uses). */
interface InvitationKit {
  people: Store['people'];
  clock: () => Date;
  dashboardUrl: string;
  accountAndTier(accountId: string): Promise<{ account: AccountRecord; tier: TierRecord }>;
  checkStepUp(user: UserRecord, session: SessionRecord, code: string): Promise<void>;
  /** Wrong passwords typed on an invitation count as failed sign-ins of that email. */
  throttle: SignInThrottle;
  notices: Notices;
}

/**
 * Invitations say nothing about who else uses the platform: inviting an email that is a
 * person of another account makes an invitation like any other, and the invitee accepts it
 * with the password they already have. Only the account's own active members are refused
 * (the owner sees them on the Users page anyway); a disabled member may be invited again,
 * and accepting enables them with the new role. A new invitation of an email replaces the
 * account's earlier open ones, so each email has at most one working link per account.
 */
function invitationCommands({
  people,
  clock,
  dashboardUrl,
  accountAndTier,
  checkStepUp,
  throttle,
  notices,
}: InvitationKit) {
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
    const person = await people.findUserByEmail(normalized);
    // Looked up whether or not the person exists, so both paths do the same work.
    const membership = await people.getMembership(person?.userId ?? '', accountId);
    if (membership && !membership.disabled) {
      throw new DomainError('FAILED_PRECONDITION', `${normalized} is already a member of this account.`);
    }
    const now = clock();
    await people.revokeInvitations(accountId, normalized, now);
    if ((await people.listOpenInvitations(accountId, now)).length >= MAX_OPEN_INVITATIONS) {
      throw new DomainError(
        'FAILED_PRECONDITION',
        `This account has ${MAX_OPEN_INVITATIONS} invitations waiting already; revoke some before inviting more.`,
      );
    }
    const token = newToken();
    const invitation: InvitationRecord = {
      tokenHash: hashSecret(token),
      accountId,
      email: normalized,
      role,
      invitedBy,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      usedAt: null,
      revokedAt: null,
    };
    await people.insertInvitation(invitation);
    const url = invitationUrl(dashboardUrl, token);
    notices.invitation({ email: normalized, accountName: account.name, role, url, expiresAt: invitation.expiresAt });
    return { token, url, invitation };
  }

  const openInvitation = (token: string) => findOpenInvitation(people, clock, token);
  const checkExistingPassword = (person: UserRecord, password: string, address: string) =>
    checkJoiningPassword(throttle, clock, person, password, address);

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
      if (context.membership.role !== 'owner')
        throw new DomainError('PERMISSION_DENIED', 'Only an owner of the account can invite people.');
      if (role === 'owner') await checkStepUp(context.user, context.session, code);
      return invite(context.account.accountId, email, role, context.user.userId);
    },

    /**
     * What an invitation is for, and whether its email has a password already (the invitee
     * then enters it instead of choosing one). Only the link's holder learns this, about the
     * email the link was made for.
     */
    async describeInvitation(
      token: string,
    ): Promise<{ invitation: InvitationRecord; accountName: string; hasPassword: boolean }> {
      const invitation = await openInvitation(token);
      const { account } = await accountAndTier(invitation.accountId);
      const person = await people.findUserByEmail(invitation.email);
      return { invitation, accountName: account.name, hasPassword: person !== null };
    },

    /**
     * Uses an invitation: a new person chooses a password (the password rules apply); a person
     * who has one already enters it (throttled like sign-in, per email and address). Either
     * way the answer is their membership of the invitation's account, active with its role.
     */
    async acceptInvitation(token: string, password: string, address = ''): Promise<MemberRecord> {
      const invitation = await openInvitation(token);
      const person = await people.findUserByEmail(invitation.email);
      let user: UserRecord;
      if (person) {
        await checkExistingPassword(person, password, address);
        user = person;
      } else {
        throwIfViolations(passwordViolations('password', password));
        user = {
          userId: `usr_${randomBytes(8).toString('hex')}`,
          email: invitation.email,
          passwordHash: await hashPassword(password),
          totpSecret: null,
          totpPendingSecret: null,
          totpLastStep: 0,
          recoveryCodeHashes: [],
          createdAt: clock(),
        };
      }
      const result = await people.acceptInvitation(invitation.tokenHash, user, clock());
      if (result.outcome === 'email_taken')
        throw new DomainError(
          'FAILED_PRECONDITION',
          `${invitation.email} was given a password a moment ago; open the link again and enter that password.`,
        );
      if (result.outcome === 'invalid') throw invitationInvalid();
      return { user: result.user, membership: result.membership };
    },
  };
}

/** The account's invitations still waiting, and withdrawing them (the Users page). */
function invitationListCommands(people: Store['people'], clock: () => Date) {
  return {
    /** Open invitations of the session's account, oldest first, with who made each. */
    async listInvitations(context: HolderContext): Promise<OpenInvitation[]> {
      const open = await people.listOpenInvitations(context.account.accountId, clock());
      const emails = new Map<string, string>();
      for (const invitation of open) {
        const by = invitation.invitedBy;
        if (by === 'operator' || emails.has(by)) continue;
        emails.set(by, (await people.getUser(by))?.email ?? '');
      }
      return open.map((invitation) => ({
        invitation,
        invitedBy: invitation.invitedBy === 'operator' ? 'the operator' : (emails.get(invitation.invitedBy) ?? ''),
      }));
    },

    /**
     * An owner withdraws the open invitation of `email` to the session's account; its link then
     * reads as any link that does not work. NOT_FOUND when there is none.
     */
    async revokeInvitation(context: HolderContext, email: string): Promise<void> {
      if (context.membership.role !== 'owner')
        throw new DomainError('PERMISSION_DENIED', 'Only an owner of the account can revoke invitations.');
      refuseHolderWriteIfSuspended(context.account);
      const normalized = normalizeEmail(email).slice(0, MAX_EMAIL_CHARS);
      const revoked =
        normalized === '' ? 0 : await people.revokeInvitations(context.account.accountId, normalized, clock());
      if (revoked === 0) throw notFound(`An open invitation for ${normalized || '(empty email)'}`);
    },
  };
}

/** What the sign-in steps share with the rest of the service. */
interface SignInKit {
  people: Store['people'];
  clock: () => Date;
  throttle: SignInThrottle;
  startSession(user: UserRecord, membership: MembershipRecord): Promise<{ token: string; context: HolderContext }>;
  acceptCode(user: UserRecord, secret: string, code: string): Promise<boolean>;
  throttled(email: string, address: string): SignInAnswer | null;
  notices: Notices;
}

/**
 * The membership a sign-in acts for: `preferred` when it is still active, else the person's
 * oldest active one; null when every membership is disabled (the person is shut out of all).
 */
async function activeMembership(
  people: Store['people'],
  userId: string,
  preferred: string | null,
): Promise<MembershipRecord | null> {
  const active = (await people.listMemberships(userId)).filter((one) => !one.disabled);
  return active.find((one) => one.accountId === preferred) ?? active[0] ?? null;
}

function signInCommands({ people, clock, throttle, startSession, acceptCode, throttled, notices }: SignInKit) {
  /** A session for `user` in `membership`, and the mail that tells them of it. */
  async function signedIn(
    user: UserRecord,
    membership: MembershipRecord,
    address: string,
    userAgent: string,
  ): Promise<SignInAnswer> {
    const started = await startSession(user, membership);
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
      const membership = user ? await activeMembership(people, user.userId, null) : null;
      const candidate = password.length <= MAX_PASSWORD_CHARS * 4 ? password : '';
      const passwordOk = await verifyPassword(candidate, user && membership ? user.passwordHash : await dummyHash());
      if (!user || !membership || !passwordOk) {
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
            accountId: membership.accountId,
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
      return signedIn(user, membership, address, userAgent);
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
      const membership = user ? await activeMembership(people, user.userId, pending.accountId) : null;
      if (
        !used ||
        !fresh ||
        !user ||
        !membership ||
        user.totpSecret === null ||
        !(await acceptCode(user, user.totpSecret, totpCode))
      ) {
        throttle.failed(email, address, clock());
        return { outcome: 'invalid_credentials' };
      }
      throttle.succeeded(email, address);
      return signedIn(user, membership, address, userAgent);
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
    'Two-step sign-in is already on. To move it to another app, turn it off with a current code first, ' +
      'then set it up again.',
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
          'That code is not right. The QR code and key are the same as before, so keep the entry you added: ' +
            'check the time on your phone and enter the code it shows now.',
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
  startSession(user: UserRecord, membership: MembershipRecord): Promise<{ token: string; context: HolderContext }>;
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
      if (!user) throw sessionEnded();
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
      const { token } = await startSession(updated, context.membership);
      return { token };
    },
  };
}
