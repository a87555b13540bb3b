/**
 * The console's accounts list, an account's changes, the transactions desk and a purchase's
 * page, over real gRPC against a real core on port 0: each list bounded and paged, each change
 * refused in the core to a role without its power and audited with the member, a proposal
 * showing the money it moves, and the queue and audit log naming the accounts they show.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { UserRole } from '../../../gen/prepaid/v1/holder_pb.js';
import { Product } from '../../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { consoleClients, signedInStaff, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const test = suite('console rpc: accounts list, account changes, transactions desk');
const clock = new TestClock();
const at = '198.51.100.7';
let core: TestCore;

test.before(async () => {
  core = await startCore({ clock: clock.now });
});
test.after(async () => {
  await core.close();
});

test('the accounts list is newest first, filters by tier and balance, sorts by name, pages, and bounds its size', async () => {
  const { console } = consoleClients(core);
  const sade = await signedInStaff(core, clock, 'support');
  const who = { sessionToken: sade.token, clientAddress: at };
  const made: string[] = [];
  for (const [name, balanceKobo] of [
    ['Kemi Airtime Hub', 0],
    ['Ade Data Ventures', 2_000_00],
    ['Bisi Cable Store', 7_000_00],
  ] as const) {
    clock.advance(1_000);
    made.push((await core.createApiAccount({ name, balanceKobo })).accountId);
  }
  const newest = await console.listAccounts({ ...who, pageSize: 2 });
  assert.equal(
    newest.accounts.map((a) => a.accountId),
    [made[2], made[1]],
  );
  assert.ok(newest.nextPageToken !== '');
  const rest = await console.listAccounts({ ...who, pageSize: 2, pageToken: newest.nextPageToken });
  assert.is(rest.accounts[0]!.accountId, made[0]);
  const rich = await console.listAccounts({ ...who, balanceMinKobo: 1_000_00n, balanceMaxKobo: 5_000_00n });
  assert.equal(
    rich.accounts.map((a) => a.accountId),
    [made[1]],
  );
  const byName = await console.listAccounts({ ...who, sort: 'name', tierId: 'api' });
  const names = byName.accounts.map((a) => a.name);
  assert.equal(names, [...names].sort());
  assert.ok(names.includes('Ade Data Ventures'));
  const future = await console.listAccounts({
    ...who,
    createdFrom: timestampFromDate(new Date(clock.ms + 86_400_000)),
  });
  assert.equal(future.accounts, []);
  for (const bad of [{ pageSize: 201 }, { sort: 'size' }, { suspended: 'maybe' }, { pageToken: 'forged' }]) {
    assert.is(
      (await rejection(console.listAccounts({ ...who, ...bad }))).code,
      Code.InvalidArgument,
      JSON.stringify(bad),
    );
  }
});

test('an account is made, its owner invited and reset, its tier changed and a key revoked, each by the roles allowed', async () => {
  const { console, staffAdmin } = consoleClients(core);
  const ada = await signedInStaff(core, clock, 'admin', 'ada@ops.example.ng');
  const sade = await signedInStaff(core, clock, 'support', 'sade@ops.example.ng');
  const bola = await signedInStaff(core, clock, 'finance', 'bola@ops.example.ng');
  const as = (m: { token: string }) => ({ sessionToken: m.token, clientAddress: at });
  const create = { case: 'createAccount' as const, value: { name: 'Chidi Telecoms', tierId: '' } };

  // Support and finance may not make an account; the core refuses whatever a page showed.
  for (const member of [sade, bola]) {
    const refused = await rejection(console.manageAccount({ ...as(member), change: create }));
    assert.is(refused.code, Code.PermissionDenied);
  }
  const bad = await rejection(
    console.manageAccount({ ...as(ada), change: { case: 'createAccount', value: { name: '', tierId: '' } } }),
  );
  assert.is(bad.code, Code.InvalidArgument);
  const { accountId } = await console.manageAccount({ ...as(ada), change: create });
  assert.match(accountId, /^acc_/);

  // Finance moves money, not people: an invitation is support's or an admin's.
  const invite = {
    case: 'inviteUser' as const,
    value: { accountId, email: 'chidi@chiditel.ng', role: UserRole.OWNER },
  };
  assert.is(
    (await rejection(console.manageAccount({ ...as(bola), accountId, change: invite }))).code,
    Code.PermissionDenied,
  );
  const invited = await console.manageAccount({ ...as(sade), accountId, change: invite });
  assert.match(invited.link, /^http.*invit/);

  // A user of another account is not this page's to reset.
  const other = await core.createApiAccount({ name: 'Other Ltd' });
  const stranger = await rejection(
    console.manageAccount({
      ...as(sade),
      accountId,
      change: { case: 'resetTwoStep', value: { userId: 'usr_nobody' } },
    }),
  );
  assert.is(stranger.code, Code.NotFound);

  // The tier and a key: an admin's.
  const tier = { case: 'setTier' as const, value: { accountId, tierId: 'api' } };
  assert.is(
    (await rejection(console.manageAccount({ ...as(sade), accountId, change: tier }))).code,
    Code.PermissionDenied,
  );
  await console.manageAccount({ ...as(ada), accountId, change: tier });
  assert.is((await core.admin.getAccount({ accountId })).account!.tierId, 'api');
  // Staff never see a secret: moving to an API tier issued no key pair to them.
  assert.equal((await core.admin.listApiKeys({ accountId })).keys, []);
  const revokeOther = { case: 'revokeKey' as const, value: { publicKey: other.publicKey } };
  assert.is(
    (await rejection(console.manageAccount({ ...as(ada), accountId, change: revokeOther }))).code,
    Code.NotFound,
  );
  await console.manageAccount({ ...as(ada), accountId: other.accountId, change: revokeOther });
  assert.ok((await core.admin.listApiKeys({ accountId: other.accountId })).keys.every((k) => k.revoked));

  // Each change is audited with the member, and the log names the account.
  const { entries, accountNames } = await console.listAuditEntries({ ...as(ada), filter: { target: accountId } });
  const actions = entries.map((e) => `${e.actor} ${e.action}`);
  assert.ok(actions.includes('staff:ada@ops.example.ng account.create'), actions.join());
  assert.ok(actions.includes('staff:sade@ops.example.ng users.invite'), actions.join());
  assert.ok(actions.includes('staff:ada@ops.example.ng account.set_tier'), actions.join());
  assert.is(accountNames[accountId], 'Chidi Telecoms');
  const keyRows = await staffAdmin.listAudit({ filter: { target: other.publicKey } });
  assert.is(keyRows.entries[0]!.action, 'key.revoke');
  assert.is(keyRows.entries[0]!.actor, 'staff:ada@ops.example.ng');
});

test('the desk finds a purchase by recipient in a bounded range, and its page shows its events and a refund proposal', async () => {
  const { console } = consoleClients(core);
  const sade = await signedInStaff(core, clock, 'support');
  const bola = await signedInStaff(core, clock, 'finance');
  const as = (m: { token: string }) => ({ sessionToken: m.token, clientAddress: at });
  const { accountId } = await core.createApiAccount({ name: 'Funmi Gadgets', balanceKobo: 5_000_00 });
  const bought = await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08035550123',
    amountKobo: 200_00n,
  });
  const tx = bought.transaction!;
  const range = {
    createdFrom: timestampFromDate(new Date(clock.ms - 3_600_000)),
    createdBefore: timestampFromDate(new Date(clock.ms + 3_600_000)),
  };
  const found = await console.searchTransactions({ ...as(sade), ...range, recipient: '08035550123' });
  assert.equal(
    found.transactions.map((t) => t.reference),
    [tx.reference],
  );
  assert.is(found.accountNames[accountId], 'Funmi Gadgets');
  const airtime = await console.searchTransactions({ ...as(sade), ...range, accountId, product: Product.AIRTIME });
  assert.is(airtime.transactions.length, 1);
  const nowhere = await console.searchTransactions({ ...as(sade), ...range, upstream: 'no-such-upstream' });
  assert.equal(nowhere.transactions, []);
  // A reference needs no range; a search without one, or longer than 31 days, is refused.
  const byRef = await console.searchTransactions({ ...as(sade), reference: tx.reference });
  assert.is(byRef.transactions[0]!.reference, tx.reference);
  assert.is(
    (await rejection(console.searchTransactions({ ...as(sade), recipient: '08035550123' }))).code,
    Code.InvalidArgument,
  );
  const long = {
    createdFrom: timestampFromDate(new Date(clock.ms - 40 * 86_400_000)),
    createdBefore: timestampFromDate(new Date(clock.ms)),
  };
  assert.is((await rejection(console.searchTransactions({ ...as(sade), ...long }))).code, Code.InvalidArgument);

  // Support may not propose a refund of a delivered purchase; finance may, and it shows what it moves.
  const refund = { kind: 'refund', target: tx.reference, note: 'Customer never got it' };
  assert.is((await rejection(console.proposeMoneyMove({ ...as(sade), ...refund }))).code, Code.PermissionDenied);
  const { proposal } = await console.proposeMoneyMove({ ...as(bola), ...refund });
  const detail = await console.getTransactionDetail({ ...as(sade), reference: tx.reference });
  assert.is(detail.accountName, 'Funmi Gadgets');
  assert.ok(
    detail.events.some((e) => e.type === 'transaction.success'),
    `${tx.status} ${detail.events.map((e) => e.type).join()}`,
  );
  assert.is(detail.proposals[0]!.proposalId, proposal!.proposalId);
  assert.is(String(detail.proposals[0]!.movesKobo), String(tx.chargedKobo));
  const queue = await console.getAttention(as(sade));
  const queued = queue.proposals.find((p) => p.proposalId === proposal!.proposalId)!;
  assert.is(String(queued.movesKobo), String(tx.chargedKobo));
  assert.is(queued.accountName, 'Funmi Gadgets');
  assert.is(queue.accountNames[accountId], 'Funmi Gadgets');
  const missing = await rejection(console.getTransactionDetail({ ...as(sade), reference: 'PPS-nothing' }));
  assert.is(missing.code, Code.NotFound);
});

test.run();
