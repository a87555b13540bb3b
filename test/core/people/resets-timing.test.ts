/**
 * Asking for a password reset tells nothing by its time (core/people/resets.ts): the answer
 * for an email that has a person is given as fast as for one that has none, because the
 * lookup, the link's write and the mail happen on a later turn for every email alike. Done
 * before the answer, the link's write synced the disk first: a known email was answered
 * in about twice the time (24 ms against 13 on this machine's test store).
 *
 * The one timed comparison of the suite: the medians of 50 requests each, interleaved so that
 * the machine's load falls on both alike, compared with a generous bound.
 */
import { performance } from 'node:perf_hooks';
import * as assert from 'uvu/assert';
import { parseSmtpUrl } from '../../../core/mail/smtp.js';
import { HolderService, UserAdminService, UserRole } from '../../../gen/prepaid/v1/holder_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { type SmtpReceiver, startSmtpReceiver } from '../../helpers/smtp.js';
import { TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';

const test = suite<{ smtp: SmtpReceiver; core: TestCore; clock: TestClock }>('password resets: timing', {} as never);

test.before(async (context) => {
  context.smtp = await startSmtpReceiver();
  const server = parseSmtpUrl(context.smtp.url);
  if ('problem' in server) throw new Error(server.problem);
  context.clock = new TestClock();
  context.core = await startCore({
    clock: context.clock.now,
    dashboardPublicUrl: 'https://dash.example.ng',
    mail: { server, from: 'Prepaid <no-reply@prepaid.example.ng>' },
  });
});
test.after(async ({ core, smtp }) => {
  await core?.close();
  await smtp?.close();
});

const REQUESTS = 50;
/** How far apart the two medians may be, as a share of the smaller: far more than noise, less than the leak. */
const MAX_RATIO = 1.3;
/** ...or this much, on a machine so quiet that a few tenths of a millisecond are a large share. */
const SLACK_MS = 2;

const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;

test('an email with a person is answered as fast as one without; the person still gets the link', async ({
  core,
  smtp,
  clock,
}) => {
  const userAdmin = core.clientWithToken(UserAdminService, core.adminToken);
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  const { accountId } = await core.createApiAccount({ name: 'Kano Top-up Ltd' });
  await userAdmin.inviteUser({ accountId, email: 'ada@example.ng', role: UserRole.OWNER });
  const invitation = /\/invite\/([A-Za-z0-9_-]{43})/.exec((await smtp.next('ada@example.ng')).text)![1]!;
  await holder.acceptInvitation({ invitationToken: invitation, password: 'a long enough password' });

  const timed = async (email: string, clientIp: string): Promise<number> => {
    const started = performance.now();
    const answer = await holder.requestPasswordReset({ email, clientIp });
    const ms = performance.now() - started;
    assert.equal([answer.mailConfigured, answer.retryAfterSeconds], [true, 0], 'answered, not throttled');
    return ms;
  };
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    // An hour on, so that the throttle (three links an hour for one email) never answers instead.
    clock.advance(3_600_001);
    known.push(await timed('ada@example.ng', `10.9.${i}.1`));
    unknown.push(await timed(`nobody${i}@example.ng`, `10.8.${i}.1`));
  }
  const [fast, slow] = [median(known), median(unknown)].sort((a, b) => a - b) as [number, number];
  assert.ok(
    slow <= fast * MAX_RATIO + SLACK_MS,
    `medians: known ${median(known).toFixed(1)} ms, unknown ${median(unknown).toFixed(1)} ms`,
  );
  // The links were still made and mailed, after the answers.
  const mail = await smtp.next('ada@example.ng');
  assert.match(mail.text, /https:\/\/dash\.example\.ng\/reset\/[A-Za-z0-9_-]{43}/);
  assert.is(smtp.mails.filter((one) => one.to.startsWith('nobody')).length, 0, 'nothing mailed to nobody');
});

test.run();
