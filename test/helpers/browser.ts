/**
 * What the developer area's browser tests share: Debian's Chromium (/usr/bin/chromium,
 * headless) through playwright-core, screenshots at 1280 and 390 pixels wide into the
 * git-ignored .screenshots/dashboard/, and the sign-in and invitation steps a person takes.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = path.join(ROOT, '.screenshots', 'dashboard');
const WIDTHS = [1280, 390] as const;

/**
 * Whether Chromium is here; without it the browser tests say SKIPPED (with the install command) and count as skipped.
 */
export function chromiumOrSkip(what: string): boolean {
  const found = existsSync(CHROMIUM);
  if (!found) console.log(`SKIPPED: ${what}: no Chromium at ${CHROMIUM}. Install it with: apt-get install -y chromium`);
  return found;
}

export async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** A screenshot of the page as it is, at both widths; at 390 px nothing may stick out sideways. */
export async function snap(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
    if (width === 390) {
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `${name} fits 390 px without scrolling sideways (overflow ${overflow}px)`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

export async function signIn(page: Page, url: string, email: string, password: string): Promise<void> {
  await page.goto(`${url}/sign-in`);
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** What a browser test starts and must end: the browser, servers, a receiver. */
type Closable = { close(): Promise<unknown> } | { stop(): Promise<unknown> };

/**
 * Ends what a browser test started, in the order given (the browser first); a part never started is passed as
 * undefined.
 */
export async function closeAll(...parts: Array<Closable | undefined>): Promise<void> {
  for (const part of parts) {
    if (part === undefined) continue;
    await ('close' in part ? part.close() : part.stop());
  }
}

/** Accepts an invitation link in `page`: opens it, sets the password, lands on sign-in. */
export async function acceptInvitation(
  page: Page,
  dashboardUrl: string,
  inviteUrl: string,
  password: string,
): Promise<void> {
  // The core builds the link on DASHBOARD_PUBLIC_URL; the test's dashboard has a port of its own.
  await page.goto(`${dashboardUrl}${new URL(inviteUrl).pathname}`);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Password again').fill(password);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL(/\/sign-in\?welcome=1$/);
}
