/**
 * The developer area's cookies, by name (the console has its own: both may share a host, and cookies
 * ignore ports). The door (web/door.ts) reads and writes the session and visitor cookies; the
 * sign-in pages keep the TOTP challenge between the password and the code.
 */
import { SESSION_ABSOLUTE_MS, TOTP_CHALLENGE_MS } from '../core/domain/people.js';
import type { DoorCookies } from '../web/door.js';
import { type CookieOptions, httpOnlyCookie } from '../web/security.js';

/** Between the password and the TOTP code: the core's pending sign-in, HttpOnly, short-lived. */
export const CHALLENGE_COOKIE = 'prepaid_challenge';
/** The TOTP step must follow the password within the core's time for it; the cookie never outlives it. */
const CHALLENGE_COOKIE_MAX_AGE_S = TOTP_CHALLENGE_MS / 1000;

export const DASHBOARD_COOKIES: DoorCookies = {
  session: 'prepaid_session',
  visitor: 'prepaid_visitor',
  /** The session's absolute lifetime in the core; the cookie never outlives it. */
  sessionMaxAgeS: SESSION_ABSOLUTE_MS / 1000,
  signInSteps: [CHALLENGE_COOKIE],
};

export function challengeCookie(token: string, options: CookieOptions): string {
  return httpOnlyCookie(CHALLENGE_COOKIE, token, CHALLENGE_COOKIE_MAX_AGE_S, options);
}
