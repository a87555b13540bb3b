/**
 * The rules of signing up in the developer area, without I/O (docs/sign-up.md): what the
 * form's fields must be, the Nigerian phone shapes accepted and the one form they are kept
 * in, how long the email link and the phone code last and how often they may be tried, and
 * `liveAllowed`, the one rule of when an account may touch live money: once its owner's email
 * and phone are both proven. Accounts the operator makes are proven by being made.
 */
import { DomainError, type FieldViolation } from './errors.js';
import type { Mode } from './mode.js';
import { MAX_EMAIL_CHARS, normalizeEmail, passwordViolations } from './people.js';
import { hasControlCharacters } from './validation.js';

/** SIGNUP: `open` anyone may sign up; `invite` accounts come by the operator and invitations only; `off` neither. */
export const SIGNUP_MODES = ['open', 'invite', 'off'] as const;
export type SignUpMode = (typeof SIGNUP_MODES)[number];

/** The account's name on the statement and the console; as long as the operator's `accounts create` allows. */
const MAX_SIGN_UP_NAME_CHARS = 100;
/** The email link works once, for a day: long enough to find the mail the next morning. */
export const EMAIL_LINK_TTL_MS = 24 * 3_600_000;
/** A phone code works for 10 minutes: an SMS takes seconds, a person a minute or two. */
export const PHONE_CODE_TTL_MS = 10 * 60_000;
/** Wrong codes one code may take before it is spent: a guess in 200,000 at most (6 digits). */
export const PHONE_CODE_TRIES = 5;
/** A new code is sent at most once a minute... */
export const PHONE_RESEND_MS = 60_000;
/** ...and at most this many a Lagos day per account: every one is an SMS the platform pays for. */
export const PHONE_CODES_PER_DAY = 5;
/** Sign-ups per unverified account per client address and Lagos day, unless SIGNUP_PER_ADDRESS_DAY says otherwise. */
export const DEFAULT_SIGNUPS_PER_ADDRESS_DAY = 20;

/** A sign-up as the form sent it. */
export interface SignUpInput {
  name: string;
  email: string;
  phone: string;
  password: string;
}

/** A sign-up whose every field is valid: the email lower case, the phone in its 11-digit form. */
export interface ValidSignUp {
  name: string;
  email: string;
  phone: string;
  password: string;
}

/**
 * A Nigerian mobile number in the one form the platform keeps (11 digits from 0, as the API's
 * `phone`), from `08031234567`, `+2348031234567` or `2348031234567`, spaces, dots and dashes
 * taken out; null for anything else. Mobile numbers start 070, 080, 081, 090 or 091 (the
 * numbering plan's mobile ranges); the network is never read from the prefix.
 */
function nigerianMobile(text: string): string | null {
  const digits = text.trim().replace(/[\s.-]/g, '');
  const match = /^(?:\+?234|0)([789][01]\d{8})$/.exec(digits);
  return match ? `0${match[1]}` : null;
}

/** The part of an email after its @, which the per-domain throttle counts by. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1);
}

/** Every field of a sign-up checked at once; the violations name the form's fields. */
export function checkSignUp(input: SignUpInput): { valid: ValidSignUp } | { violations: FieldViolation[] } {
  const violations: FieldViolation[] = [];
  const name = input.name.trim();
  if (name === '') violations.push({ field: 'name', description: 'Enter the name of your business or your name.' });
  else if (hasControlCharacters(name))
    violations.push({ field: 'name', description: 'The name must be one line of text, without control characters.' });
  else if ([...name].length > MAX_SIGN_UP_NAME_CHARS)
    violations.push({ field: 'name', description: `The name must be at most ${MAX_SIGN_UP_NAME_CHARS} characters.` });
  const email = normalizeEmail(input.email);
  if (email === '') violations.push({ field: 'email', description: 'Enter your email address.' });
  else if (email.length > MAX_EMAIL_CHARS)
    violations.push({
      field: 'email',
      description: `The email address must be at most ${MAX_EMAIL_CHARS} characters.`,
    });
  else if (!/^[^\s@<>"',;]+@[^\s@<>"',;]+\.[^\s@<>"',;]+$/.test(email) || hasControlCharacters(email))
    violations.push({ field: 'email', description: 'Enter an email address such as ada@example.com.' });
  const phone = nigerianMobile(input.phone);
  if (input.phone.trim() === '') violations.push({ field: 'phone', description: 'Enter your mobile number.' });
  else if (phone === null)
    violations.push({
      field: 'phone',
      description: 'Enter a Nigerian mobile number of 11 digits such as 08031234567, or +2348031234567.',
    });
  violations.push(...passwordViolations('password', input.password));
  if (violations.length > 0) return { violations };
  return { valid: { name, email, phone: phone!, password: input.password } };
}

/** When an account's owner proved their email and phone; null: not yet. */
export interface AccountProof {
  emailVerifiedAt: Date | null;
  phoneVerifiedAt: Date | null;
}

/** Whether the account may fund its live wallet and buy with live money: both its email and its phone proven. */
export function liveAllowed(account: AccountProof): boolean {
  return account.emailVerifiedAt !== null && account.phoneVerifiedAt !== null;
}

/** Refuses a live action of an account whose owner has not proven both (VERIFICATION_REQUIRED); test mode is open. */
export function refuseUnverifiedLive(account: AccountProof, mode: Mode): void {
  if (mode !== 'live' || liveAllowed(account)) return;
  const missing = [
    account.emailVerifiedAt === null ? 'your email address' : '',
    account.phoneVerifiedAt === null ? 'your phone number' : '',
  ].filter((one) => one !== '');
  throw new DomainError(
    'VERIFICATION_REQUIRED',
    `Verify ${missing.join(' and ')} first: live funding and live purchases open once both are verified ` +
      '(the developer area, Verify). Nothing was charged; the test world is open meanwhile.',
  );
}
