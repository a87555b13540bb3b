/**
 * The console's checks (docs/console.md) not covered elsewhere, over real gRPC: the staff sign-in throttle per
 * person (guesses spread over many networks still stop), and the account search by a public
 * key and by a virtual account number (an id, an email and a transaction reference are in
 * test/console/console-browser.test.ts).
 */
import * as assert from 'uvu/assert';
import { StaffSignInOutcome } from '../../../gen/prepaid/v1/console_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { consoleClients, STAFF_PASSWORD, signedInStaff, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';

const test = suite('console rpc: throttle per person, search by key and account number');
const clock = new TestClock();
let core: TestCore;

test.before(async () => {
  core = await startCore({ clock: clock.now });
});
test.after(async () => {
  await core.close();
});

test('guesses at one person from a new network each time are throttled, even with the right password', async () => {
  const member = await signedInStaff(core, clock, 'finance', 'adaeze@ops.example.ng');
  const { console } = consoleClients(core);
  // The member's next code, taken now: the clock then stands still through the guesses.
  const code = clock.nextCode(member.secret);
  const outcomes: StaffSignInOutcome[] = [];
  for (let i = 0; i < 14; i++) {
    const answer = await console.staffSignIn({
      email: member.email,
      password: 'not the password at all',
      totpCode: '123456',
      // Each guess from its own /64 (and its own IPv4 address below): no address budget runs out.
      clientAddress: i % 2 === 0 ? `2001:db8:${i + 10}::1` : `203.0.113.${i + 10}`,
    });
    outcomes.push(answer.outcome);
  }
  assert.is(outcomes.at(-1), StaffSignInOutcome.THROTTLED, outcomes.join(','));
  const right = await console.staffSignIn({
    email: member.email,
    password: STAFF_PASSWORD,
    totpCode: code,
    clientAddress: '2001:db8:99::1',
  });
  assert.is(right.outcome, StaffSignInOutcome.THROTTLED, 'the person is throttled wherever they come from');
  // Another person is not.
  const other = await signedInStaff(core, clock, 'support');
  assert.ok(other.token.length > 0);
});

test('search finds an account by its public key or its start, its virtual account number; no near miss', async () => {
  const staff = await signedInStaff(core, clock, 'support');
  const { console } = consoleClients(core);
  const { accountId, publicKey } = await core.createApiAccount({ name: 'Search By Key Ltd' });
  await core.store.funding.saveVirtualAccount({
    provider: 'paystack',
    accountNumber: '9912345678',
    accountId,
    mode: 'live',
    bankName: 'Wema Bank',
    bankCode: '035',
    accountName: 'PREPAID/SEARCH BY KEY',
    providerCustomerRef: 'CUS_search',
    status: 'active',
    kycKind: 'bvn',
    kycLast4: '4321',
    kycHash: 'a'.repeat(64),
    createdAt: clock.now(),
  });
  const search = async (query: string) =>
    (await console.searchAccounts({ sessionToken: staff.token, clientAddress: '127.0.0.1', query })).accounts.map(
      (a) => a.accountId,
    );
  assert.equal(await search(publicKey), [accountId]);
  assert.equal(await search(' 9912345678 '), [accountId]);
  assert.equal(await search('9912345679'), []);
  // The start of a key, as a holder reads it out: `pk_` and at least four characters.
  assert.equal(await search(publicKey.slice(0, 10)), [accountId]);
  const last = publicKey.at(-1) === '0' ? '1' : '0';
  assert.equal(await search(publicKey.slice(0, -1) + last), [], 'a near miss finds nothing');
  assert.equal(await search(publicKey.slice(0, 6)), [], 'pk_ and three characters are too short a start');
});

test.run();
