/**
 * Signing up over the core's gRPC, against a real core, store and SMTP receiver: the same
 * answer for a known and a new email (by the answer, and by its time: the medians of 50 each),
 * no second account for one email, the day's bound of unverified accounts per address (the
 * 21st refused, the bound read from the core's configuration), the email link and the phone
 * code, live money refused until both are proven, and SIGNUP=invite keeping today's behaviour.
 */
import { ConnectError } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { DEFAULT_TIER_ID } from '../../../core/catalog/defaults.js';
import { readCoreConfig } from '../../../core/config.js';
import { lagosDate, lagosDay } from '../../../core/domain/people.js';
import { parseSmtpUrl } from '../../../core/mail/smtp.js';
import { createReports } from '../../../core/reports/service.js';
import { HolderService, SignInOutcome, SignUpOutcome } from '../../../gen/prepaid/v1/holder_pb.js';
import { KycAdminService, KycService } from '../../../gen/prepaid/v1/kyc_pb.js';
import { ShopService } from '../../../gen/prepaid/v1/shop_pb.js';
import { Mode } from '../../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { type SmtpReceiver, startSmtpReceiver } from '../../helpers/smtp.js';
import { suite } from '../../helpers/suite.js';

const PASSWORD = 'a long enough password';
const FORM = { name: 'Ade Data Hub', phone: '0803 123 4567', password: PASSWORD };

interface State {
  smtp: SmtpReceiver;
  core: TestCore;
  clockOffsetMs: number;
}

const test = suite<State>('people: sign-up over the core', {} as State);

/** The bound as the core reads it from its environment: the default unless SIGNUP_PER_ADDRESS_DAY is set. */
const config = readCoreConfig({ DATA_DIR: '/tmp/prepaid-sign-up-test', SIGNUP: 'open' });

test.before(async (state) => {
  state.clockOffsetMs = 0;
  state.smtp = await startSmtpReceiver();
  const server = parseSmtpUrl(state.smtp.url);
  if ('problem' in server) throw new Error(server.problem);
  state.core = await startCore({
    clock: () => new Date(Date.now() + state.clockOffsetMs),
    mail: { server, from: 'no-reply@prepaid.example.ng' },
    signUp: config.signUp,
  });
});
test.after(async (state) => {
  await state.core.close();
  await state.smtp.close();
});

const holderOf = (core: TestCore) => core.clientWithToken(HolderService, core.serviceToken);

async function refusal(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ConnectError) return error;
    throw error;
  }
  throw new Error('the call was not refused');
}

function emailToken(text: string): string {
  const found = /\/verify\/email\/([A-Za-z0-9_-]{43})/.exec(text);
  assert.ok(found, 'the mail carries the link');
  return found![1]!;
}

test('SIGNUP defaults to invite, and npm start is what opens it', () => {
  assert.is(readCoreConfig({ DATA_DIR: '/tmp/prepaid-sign-up-test' }).signUp.mode, 'invite');
  assert.is(config.signUp.perAddressPerDay, 20, 'the default bound');
  assert.is(readCoreConfig({ DATA_DIR: '/tmp/x', SIGNUP_PER_ADDRESS_DAY: '3' }).signUp.perAddressPerDay, 3);
});

test('a sign-up: the link proves the email, the SMS code the phone, and only then is live money open', async ({
  core,
  smtp,
}) => {
  const holder = holderOf(core);
  const email = 'ade@example.ng';
  const answer = await holder.signUp({ ...FORM, email, clientIp: '198.51.100.7' });
  assert.is(answer.outcome, SignUpOutcome.ACCEPTED);
  const token = emailToken((await smtp.next(email, 'Verify your email')).text);

  const signedIn = await holder.signIn({ email, password: PASSWORD, clientIp: '198.51.100.7' });
  assert.is(signedIn.outcome, SignInOutcome.SIGNED_IN, 'the password works at once');
  const session = signedIn.sessionToken;
  const accountId = signedIn.session!.user!.accountId;
  const account = await core.store.accounts.get(accountId);
  assert.is(account!.tierId, DEFAULT_TIER_ID, 'the default tier, not the API');
  assert.is(account!.emailVerifiedAt, null);
  assert.is((await core.store.signUps.get(accountId))!.phone, '08031234567', 'the phone kept in one form');

  // The test world is open at once; live money is not.
  const shop = core.clientWithToken(ShopService, core.serviceToken);
  await holder.addTestFunds({ sessionToken: session, amountKobo: 100_000n, reference: 'try-funds-1' });
  const order = { network: 'mtn', phone: '08031112222', amountKobo: 10_000n };
  const testBuy = await shop.buyAirtime({
    sessionToken: session,
    order: { ...order, requestId: 'test-buy-1', mode: Mode.TEST },
  });
  assert.is(testBuy.transaction!.status, 2, 'delivered in the test world');
  const live = await refusal(shop.buyAirtime({ sessionToken: session, order: { ...order, requestId: 'live-buy-1' } }));
  assert.is(live.code, 7, 'PERMISSION_DENIED');
  assert.match(live.rawMessage, 'Verify your email address and your phone number first');

  const proven = await holder.verifyEmail({ emailToken: token });
  assert.is(proven.accountId, accountId);
  assert.is(proven.liveAllowed, false, 'the phone is still to prove');
  const again = await refusal(holder.verifyEmail({ emailToken: token }));
  assert.is(again.code, 5, 'the link works once');

  const sent = await holder.sendPhoneCode({ sessionToken: session });
  assert.is(sent.phoneMasked, '0803****567');
  const sms = core.sandbox.outbox.find((one) => one.reference === `signup-${accountId}`);
  assert.ok(sms, 'the code went out on the SMS route');
  assert.is(sms!.to, '08031234567');
  const code = /(\d{6})/.exec(sms!.text)![1]!;
  const wrong = await refusal(
    holder.confirmPhoneCode({ sessionToken: session, code: code === '000000' ? '111111' : '000000' }),
  );
  assert.match(wrong.rawMessage, '4 tries left');
  const resend = await refusal(holder.sendPhoneCode({ sessionToken: session }));
  assert.match(resend.rawMessage, 'ask for another in', 'a new code waits a minute');
  assert.is((await holder.confirmPhoneCode({ sessionToken: session, code })).liveAllowed, true);
  const state = await holder.getVerification({ sessionToken: session });
  assert.equal([state.emailVerified, state.phoneVerified, state.liveAllowed], [true, true, true]);

  // Live now: refused for the empty wallet, no longer for the proofs.
  const poor = await refusal(shop.buyAirtime({ sessionToken: session, order: { ...order, requestId: 'live-buy-2' } }));
  assert.match(poor.rawMessage, 'balance');
});

test('a known email gets the same answer, no second account, and a mail saying someone tried', async ({
  core,
  smtp,
}) => {
  const holder = holderOf(core);
  const email = 'ada-twice@example.ng';
  const first = await holder.signUp({ ...FORM, email, clientIp: '198.51.100.8' });
  await smtp.next(email, 'Verify your email');
  const second = await holder.signUp({ ...FORM, name: 'Another name', email, clientIp: '198.51.100.8' });
  assert.equal(second, first, 'the same answer');
  const mail = await smtp.next(email, 'Someone tried to sign up with your email');
  assert.match(mail.text, 'Nothing was created');
  const user = await core.store.people.findUserByEmail(email);
  assert.is((await core.store.people.listMemberships(user!.userId)).length, 1, 'no second account');
});

test('every field is checked, each with its own sentence', async ({ core }) => {
  const holder = holderOf(core);
  const bad = await refusal(
    holder.signUp({
      name: 'Ade\u0007Stores',
      email: `${'a'.repeat(250)}@example.ng`,
      phone: '0123',
      password: 'short',
      clientIp: '198.51.100.9',
    }),
  );
  assert.is(bad.code, 3, 'INVALID_ARGUMENT');
  const text = bad.rawMessage;
  assert.match(text, '4 parameters are invalid: name, email, phone, password');
  for (const phone of ['08031234567', '+2348031234567', '2348031234567', '0907 123 4567']) {
    const ok = await holder.signUp({
      ...FORM,
      phone,
      email: `p${phone.replace(/\D/g, '')}@example.ng`,
      clientIp: '198.51.100.10',
    });
    assert.is(ok.outcome, SignUpOutcome.ACCEPTED, phone);
  }
  for (const phone of ['07031234', '+2345031234567', '1803123456']) {
    const refused = await refusal(holder.signUp({ ...FORM, phone, email: 'x@example.ng', clientIp: '198.51.100.10' }));
    assert.match(refused.rawMessage, 'Nigerian mobile number', phone);
  }
});

test('one address signs up at most the configured number of unverified accounts a day: the 21st is refused', async ({
  core,
}) => {
  const holder = holderOf(core);
  const bound = config.signUp.perAddressPerDay;
  // One IPv6 /64: every address in it spends the same budget.
  const address = (i: number) => `2001:db8:5:7::${(i + 1).toString(16)}`;
  for (let i = 0; i < bound; i++) {
    const answer = await holder.signUp({ ...FORM, email: `bulk${i}@example.com`, clientIp: address(i) });
    assert.is(answer.outcome, SignUpOutcome.ACCEPTED, `sign-up ${i + 1}`);
  }
  const over = await holder.signUp({ ...FORM, email: 'bulk-over@example.com', clientIp: address(bound) });
  assert.is(over.outcome, SignUpOutcome.THROTTLED, `sign-up ${bound + 1}`);
  assert.ok(over.retryAfterSeconds > 0 && over.retryAfterSeconds <= 86_400, 'until the next Lagos day');
  const elsewhere = await holder.signUp({ ...FORM, email: 'bulk-else@example.com', clientIp: '2001:db8:5:8::1' });
  assert.is(elsewhere.outcome, SignUpOutcome.ACCEPTED, 'another /64 has its own budget');
});

test('a known and a new email are answered in the same time (medians of 50 each)', async ({ core }) => {
  const holder = holderOf(core);
  const times = { known: [] as number[], fresh: [] as number[] };
  // Each try from an address of its own, so that no budget is reached; the two kinds alternate.
  for (let i = 0; i < 50; i++) {
    for (const kind of ['known', 'fresh'] as const) {
      const email = kind === 'known' ? 'ade@example.ng' : `timing${i}@example.org`;
      const started = process.hrtime.bigint();
      const answer = await holder.signUp({ ...FORM, email, clientIp: `203.0.113.${i}` });
      times[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
      assert.is(answer.outcome, SignUpOutcome.ACCEPTED);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const known = median(times.known);
  const fresh = median(times.fresh);
  // Generous: the point is that neither kind takes a store write or a scrypt hash longer than the other.
  assert.ok(Math.max(known, fresh) <= 2 * Math.min(known, fresh) + 2, `known ${known} ms, new ${fresh} ms`);
});

test("the operator's funnel counts each day's sign-ups and how far they came", async ({ core }) => {
  const day = lagosDay(new Date());
  const ask = { from: lagosDate(day), to: lagosDate(day), by: '', group: '' };
  const reports = createReports(core.store);
  // The accounts are made after the answers, one scrypt hash at a time: wait until the bulk ones are in.
  let today = (await reports.signUps(ask)).days[0];
  for (let waited = 0; (today?.signedUp ?? 0) < 22 && waited < 30_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    today = (await reports.signUps(ask)).days[0];
  }
  assert.ok(today!.signedUp >= 22, `the accounts signed up today: ${JSON.stringify(today)}`);
  assert.is(today!.emailVerified, 1, 'one proved its email');
  assert.is(today!.phoneVerified, 1, 'and its phone');
  assert.is(today!.funded, 0, 'none was funded live');
  assert.is(today!.level2, 0, 'every sign-up starts at level 1');
  assert.is(today!.apiTier, 0);
  // The proven one raised to level 2 by the operator: the funnel's level-2 step counts it.
  const proven = await holderOf(core).signIn({ email: 'ade@example.ng', password: PASSWORD, clientIp: '198.51.100.7' });
  const accountId = proven.session!.user!.accountId;
  const kyc = core.clientWithToken(KycService, core.serviceToken);
  await kyc.requestLevel({ sessionToken: proven.sessionToken, kind: 'nin', number: '12345678901' });
  assert.is((await reports.signUps(ask)).pendingReviews, 1, 'its request waits for staff');
  const kycAdmin = core.clientWithToken(KycAdminService, core.adminToken);
  await kycAdmin.approveLevel({ accountId, level: 2, note: 'NIN seen' });
  const after = await reports.signUps(ask);
  assert.is(after.days[0]!.level2, 1);
  assert.is(after.total.level2, 1);
  assert.is(after.pendingReviews, 0, 'its request was approved with the raise');
});

test('SIGNUP=invite: no sign-up, and the form says so', async () => {
  const core = await startCore();
  try {
    const holder = holderOf(core);
    assert.is((await holder.getSignUpForm({})).open, false);
    const answer = await holder.signUp({ ...FORM, email: 'nobody@example.ng', clientIp: '198.51.100.11' });
    assert.is(answer.outcome, SignUpOutcome.CLOSED);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.is(await core.store.people.findUserByEmail('nobody@example.ng'), null, 'nothing was made');
  } finally {
    await core.close();
  }
});

test('accounts the operator makes are verified when made: live money is open to them as before', async ({ core }) => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 50_000 });
  const account = await core.store.accounts.get(accountId);
  assert.ok(account!.emailVerifiedAt !== null && account!.phoneVerifiedAt !== null);
});

test.run();
