/**
 * The Fund wallet page with Paystack enabled, in a real browser (Chromium through
 * playwright-core) against a real core and dashboard on port 0 and the fake Paystack: the
 * identity form asks for a bank account linked to the BVN (the bank, chosen from Paystack's
 * bank list as the core keeps it, or its code typed while the list cannot be had; and the
 * account number);
 * a wrong account number, or one without its bank code, is a field error beside the field; a
 * correct one starts Paystack's identification with that bank account, and the page says the
 * account appears when Paystack answers. When Paystack's signed customeridentification.success
 * arrives, the page shows the account and "BVN ending …", and a transfer to it is credited.
 * Test mode (sandbox only) asks for no bank account. The BVN is in no page and no log line.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { DEFAULT_TIER_ID } from '../../core/catalog/defaults.js';
import { createPaystackFunding } from '../../core/funding/paystack.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { type FakePaystack, startFakePaystack } from '../helpers/fake-paystack.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  paystack: FakePaystack;
  browser: Browser;
  page: Page;
  accountId: string;
  coreLog: string[];
  seen: string[];
  /** How far the core's clock is ahead of the machine's. */
  aheadMs: number;
}

const test = suite<State>('dashboard: Fund wallet with a bank account for Paystack, in a real browser');
const haveChromium = chromiumOrSkip('dashboard fund wallet bank account browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'ada@ikejadata.ng', password: 'a long owner password 43' };
const BVN = '22456789012';

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

test.before(async (state) => {
  if (!haveChromium) return;
  state.coreLog = [];
  state.seen = [];
  state.aheadMs = 0;
  state.paystack = await startFakePaystack();
  state.core = await startCore({
    funding: {
      providers: [
        createPaystackFunding({
          secretKey: state.paystack.secretKey,
          baseUrl: state.paystack.url,
          preferredBank: 'test-bank',
        }),
      ],
    },
    log: (event, fields) => state.coreLog.push(JSON.stringify({ event, ...fields })),
    clock: () => new Date(Date.now() + state.aheadMs),
  });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const created = await state.core.admin.createAccount({ name: 'Ikeja Data', tierId: DEFAULT_TIER_ID });
  state.accountId = created.account!.accountId;
  const { invitation } = await state.core
    .clientWithToken(UserAdminService, state.core.adminToken)
    .inviteUser({ accountId: state.accountId, email: OWNER.email, role: UserRole.OWNER });
  const context = await state.browser.newContext({ viewport: { width: 1280, height: 900 } });
  state.page = await context.newPage();
  state.page.on('response', (response) => {
    if (!(response.headers()['content-type'] ?? '').startsWith('text/html')) return;
    response.text().then(
      (body) => state.seen.push(body),
      () => {},
    );
  });
  // The first read of Paystack's bank list (the overview after sign-in reads the wallet's funding) fails.
  state.paystack.failNext('GET /bank');
  await acceptInvitation(state.page, state.dashboard.url, invitation!.inviteUrl, OWNER.password);
  await signIn(state.page, state.dashboard.url, OWNER.email, OWNER.password);
  await state.page.waitForURL(`${state.dashboard.url}/`);
});

test.after(async (state) => {
  if (!haveChromium) return;
  await closeAll(state.browser, state.dashboard, state.core);
  await state.paystack.stop();
});

async function fillIdentity(page: Page, bankCode: string, bankAccount: string): Promise<void> {
  await page.getByLabel('BVN or NIN').fill(BVN);
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Obi');
  await page.getByLabel('Phone number').fill('08031234567');
  await page.getByLabel('Email address').fill(OWNER.email);
  await page.getByLabel('Bank', { exact: true }).selectOption(bankCode);
  await page.getByLabel('Account number', { exact: true }).fill(bankAccount);
  await page.getByRole('button', { name: 'Get account numbers' }).click();
}

flow(
  'the owner gives a bank account linked to the BVN; Paystack validates it and the account appears',
  async (state) => {
    const { dashboard, page, paystack, core } = state;
    // Paystack's bank list could not be had (before): the code is typed, and it is not asked again at once.
    await page.goto(`${dashboard.url}/fund`);
    assert.match(await mainText(page), 'A bank account linked to the BVN');
    assert.is(await page.locator('input[name="bank_code"]').count(), 1);
    await page.reload();
    assert.is(paystack.bankListReads(), 0);
    assert.is(await page.locator('input[name="bank_code"]').count(), 1);
    // Five minutes later the list is read again (both pages), then kept.
    state.aheadMs = 6 * 60 * 1000;
    await page.reload();
    assert.is(paystack.bankListReads(), 2);
    await page.reload();
    assert.is(paystack.bankListReads(), 2, 'the list is kept, not read on every page');
    const offered = await page
      .locator('select[name="bank_code"] option')
      .evaluateAll((options) => options.map((o) => [(o as HTMLOptionElement).value, o.textContent]));
    assert.equal(offered, [
      ['', 'Choose the bank'],
      ['044', 'Access Bank'],
      ['063', 'Access Bank (Diamond)'],
      ['070', 'Fidelity Bank'],
      ['007', 'Test Bank'],
      ['058', 'Guaranty Trust Bank'],
    ]);

    // Nine digits: the error is beside the account number field, and nothing reaches Paystack.
    await fillIdentity(page, '007', '012345678');
    assert.match(
      (await page.textContent('#bank_account-error')) ?? '',
      'Account number must be a 10-digit account number',
    );
    assert.match((await page.textContent('.error-summary')) ?? '', 'Account number must be a 10-digit account number');
    assert.is(await page.getByLabel('Bank', { exact: true }).inputValue(), '007', 'the bank stays chosen');
    assert.is(await page.getByLabel('BVN or NIN').inputValue(), '', 'the BVN is not put back');
    state.seen.push(await page.content());
    await snap(page, 'fund-bank-account-error');

    // An account number without its bank code: the error is beside the bank code.
    await fillIdentity(page, '', '0123456789');
    assert.match(
      (await page.textContent('#bank_code-error')) ?? '',
      'Bank code must be given with the bank account number',
    );
    assert.is(paystack.identificationsAsked().length, 0);

    await fillIdentity(page, '007', '0123456789');
    await page.waitForURL(`${dashboard.url}/fund?done=pending`);
    assert.match(await mainText(page), 'the account number appears here when it answers');
    const code = paystack.customerCodes().at(-1)!;
    assert.equal(paystack.identificationBankAccount(code), { bankCode: '007', accountNumber: '0123456789' });

    // Paystack's signed answer, through the core's notification path.
    const success = paystack.identify(code, true);
    assert.is(
      await core.core.funding.applyNotification('paystack', Buffer.from(success.body), success.signature),
      'account_event',
    );
    await page.goto(`${dashboard.url}/fund`);
    const opened = await mainText(page);
    assert.match(opened, 'Test Bank');
    assert.match(opened, 'BVN ending 9012');
    assert.is(await page.locator('input[name="bank_code"]').count(), 0, 'no identity form once accounts exist');
    const accountNumber = ((await page.locator('#account-number-0').textContent()) ?? '').trim();
    assert.match(accountNumber, /^\d{10}$/);
    await snap(page, 'fund-bank-account-opened');

    const transfer = paystack.transfer(accountNumber, 450_000, 'ref_web_bank_account');
    assert.is(
      await core.core.funding.applyNotification('paystack', Buffer.from(transfer.body), transfer.signature),
      'credited',
    );
    await page.reload();
    assert.match(await mainText(page), 'ref_web_bank_account');
    state.seen.push(await page.content());
    assert.is((await core.admin.getAccount({ accountId: state.accountId })).account!.balanceKobo, 450_000n);
    await assertLedgerInvariant(core, state.accountId);
    assert.is((await core.admin.checkLedger({})).violationCount, 0n);
  },
);

flow('test mode, served by the sandbox only, asks for no bank account', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/test/fund`);
  assert.ok((await page.locator('input[name="number"]').count()) > 0);
  assert.is(await page.locator('input[name="bank_code"]').count(), 0);
  assert.is(await page.locator('input[name="bank_account"]').count(), 0);
});

flow('the BVN is in no page and no log line', async (state) => {
  assert.ok(state.seen.length > 3);
  for (const body of state.seen) assert.not.ok(body.includes(BVN), 'a page showed the BVN');
  assert.not.ok(
    state.coreLog.some((line) => line.includes(BVN)),
    'the core logged the BVN',
  );
  assert.not.ok(
    state.dashboard.logged.some((line) => JSON.stringify(line).includes(BVN)),
    'the dashboard logged the BVN',
  );
});

test.run();
