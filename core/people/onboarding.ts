/**
 * Sign-up and its proofs, built together (docs/sign-up.md): the form's use case (sign-up.ts)
 * and the email link and phone code (verification.ts), over the platform's SMS route.
 */
import type { Logger } from '../../runtime/log.js';
import { DEFAULT_SIGNUPS_PER_ADDRESS_DAY, type SignUpMode } from '../domain/sign-up.js';
import type { Notices } from '../mail/notices.js';
import type { SmsProvider } from '../providers/port.js';
import type { Store } from '../store/port.js';
import { createSignUps, type SignUps } from './sign-up.js';
import { createVerification, type Verification } from './verification.js';

/** SIGNUP and SIGNUP_PER_ADDRESS_DAY. */
export interface SignUpSettings {
  mode: SignUpMode;
  perAddressPerDay: number;
}

/** Accounts come from the operator and invitations unless the operator opens sign-up. */
const DEFAULT_SIGN_UP: SignUpSettings = { mode: 'invite', perAddressPerDay: DEFAULT_SIGNUPS_PER_ADDRESS_DAY };

export interface Onboarding {
  signUps: SignUps;
  verification: Verification;
  mailConfigured: boolean;
}

export function createOnboarding(deps: {
  store: Pick<Store, 'people' | 'signUps' | 'accounts'>;
  clock: () => Date;
  dashboardUrl: string;
  notices: Notices;
  log: Logger;
  /** The live SMS route: its notify sends the platform's own messages, never charged to a wallet. */
  sms: SmsProvider;
  /** How long the SMS route has to answer (PROVIDER_TIMEOUT_MS). */
  timeoutMs: number;
  settings: SignUpSettings | undefined;
}): Onboarding {
  const settings = deps.settings ?? DEFAULT_SIGN_UP;
  const { store, clock, dashboardUrl, notices, log } = deps;
  return {
    signUps: createSignUps({ store, clock, dashboardUrl, notices, log, ...settings }),
    verification: createVerification({
      store,
      clock,
      dashboardUrl,
      notices,
      log,
      sms: {
        send: (message) => deps.sms.notify(message, AbortSignal.timeout(deps.timeoutMs)),
        sandbox: deps.sms.name === 'sandbox',
      },
    }),
    mailConfigured: notices.enabled,
  };
}
