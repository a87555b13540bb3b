/**
 * The platform's staff: invitations with a one-time set-up link, set-up (password and the
 * mandatory TOTP), sign-in throttled per address (IPv6 by /64), per person and per both,
 * sessions, and the role check every console RPC makes (`require`). Tokens are 32 random
 * bytes, handed out once and stored only as their SHA-256.
 */
import { randomBytes } from 'node:crypto';
import { hashSecret } from '../accounts/keys.js';
import { DomainError, invalid, notFound, throwIfViolations } from '../domain/errors.js';
import {
  checkEmail,
  MAX_EMAIL_CHARS,
  MAX_PASSWORD_CHARS,
  normalizeEmail,
  passwordViolations,
} from '../domain/people.js';
import {
  isActiveAdmin,
  isNewToPowers,
  mayDo,
  STAFF_ROLES,
  STAFF_SESSION_ABSOLUTE_MS,
  STAFF_SETUP_TTL_MS,
  type StaffMemberRecord,
  type StaffPower,
  type StaffRole,
  type StaffSessionRecord,
  staffSessionEndsAt,
} from '../domain/staff.js';
import type { Notices } from '../mail/notices.js';
import { dummyHash, hashPassword, verifyPassword } from '../people/passwords.js';
import { createSignInThrottle, type SignInThrottle } from '../people/throttle.js';
import { matchTotp, newTotpSecret, totpQrSvg, totpUri } from '../people/totp.js';
import type { Store } from '../store/port.js';
import type { Actor, AuditTrail } from './audit.js';

/** Failures one staff email gets, from every address together, before each attempt must wait. */
const FREE_FAILURES_PER_PERSON = 10;
/** Longest token accepted before hashing: ours are 43 characters. */
const MAX_TOKEN_CHARS = 128;

/** Who a console session acts for. */
export interface StaffContext {
  session: StaffSessionRecord;
  member: StaffMemberRecord;
  /** The audit's actor and the address of this request. */
  who: Actor;
}

type StaffSignIn =
  | { outcome: 'signed_in'; token: string; member: StaffMemberRecord }
  | { outcome: 'invalid_credentials' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

export interface StaffRealmDeps {
  store: Pick<Store, 'staff'>;
  audit: AuditTrail;
  clock: () => Date;
  /** The console's public base URL, for set-up links (CONSOLE_PUBLIC_URL). */
  consoleUrl: string;
  /** FOUR_EYES_COOLING_H: how long a member stays new to their powers. */
  fourEyesCoolingMs: number;
  /** With SMTP configured, finance and admin set-up links go by mail to the invitee alone. */
  notices?: Pick<Notices, 'enabled' | 'staffSetup'>;
  throttle?: SignInThrottle;
}

const newToken = () => randomBytes(32).toString('base64url');
const tokenHash = (token: string) => (token === '' || token.length > MAX_TOKEN_CHARS ? null : hashSecret(token));
const sessionEnded = () => new DomainError('UNAUTHENTICATED', 'The session has ended or is not valid; sign in again.');
const setupInvalid = () =>
  new DomainError('NOT_FOUND', 'This set-up link is not valid: it was used already, has expired or is mistyped.');

const staffActor = (member: StaffMemberRecord, address: string): Actor => ({
  actor: `staff:${member.email}`,
  address: address === '' ? null : address,
});

/** What the audit log keeps of a member: never the password hash, the TOTP secret or the set-up token. */
function memberFacts(member: StaffMemberRecord) {
  return { staff_id: member.staffId, email: member.email, role: member.role, disabled: member.disabled };
}

/** The staff's realm, as in an authentication realm: the console's people, apart from the developer area's. */
export function createStaffRealm(deps: StaffRealmDeps) {
  return { ...setupCommands(deps), ...sessionCommands(deps), ...memberCommands(deps) };
}

/** Inviting a member, and the one-time set-up link that sets their password. */
function setupCommands(deps: StaffRealmDeps) {
  const { clock, audit } = deps;
  const staff = deps.store.staff;

  async function openSetup(token: string): Promise<StaffMemberRecord> {
    const hash = tokenHash(token);
    const member = hash ? await staff.findMemberBySetup(hash) : null;
    if (!member || member.disabled || (member.setupExpiresAt?.getTime() ?? 0) <= clock().getTime())
      throw setupInvalid();
    return member;
  }

  return {
    /**
     * A new member and their one-time set-up link (stored as its hash). A finance or admin link
     * can move money, so with SMTP configured it is mailed to the invitee and never handed to the
     * inviter (`url` is empty, `mailed` true): one admin cannot set up a second identity and
     * approve their own proposals with it. Otherwise it is shown once, to hand over by hand.
     */
    async invite(
      email: string,
      role: string,
      by: Actor,
    ): Promise<{ member: StaffMemberRecord; url: string; mailed: boolean }> {
      const normalized = checkEmail('email', email);
      if (!(STAFF_ROLES as readonly string[]).includes(role))
        throw invalid('role', 'role must be admin, support or finance.');
      const token = newToken();
      const now = clock();
      const member: StaffMemberRecord = {
        staffId: `stf_${randomBytes(8).toString('hex')}`,
        email: normalized,
        role: role as StaffRole,
        passwordHash: '',
        totpSecret: newTotpSecret(),
        totpLastStep: 0,
        disabled: false,
        setupTokenHash: hashSecret(token),
        setupExpiresAt: new Date(now.getTime() + STAFF_SETUP_TTL_MS),
        createdAt: now,
        invitedBy: by.actor,
        roleSetBy: '',
        powersSince: now,
      };
      if (!(await staff.insertMember(member)))
        throw new DomainError('FAILED_PRECONDITION', `${normalized} is already a staff member.`);
      const url = `${deps.consoleUrl.replace(/\/+$/, '')}/setup/${token}`;
      const mailed = (member.role === 'finance' || member.role === 'admin') && deps.notices?.enabled === true;
      if (mailed)
        deps.notices!.staffSetup({ email: member.email, role: member.role, url, expiresAt: member.setupExpiresAt! });
      await audit(by, { action: 'staff.invite', target: member.email, after: { ...memberFacts(member), mailed } });
      return { member, url: mailed ? '' : url, mailed };
    },

    /** The set-up page: who the link is for, and the TOTP secret to add to an authenticator app. */
    async describeSetup(token: string) {
      const member = await openSetup(token);
      const uri = totpUri(member.totpSecret, member.email);
      return { member, secret: member.totpSecret, uri, qrSvg: await totpQrSvg(uri) };
    },

    /** Sets the password, once, with a current code from the app that scanned the secret. */
    async completeSetup(token: string, password: string, code: string, address: string): Promise<StaffMemberRecord> {
      throwIfViolations(passwordViolations('password', password));
      const member = await openSetup(token);
      const step = matchTotp(member.totpSecret, code, clock());
      if (step === null)
        throw invalid(
          'totp_code',
          'That code is not right: check the time on your phone and enter the code it shows now.',
        );
      const done = await staff.completeSetup(member.setupTokenHash!, await hashPassword(password), step, clock());
      if (!done) throw setupInvalid();
      await audit(staffActor(done, address), { action: 'staff.setup', target: done.email, after: memberFacts(done) });
      return done;
    },
  };
}

/** Signing in (password and code, throttled), out, and each call's session and power check. */
function sessionCommands(deps: StaffRealmDeps) {
  const { clock, audit } = deps;
  const staff = deps.store.staff;
  const throttle = deps.throttle ?? createSignInThrottle({ freePerPerson: FREE_FAILURES_PER_PERSON });

  return {
    /**
     * Email, password and code together: the second step is mandatory for staff. Every failure
     * reads the same.
     */
    async signIn(emailText: string, password: string, code: string, address: string): Promise<StaffSignIn> {
      const email = normalizeEmail(emailText).slice(0, MAX_EMAIL_CHARS);
      const wait = throttle.waitMs(email, address, clock());
      if (wait > 0) return { outcome: 'throttled', retryAfterSeconds: Math.ceil(wait / 1000) };
      const member = email === '' ? null : await staff.findMemberByEmail(email);
      const usable = member !== null && !member.disabled && member.passwordHash !== '';
      const candidate = password.length <= MAX_PASSWORD_CHARS * 4 ? password : '';
      const passwordOk = await verifyPassword(candidate, usable ? member.passwordHash : await dummyHash());
      const step = usable ? matchTotp(member.totpSecret, code, clock()) : null;
      if (!usable || !passwordOk || step === null || !(await staff.claimTotpStep(member.staffId, step))) {
        throttle.failed(email, address, clock());
        return { outcome: 'invalid_credentials' };
      }
      throttle.succeeded(email, address);
      const token = newToken();
      const now = clock();
      await staff.insertSession({
        tokenHash: hashSecret(token),
        staffId: member.staffId,
        createdAt: now,
        lastSeenAt: now,
        absoluteExpiresAt: new Date(now.getTime() + STAFF_SESSION_ABSOLUTE_MS),
      });
      await audit(staffActor(member, address), { action: 'staff.sign_in', target: member.email });
      return { outcome: 'signed_in', token, member };
    },

    async signOut(token: string): Promise<void> {
      const hash = tokenHash(token);
      if (hash) await staff.deleteSession(hash);
    },

    /**
     * The session's member, if it may use `power` (STAFF_POWERS); extends the idle expiry. An
     * unknown, idle, expired or disabled member's session is UNAUTHENTICATED; a role without
     * the power is PERMISSION_DENIED, whatever the page showed.
     */
    async require(token: string, power: StaffPower, address: string): Promise<StaffContext> {
      const hash = tokenHash(token);
      const found = hash ? await staff.findSession(hash) : null;
      if (!found) throw sessionEnded();
      const now = clock();
      const member = await staff.getMember(found.staffId);
      if (staffSessionEndsAt(found).getTime() <= now.getTime() || !member || member.disabled) {
        await staff.deleteSession(found.tokenHash);
        throw sessionEnded();
      }
      if (!mayDo(member.role, power))
        throw new DomainError('PERMISSION_DENIED', `A ${member.role} member cannot do this; ask a colleague who can.`);
      const session = await staff.touchSession(found.tokenHash, now);
      if (!session) throw sessionEnded();
      return { session, member, who: staffActor(member, address) };
    },
  };
}

/** The members' list, disabling and roles, never leaving the console without an admin. */
function memberCommands(deps: StaffRealmDeps) {
  const { audit } = deps;
  const staff = deps.store.staff;

  async function memberByEmail(email: string): Promise<StaffMemberRecord> {
    const member = await staff.findMemberByEmail(normalizeEmail(email));
    if (!member) throw notFound(`Staff member ${email.slice(0, MAX_EMAIL_CHARS) || '(empty email)'}`);
    return member;
  }

  /**
   * Refuses, for a staff member acting in the console, to disable or demote the last active
   * admin (which only that admin can be, acting on themselves). A check before the write: two
   * admins demoting each other in the same instant could both pass, which leaves the CLI to
   * invite an admin again.
   */
  async function keepOneAdmin(member: StaffMemberRecord, by: Actor, what: string): Promise<void> {
    if (!by.actor.startsWith('staff:') || !isActiveAdmin(member)) return;
    const others = (await staff.listMembers()).filter((m) => m.staffId !== member.staffId && isActiveAdmin(m));
    if (others.length === 0)
      throw new DomainError(
        'FAILED_PRECONDITION',
        `${member.email} is the last active admin and cannot be ${what}; make another member admin first.`,
      );
  }

  return {
    listMembers: () => staff.listMembers(),

    /** Still within the four-eyes cooling time of being invited, set up or given a role. */
    newToPowers: (member: StaffMemberRecord) => isNewToPowers(member, deps.fourEyesCoolingMs, deps.clock()),

    /**
     * Disables a member by email and ends their sessions. From the console, never the last
     * active admin: the console would be left with nobody to manage it (the CLI, which holds
     * the platform's root token, may, and can invite a new admin).
     */
    async disable(email: string, by: Actor): Promise<StaffMemberRecord> {
      const member = await memberByEmail(email);
      await keepOneAdmin(member, by, 'disabled');
      const disabled = await staff.setDisabled(member.staffId, true);
      if (!disabled) throw notFound(`Staff member ${email}`);
      await staff.deleteMemberSessions(member.staffId);
      await audit(by, {
        action: 'staff.disable',
        target: member.email,
        before: memberFacts(member),
        after: memberFacts(disabled),
      });
      return disabled;
    },

    /** Changes a member's role by email; their sessions carry on with the new role's powers at once. */
    async setRole(email: string, role: string, by: Actor): Promise<StaffMemberRecord> {
      if (!(STAFF_ROLES as readonly string[]).includes(role))
        throw invalid('role', 'role must be admin, support or finance.');
      const member = await memberByEmail(email);
      if (member.role === role) return member;
      await keepOneAdmin(member, by, 'moved to another role');
      const changed = await staff.setRole(member.staffId, role as StaffRole, by.actor, deps.clock());
      if (!changed) throw notFound(`Staff member ${member.email}`);
      await audit(by, {
        action: 'staff.set_role',
        target: member.email,
        before: memberFacts(member),
        after: memberFacts(changed),
      });
      return changed;
    },
  };
}

export type StaffRealm = ReturnType<typeof createStaffRealm>;
