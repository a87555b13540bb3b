/**
 * Staff for tests: a clock the test moves (so each TOTP code falls in a fresh step, as a
 * person's next code would), and members invited, set up and signed in through the real RPCs.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { totpCode } from '../../core/people/totp.js';
import { ConsoleService, StaffAdminService, StaffSignInOutcome } from '../../gen/prepaid/v1/console_pb.js';
import { bearer, type TestCore } from './core.js';

/** A clock that moves only when told: 30 s further for every code asked of it. */
export class TestClock {
  ms = Date.now();
  readonly now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
  /** The code an authenticator shows half a minute later (a step not used yet). */
  nextCode(secret: string): string {
    this.advance(30_000);
    return totpCode(secret, this.now());
  }
}

export const STAFF_PASSWORD = 'correct horse battery staple';

export interface SignedInStaff {
  email: string;
  secret: string;
  token: string;
  setupUrl: string;
}

export function consoleClients(core: TestCore) {
  const transport = (token: string) => createGrpcTransport({ baseUrl: core.url, interceptors: [bearer(token)] });
  return {
    console: createClient(ConsoleService, transport(core.serviceToken)),
    staffAdmin: createClient(StaffAdminService, transport(core.adminToken)),
  };
}

/** Invites a member, completes the set-up link with a password and a code, and signs in. */
export async function signedInStaff(
  core: TestCore,
  clock: TestClock,
  role: 'admin' | 'support' | 'finance',
  email = `${role}-${Math.random().toString(36).slice(2, 8)}@ops.example.ng`,
): Promise<SignedInStaff> {
  const { console, staffAdmin } = consoleClients(core);
  const invited = await staffAdmin.inviteStaff({ email, role });
  const setupToken = invited.setupUrl.split('/setup/')[1]!;
  const setup = await console.getStaffSetup({ setupToken });
  await console.completeStaffSetup({
    setupToken,
    password: STAFF_PASSWORD,
    totpCode: clock.nextCode(setup.totpSecret),
    clientAddress: '127.0.0.1',
  });
  const signedIn = await console.staffSignIn({
    email,
    password: STAFF_PASSWORD,
    totpCode: clock.nextCode(setup.totpSecret),
    clientAddress: '127.0.0.1',
  });
  if (signedIn.outcome !== StaffSignInOutcome.SIGNED_IN) throw new Error(`${email} could not sign in`);
  return { email, secret: setup.totpSecret, token: signedIn.sessionToken, setupUrl: invited.setupUrl };
}
