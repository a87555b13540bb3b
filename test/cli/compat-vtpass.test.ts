/**
 * `prepaid keys compat PUBLIC_KEY --dialect vtpass`: VTpass's three keys are shown once, the
 * secret pair acts as the key pair, the public pair only reads (and is refused when its key
 * pair has nothing to read), and the store keeps neither the secret key nor the public one.
 */
import { createHash } from 'node:crypto';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore }>('prepaid keys compat --dialect vtpass');

test.before(async (ctx) => {
  ctx.core = await startCore();
});
test.after(async (ctx) => {
  await ctx.core.close();
});

const verify = (core: TestCore, token: string) =>
  core.auth.verifyCompatToken({ dialect: 'vtpass', token, clientIp: '203.0.113.7' });

test('the three keys are printed once; the secret pair is the key pair, the public pair reads only', async ({
  core,
}) => {
  const { accountId, publicKey } = await core.createApiAccount();
  const shown = await runAgainst(core, ['keys', 'compat', publicKey, '--dialect', 'vtpass']);
  assert.is(shown.code, 0, shown.stderr);
  const apiKey = /^api-key: ([0-9a-f]{32})$/m.exec(shown.stdout)?.[1];
  const pk = /^public-key: (PK_[0-9a-f]{40})$/m.exec(shown.stdout)?.[1];
  const sk = /^secret-key: (SK_[0-9a-f]{40})$/m.exec(shown.stdout)?.[1];
  assert.ok(apiKey && pk && sk, shown.stdout);
  assert.match(shown.stderr, /shown only this once/);

  const full = await verify(core, `${apiKey}:${sk}`);
  assert.is(full.publicKey, publicKey);
  assert.equal(full.key?.scopes, ['all']);
  const reader = await verify(core, `${apiKey}:${pk}`);
  assert.equal(reader.key?.scopes, ['balance', 'read', 'verify']);
  for (const wrong of [`${apiKey}:SK_${'0'.repeat(40)}`, `${apiKey}:${sk}:${pk}`, sk!, `${'0'.repeat(32)}:${pk}`]) {
    await verify(core, wrong).then(
      () => assert.unreachable(`${wrong} was taken`),
      (error: Error) => assert.match(error.message, /Invalid token/),
    );
  }
  // Another dialect's path never takes these keys.
  await core.auth.verifyCompatToken({ dialect: 'msorg', token: `${apiKey}:${sk}`, clientIp: '203.0.113.7' }).then(
    () => assert.unreachable('msorg took a vtpass pair'),
    (error: Error) => assert.match(error.message, /Invalid token/),
  );

  const [record] = await core.store.compat.listTokens(accountId);
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  assert.is(record!.tokenHash, sha(`${apiKey}:${pk}`), 'one hash, of the api key and the public key');
  assert.not.ok(JSON.stringify(record).includes(sk!.slice(3)), 'the secret key is not kept');
  assert.is(record!.lastFour, sk!.slice(-4));
});

test('--json gives the keys apart; a key pair that may only buy gets no public pair', async ({ core }) => {
  const { accountId } = await core.createApiAccount();
  const created = await runJson(core, ['keys', 'create', accountId, '--scopes', 'purchase:airtime']);
  assert.is(created.code, 0, created.stderr);
  const made = await runJson(core, ['keys', 'compat', String(created.json['public_key']), '--dialect', 'vtpass']);
  assert.is(made.code, 0, made.stderr);
  const parts = made.json['vtpass'] as { api_key: string; public_key: string; secret_key: string };
  assert.is(made.json['token'], `${parts.api_key}:${parts.public_key}:${parts.secret_key}`);
  const buyer = await verify(core, `${parts.api_key}:${parts.secret_key}`);
  assert.equal(buyer.key?.scopes, ['purchase:airtime']);
  await verify(core, `${parts.api_key}:${parts.public_key}`).then(
    () => assert.unreachable('a public pair with nothing to read was taken'),
    (error: Error) => assert.match(error.message, /Invalid token/),
  );
});

test.run();
