/**
 * The rules of the developer area's people, without I/O: roles, emails, passwords, how
 * long invitations and sessions last, and the Africa/Lagos days the holder's pages count in.
 */
import { type FieldViolation, invalid } from './errors.js';
import type { UserRole } from './records.js';

export const USER_ROLES = ['owner', 'viewer'] as const satisfies readonly UserRole[];

/** An invitation link works once, for 72 hours. */
export const INVITATION_TTL_MS = 72 * 3_600_000;
/**
 * Open invitations one account may have at once: the Users page lists them all, so the list
 * is bounded; an owner past it revokes some first. No team invites this many in 72 hours.
 */
export const MAX_OPEN_INVITATIONS = 100;
/** A session ends after 30 minutes without use... */
export const SESSION_IDLE_MS = 30 * 60_000;
/** ...and 12 hours after sign-in whatever happens. */
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
/** A sign-in waiting for its TOTP code waits 5 minutes at most. */
export const TOTP_CHALLENGE_MS = 5 * 60_000;

const MIN_PASSWORD_CHARS = 12;
/** Long enough for any passphrase, short enough that hashing it costs nothing extra. */
export const MAX_PASSWORD_CHARS = 200;
/** RFC 5321's limit on a forward path. */
export const MAX_EMAIL_CHARS = 254;

/** Lower case and trimmed: the one spelling an email is stored and looked up in. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The email as stored, or an INVALID_PARAMETER naming `field`. Deliberately loose: the invitation link proves
 * the address.
 */
export function checkEmail(field: string, email: string): string {
  const normalized = normalizeEmail(email);
  if (normalized.length > MAX_EMAIL_CHARS || !/^[^\s@<>"',;]+@[^\s@<>"',;]+\.[^\s@<>"',;]+$/.test(normalized)) {
    throw invalid(field, `${field} must be an email address such as ada@example.com.`);
  }
  return normalized;
}

/** Why a new password is refused, if it is: length only (NIST SP 800-63B), counted in characters, not UTF-16 units. */
export function passwordViolations(field: string, password: string): FieldViolation[] {
  const length = [...password].length;
  if (length < MIN_PASSWORD_CHARS)
    return [{ field, description: `The password must be at least ${MIN_PASSWORD_CHARS} characters long.` }];
  if (length > MAX_PASSWORD_CHARS)
    return [{ field, description: `The password must be at most ${MAX_PASSWORD_CHARS} characters long.` }];
  return [];
}

/** When a session stops being valid: 30 minutes after its last use or at its absolute expiry, whichever comes first. */
export function sessionEndsAt(session: { lastSeenAt: Date; absoluteExpiresAt: Date }): Date {
  return new Date(Math.min(session.lastSeenAt.getTime() + SESSION_IDLE_MS, session.absoluteExpiresAt.getTime()));
}

/**
 * Africa/Lagos is UTC+1 all year (West Africa Time, no daylight saving since 1919), so a
 * Lagos day is a fixed-offset day; test/core/domain/people.test.ts checks this against the
 * time zone database.
 */
export const LAGOS_OFFSET_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Whole Lagos days since 1970-01-01 (Lagos) of an instant. */
export function lagosDay(at: Date): number {
  return Math.floor((at.getTime() + LAGOS_OFFSET_MS) / DAY_MS);
}

/** The instant a Lagos day begins. */
export function lagosDayStart(day: number): Date {
  return new Date(day * DAY_MS - LAGOS_OFFSET_MS);
}

/** A Lagos day as YYYY-MM-DD. */
export function lagosDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The first day of the Lagos month that `day` is in. */
export function lagosMonthStart(day: number): number {
  const date = new Date(day * DAY_MS);
  return Math.floor(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS);
}

/** A YYYY-MM-DD form value as a Lagos day, or an INVALID_PARAMETER naming `field`. */
export function parseLagosDate(field: string, text: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (!match || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text.trim()) {
    throw invalid(field, `${field} must be a date written YYYY-MM-DD, for example 2025-01-31.`);
  }
  return ms / DAY_MS;
}
