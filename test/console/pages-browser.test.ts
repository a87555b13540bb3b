/**
 * Every page of the console in a real Chromium, at desktop and phone width, through axe-core
 * (pinned, run inside the page under its real CSP), as the developer area's pages are: no
 * serious or critical finding, and every tap target at least 24 px (axe's `target-size`, WCAG
 * 2.2's 2.5.8, turned on whatever its default). Each page also names itself to search engines
 * and bookmarks: a meta description and an icon that the console serves.
 */
import axeCore from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { chromiumOrSkip, closeAll, launchChromium } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { staffInBrowser, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  app: TestConsole;
  browser: Browser;
  clock: TestClock;
}

const test = suite<State>('console: every page through axe-core, on a phone too', {} as State);
const haveChromium = chromiumOrSkip('console page checks');
const flow = haveChromium ? test : test.skip;

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  state.core = await startCore({ clock: state.clock.now });
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
});
test.after(async (state) => {
  if (!haveChromium) return;
  await closeAll(state.browser, state.app, state.core);
});

/** The pages a signed-in admin reaches from the menu, and an account's page. */
const SIGNED_IN_PATHS = [
  '/',
  '/accounts',
  '/blocklist',
  '/credit',
  '/debit',
  '/audit',
  '/catalogue/tiers',
  '/catalogue/plans',
  '/catalogue/costs',
  '/settings',
  '/staff',
  '/reports',
  '/books',
];

/** axe-core's serious and critical findings, and any tap target under 24 px, at desktop and phone width. */
async function findings(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await page.evaluate(axeCore.source);
    const ids = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: typeof axeCore }).axe;
      const result = await axe.run(document, {
        resultTypes: ['violations'],
        rules: { 'target-size': { enabled: true } },
      });
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.id === 'target-size')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.html.slice(0, 80)).join(' | ')}`);
    });
    found.push(...ids.map((id) => `${viewport.width}px ${id}`));
    found.push(...(await smallTargets(page)).map((target) => `${viewport.width}px under 24 px: ${target}`));
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return found;
}

/**
 * Controls whose box is under 24 x 24 px, as Lighthouse measures tap targets; axe's rule
 * passes a small target with room around it, which a thumb does not. A link inside a sentence
 * (a paragraph, a table cell, a list item) is WCAG 2.5.8's inline exception and is left out.
 */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('a[href], button, input:not([type="hidden"]), select, textarea, summary')]
      .filter((element) => {
        const box = element.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) return false;
        if (element.tagName === 'A' && element.closest('p, td, li, dd')) return false;
        return box.width < 24 || box.height < 24;
      })
      .map((element) => {
        const box = element.getBoundingClientRect();
        return `${element.outerHTML.slice(0, 60)} (${Math.round(box.width)}x${Math.round(box.height)})`;
      }),
  );
}

/** The page's meta description and icon: present, and the icon served as an image. */
async function headProblems(page: Page, base: string): Promise<string[]> {
  const problems: string[] = [];
  const { description, icon } = await page.evaluate(() => ({
    description: document.querySelector('meta[name="description"]')?.getAttribute('content') ?? null,
    icon: document.querySelector('link[rel="icon"]')?.getAttribute('href') ?? null,
  }));
  if (description === null || description.trim().length < 20) problems.push('no meta description');
  if (icon === null) problems.push('no icon link');
  else {
    const answer = await fetch(new URL(icon, base));
    if (answer.status !== 200 || !/^image\//.test(answer.headers.get('content-type') ?? ''))
      problems.push(`icon ${icon}: ${answer.status} ${answer.headers.get('content-type')}`);
  }
  return problems;
}

flow('the sign-in page and every signed-in page pass axe-core and carry a description and an icon', async (state) => {
  const { app } = state;
  const anonymous = await (await state.browser.newContext()).newPage();
  await anonymous.goto(`${app.url}/sign-in`);
  const problems: string[] = [];
  for (const finding of [...(await findings(anonymous)), ...(await headProblems(anonymous, app.url))])
    problems.push(`/sign-in ${finding}`);
  const page = await staffInBrowser({ ...state, consoleUrl: app.url }, 'admin', 'ada-pages@ops.example.ng');
  const { accountId } = await state.core.createApiAccount({ name: 'Kano Top-up Ltd' });
  // A block on the platform's list, so its page shows an entry and its button.
  await state.core.admin.blockRecipient({ value: '08059990001', reason: 'reported stolen' });
  for (const path of [...SIGNED_IN_PATHS, `/accounts/${accountId}`]) {
    const answer = await page.goto(`${app.url}${path}`);
    assert.is(answer?.status(), 200, path);
    for (const finding of [...(await findings(page)), ...(await headProblems(page, app.url))])
      problems.push(`${path} ${finding}`);
  }
  assert.equal(problems, []);
  // Browsers ask for /favicon.ico whatever a page says.
  const ico = await fetch(`${app.url}/favicon.ico`);
  assert.is(ico.status, 200);
  assert.match(ico.headers.get('content-type') ?? '', /^image\//);
});

test.run();
