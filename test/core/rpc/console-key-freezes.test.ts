/**
 * Frozen keys in the console, over the real ConsoleService: a key frozen by the operator is in
 * the attention queue with its reason; support unfreezes it with a note (audited with the
 * member's name), after which the queue no longer has it and the key passes its check again.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../../helpers/core.js';
import { consoleClients, signedInStaff, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const clock = new TestClock();
const test = suite<{ core: TestCore }>('console: frozen keys');

test.before(async (ctx) => {
  ctx.core = await startCore({ clock: clock.now });
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test('a frozen key waits in the queue; support unfreezes it with a note, and it works again', async ({ core }) => {
  const { console } = consoleClients(core);
  const support = await signedInStaff(core, clock, 'support');
  const { accountId, publicKey, secretKey } = await core.createApiAccount();
  await core.admin.freezeApiKey({ publicKey, reason: 'spent ₦900,000 in 10 minutes' });

  const queue = await console.getAttention({ sessionToken: support.token, clientAddress: '127.0.0.1' });
  const item = queue.frozenKeys.find((k) => k.publicKey === publicKey);
  assert.equal(
    [item?.accountId, item?.mode, item?.reason, item?.frozenBy],
    [accountId, 'live', 'spent ₦900,000 in 10 minutes', 'cli'],
  );

  const noNote = await rejection(
    console.unfreezeKey({ sessionToken: support.token, clientAddress: '127.0.0.1', publicKey, note: ' ' }),
  );
  assert.is(noNote.code, Code.InvalidArgument);
  const { key } = await console.unfreezeKey({
    sessionToken: support.token,
    clientAddress: '127.0.0.1',
    publicKey,
    note: 'the owner confirmed the orders by phone',
  });
  assert.equal([key?.publicKey, key?.frozenAt], [publicKey, undefined]);
  const after = await console.getAttention({ sessionToken: support.token, clientAddress: '127.0.0.1' });
  assert.not.ok(after.frozenKeys.some((k) => k.publicKey === publicKey));
  await core.auth.verifyKeyPair({ publicKey, secretKey, clientIp: '203.0.113.7' });
  const again = await rejection(
    console.unfreezeKey({ sessionToken: support.token, clientAddress: '127.0.0.1', publicKey, note: 'twice' }),
  );
  assert.is(again.code, Code.FailedPrecondition, 'a key that is not frozen is refused');
  const rows = await core.store.auditLog.list({ target: publicKey, action: 'key.unfreeze', limit: 5 });
  assert.equal(
    rows.map((r) => [r.actor, r.address, r.note]),
    [[`staff:${support.email}`, '127.0.0.1', 'the owner confirmed the orders by phone']],
  );
});

test.run();
