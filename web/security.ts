/**
 * What keeps the web apps' answers and forms safe (the developer area's and the console's), in one place: the headers
 * on every answer, how cookies are read and written, and the CSRF tokens of the forms (door.ts checks them; each
 * app names its own cookies).
 *
 * CSRF: a synchroniser token tied to the session. A signed-in form carries
 * HMAC(secret, "session:" + session token); a form shown before sign-in (sign-in, the TOTP
 * step, accepting an invitation) carries HMAC(secret, "visitor:" + a random visitor cookie),
 * so that a stranger's page cannot post a sign-in either (login CSRF). The server checks the
 * token of every POST in constant time before it calls the core; a POST without it is
 * refused with a page that says so. The secret never leaves the app, so a token cannot
 * be made without the cookie, and a cookie is not readable by another site.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The form field every POST carries. */
export const CSRF_FIELD = 'csrf_token';

/**
 * The Content-Security-Policy of every answer: scripts, styles and images only from this
 * origin (data: for nothing), no inline script or style at all, no plugins, no framing, forms
 * posting only here. `style-src 'self'` has no 'unsafe-inline', so the stylesheet is a file.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Headers every answer carries, static files included. */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // An invitation link carries its token; no page may pass its address on to another site.
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
}

/** The cookies of a request, by name; a malformed pair is skipped. */
export function readCookies(req: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>();
  const header = req.headers.cookie;
  if (header === undefined) return cookies;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    // Our values are base64url and prefixed tokens: anything else is not one of ours.
    if (!cookies.has(name) && /^[A-Za-z0-9_.-]{1,512}$/.test(value)) cookies.set(name, value);
  }
  return cookies;
}

/** How cookies are written: `Secure` when the app is reached over https. */
export interface CookieOptions {
  secure: boolean;
}

/** An HttpOnly, SameSite=Lax cookie on every path of this origin. */
export function httpOnlyCookie(name: string, value: string, maxAgeS: number, options: CookieOptions): string {
  // SameSite=Lax: the cookie goes with a top-level link from elsewhere (an invitation link
  // in an e-mail lands signed in when the session exists) but never with another site's POST.
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeS}`];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/** A Set-Cookie that removes `name`. */
export function clearedCookie(name: string, options: CookieOptions): string {
  return httpOnlyCookie(name, '', 0, options);
}

export function newVisitorId(): string {
  return randomBytes(24).toString('base64url');
}

/** Makes and checks CSRF tokens with the app's secret. */
export interface Csrf {
  /** The token of the forms of a signed-in session. */
  forSession(sessionToken: string): string;
  /** The token of the forms shown to a visitor before sign-in. */
  forVisitor(visitorId: string): string;
  /** True when `given` is the token for exactly this session or visitor, compared in constant time. */
  check(given: string | undefined, expected: string): boolean;
}

export function createCsrf(secret: string): Csrf {
  const mac = (purpose: string, value: string) =>
    createHmac('sha256', secret).update(`${purpose}:${value}`).digest('base64url');
  return {
    forSession: (token) => mac('session', token),
    forVisitor: (id) => mac('visitor', id),
    check(given, expected) {
      if (given === undefined) return false;
      const a = Buffer.from(given);
      const b = Buffer.from(expected);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
