/**
 * Staff for tests: a clock the test moves (so each TOTP code falls in a fresh step, as a
 * person's next code would), and members invited, set up and signed in through the real RPCs.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import type { Browser, Page } from 'playwright-core';
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

/**
 * Invites a member, then sets them up and signs them in through the console's own pages (the
 * set-up page, then the sign-in page with a fresh code), in a fresh browser context.
 */
export async function staffInBrowser(
  target: { core: TestCore; clock: TestClock; browser: Browser; consoleUrl: string },
  role: 'admin' | 'support' | 'finance',
  email: string,
): Promise<Page> {
  const { core, clock, browser, consoleUrl } = target;
  const { staffAdmin, console } = consoleClients(core);
  const { setupUrl } = await staffAdmin.inviteStaff({ email, role });
  const setupToken = setupUrl.split('/setup/')[1]!;
  const { totpSecret } = await console.getStaffSetup({ setupToken });
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${consoleUrl}/setup/${setupToken}`);
  await page.getByLabel(/Choose a password/).fill(STAFF_PASSWORD);
  await page.getByLabel('Code your app shows now').fill(clock.nextCode(totpSecret));
  await page.getByRole('button', { name: 'Finish set-up' }).click();
  await page.waitForURL(`${consoleUrl}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(STAFF_PASSWORD);
  await page.getByLabel('Code from your authenticator app').fill(clock.nextCode(totpSecret));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${consoleUrl}/`);
  return page;
}

/** Signs a member in again (a session ends after 8 hours, so a test that moves days ahead needs a new one). */
export async function signInAgain(core: TestCore, clock: TestClock, member: SignedInStaff): Promise<SignedInStaff> {
  const signedIn = await consoleClients(core).console.staffSignIn({
    email: member.email,
    password: STAFF_PASSWORD,
    totpCode: clock.nextCode(member.secret),
    clientAddress: '127.0.0.1',
  });
  if (signedIn.outcome !== StaffSignInOutcome.SIGNED_IN) throw new Error(`${member.email} could not sign in`);
  return { ...member, token: signedIn.sessionToken };
}
