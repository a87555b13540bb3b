/**
 * How an Adex client presents itself (docs/compat.md, Adex: Logging in). The family logs in with
 * `Authorization: Basic ...` (`base64(username:password)`, or the stored `username:password` as
 * is, after one space or two) and then sends `Authorization: Token <AccessToken>` (one space or
 * two). Here the password is the compatible token itself, the AccessToken the login answers is
 * that same token, and the user name is the account's id: the token is the secret, the user name
 * only has to match it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** `Token <key>` with any whitespace. */
const TOKEN_AUTHORIZATION = /^\s*Token\s+([^\s,]+)\s*$/i;
/** `Basic <credentials>` with any whitespace. */
const BASIC_AUTHORIZATION = /^\s*Basic\s+([^\s,]+)\s*$/i;
/** The longest credentials read; past it the header is no credentials at all. */
const MAX_BASIC_LENGTH = 512;

export interface BasicCredentials {
  username: string;
  password: string;
}

/** The user name and password of a Basic header, base64 or (as one client stores them) plain. */
export function basicOf(headers: IncomingHttpHeaders): BasicCredentials | undefined {
  const authorization = headers.authorization;
  if (typeof authorization !== 'string' || authorization.length > MAX_BASIC_LENGTH) return undefined;
  const credentials = BASIC_AUTHORIZATION.exec(authorization)?.[1];
  if (credentials === undefined) return undefined;
  const plain = credentials.includes(':')
    ? credentials
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(credentials)
      ? Buffer.from(credentials, 'base64').toString('utf8')
      : '';
  const colon = plain.indexOf(':');
  if (colon < 0) return undefined;
  const password = plain.slice(colon + 1).trim();
  return password === '' ? undefined : { username: plain.slice(0, colon).trim(), password };
}

/** The token a request presents: the Token header's, else the Basic password. */
export function adexTokenOf(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization !== 'string') return undefined;
  return TOKEN_AUTHORIZATION.exec(authorization)?.[1] ?? basicOf(headers)?.password;
}

/** Whether a Basic user name is the account's id, compared in constant time. */
export function sameUsername(given: string, accountId: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(accountId));
}
