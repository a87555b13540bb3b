/**
 * `prepaid keys freeze PUBLIC_KEY --reason TEXT` and `prepaid keys unfreeze PUBLIC_KEY`: a key
 * frozen by hand is KEY_FROZEN at the key check and shows as frozen in `keys list`; unfrozen,
 * it works again; a freeze without a reason is refused before anything changes.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore }>('prepaid keys freeze and unfreeze');

test.before(async (ctx) => {
  ctx.core = await startCore();
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test('a key frozen by hand is refused at the key check until it is unfrozen; both are audited', async ({ core }) => {
  const { accountId, publicKey, secretKey } = await core.createApiAccount();
  const check = () => core.auth.verifyKeyPair({ publicKey, secretKey, clientIp: '203.0.113.7' });

  const noReason = await runAgainst(core, ['keys', 'freeze', publicKey]);
  assert.is.not(noReason.code, 0);
  assert.match(noReason.stderr, /--reason/);
  await check();

  const frozen = await runJson(core, ['keys', 'freeze', publicKey, '--reason', 'server compromised']);
  assert.is(frozen.code, 0, frozen.stderr);
  assert.is(frozen.json['frozen_reason'], 'server compromised');
  assert.type(frozen.json['frozen_at'], 'string');
  const refused = await check().then(
    () => null,
    (error: unknown) => ConnectError.from(error),
  );
  assert.is(refused?.code, Code.PermissionDenied);
  assert.match(refused?.rawMessage ?? '', /frozen/);
  const table = await runAgainst(core, ['keys', 'list', accountId]);
  assert.match(table.stdout, new RegExp(`${publicKey}\\s+live\\s+frozen`));

  const unfrozen = await runJson(core, ['keys', 'unfreeze', publicKey]);
  assert.is(unfrozen.code, 0, unfrozen.stderr);
  assert.is(unfrozen.json['frozen_at'], null);
  await check();
  // Beside the admin service's row of each call, the freeze's own rows, written with the freeze.
  const audit = await core.store.auditLog.list({ target: publicKey, action: 'key.', limit: 10 });
  assert.equal(
    audit.map((r) => [r.action, r.actor, r.note]),
    [
      ['key.unfreeze', 'cli', ''],
      ['key.freeze', 'cli', 'server compromised'],
    ],
  );
  const missing = await runAgainst(core, ['keys', 'unfreeze', 'pk_000000000000000000000000']);
  assert.is.not(missing.code, 0);
});

test.run();
