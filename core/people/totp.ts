/**
 * Two-step sign-in codes: RFC 6238 TOTP (HMAC-SHA1, 6 digits, 30-second steps, what every
 * authenticator app reads from an otpauth:// URI) through the otpauth library. A code is
 * accepted for the current step and one step either side (clock drift), and the step it
 * matched is returned so that the caller can refuse it a second time (PeopleStore.claimTotpStep).
 * Secrets are 20 random bytes (RFC 4226's recommended 160 bits) in base32.
 */
import { Secret, TOTP } from 'otpauth';

const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one. */
const TOTP_WINDOW = 1;
/** The name authenticator apps show above the code. */
const TOTP_ISSUER = 'Prepaid';

function totp(secret: string, label = ''): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The time step an instant falls in. */
export function totpStep(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/** The step the code matched at `at`, or null when it matches none within the window. */
export function matchTotp(secret: string, code: string, at: Date): number | null {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totp(secret).validate({ token, timestamp: at.getTime(), window: TOTP_WINDOW });
  return delta === null ? null : totpStep(at) + delta;
}

/** The code for an instant: what an authenticator app shows (tests compute codes with it). */
export function totpCode(secret: string, at: Date): string {
  return totp(secret).generate({ timestamp: at.getTime() });
}

/** The otpauth://totp/... URI an authenticator app scans, labelled with the user's email. */
export function totpUri(secret: string, email: string): string {
  return totp(secret, email).toString();
}

/** The URI as a standalone SVG QR code (medium error correction). */
export async function totpQrSvg(uri: string): Promise<string> {
  // Loaded on first use: only a TOTP setup needs it, and the core starts without it.
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
