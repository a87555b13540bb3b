/**
 * No answer of the core shows a write the disk does not hold yet: the embedded store commits
 * its money operations before their fsync, which runs off the event loop
 * (core/store/sqlite/group-commit.ts), so every RPC answer, an error included, waits for
 * Store.settled() (core/rpc/grpc.ts). Here settled() is held by the test: the answer waits
 * for it, and a store that can no longer sync answers nothing but an error.
 */
import * as assert from 'uvu/assert';
import { SyncFailed } from '../../../core/store/sqlite/group-commit.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { settledAfter } from '../../helpers/pending.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

let core!: TestCore;
const test = suite('answers wait for the disk');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

/** Replaces the store's settled() until `restore`; each call gets the promise `next()` makes. */
function holdSettled(next: () => Promise<void>): () => void {
  const original = core.store.settled;
  core.store.settled = next;
  return () => {
    core.store.settled = original;
  };
}

test('the real store: a purchase is answered, and settled() resolves once its sync is done', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_000 });
  await core.store.settled();
  const balance = await core.purchase.getBalance({ accountId });
  assert.is(balance.balanceKobo, 100_000n);
});

test('an answer waits for settled(), then goes out', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 5_000 });
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const restore = holdSettled(() => held);
  try {
    const call = core.purchase.getBalance({ accountId });
    assert.not.ok(await settledAfter(call, 10, 10), 'no answer while the store has not settled');
    release();
    assert.is((await call).balanceKobo, 5_000n);
  } finally {
    restore();
  }
});

test('an error answer waits too; a store whose sync failed answers an error', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const restore = holdSettled(() => held);
  try {
    const refused = core.purchase.getBalance({ accountId: 'acct_missing' });
    assert.not.ok(await settledAfter(refused, 10, 10), 'the refusal waits as well');
    release();
    assert.ok((await rejection(refused)).code > 0);
  } finally {
    restore();
  }
  const { accountId } = await core.createApiAccount({ balanceKobo: 5_000 });
  const again = holdSettled(() => Promise.reject(new SyncFailed(new Error('EIO'))));
  try {
    const failed = await rejection(core.purchase.getBalance({ accountId }));
    assert.not.match(failed.message, /5000|50\.00/, 'the balance read is not shown');
    assert.ok(failed.code > 0);
  } finally {
    again();
  }
});

test.run();
