/**
 * No secret reaches a log: hostile and careless requests (a secret key sent as the public
 * key, in the action, the path, the idempotency key, an Authorization header) are made
 * against a real gateway and core, and every line the gateway's real log wrote is searched
 * for the secrets. The redaction itself is pinned on the shapes it must catch and the ones it
 * must leave alone.
 */
import * as assert from 'uvu/assert';
import { startGateway } from '../../gateway/main.js';
import { createProcessLog, isoTime, MAYBE_SECRET, REDACTED, redactSecrets, SECRET_SHAPES } from '../../runtime/log.js';
import { startCore } from '../helpers/core.js';
import { type RequestOptions, send } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite('log redaction');

test('secret shapes are redacted wherever they stand; facts are left alone', () => {
  const secret = `sk_${'Q9x_'.repeat(10)}`;
  const token = 'Zk3'.repeat(15);
  const redacted = redactSecrets({
    public_key: secret,
    message: `failed for ${secret} from 10.0.0.1`,
    nested: { headers: ['x', `Bearer ${token}`], deeper: { whsec: 'whsec_abcdef123456' } },
    token_like: token,
  }) as Record<string, unknown>;
  const text = JSON.stringify(redacted);
  assert.not.ok(text.includes(secret));
  assert.not.ok(text.includes(token));
  assert.not.ok(text.includes('whsec_abcdef123456'));
  assert.ok(text.includes('from 10.0.0.1'), 'the rest of a sentence stays');
  assert.is(redacted['public_key'], REDACTED);
  const facts = {
    reference: 'T1A2B3C4D5',
    public_key: 'pk_0123456789abcdef01234567',
    sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    service: 'mtn',
  };
  assert.equal(redactSecrets(facts), facts);
});

/**
 * SECRET_SHAPES as it reads most plainly, without the lookbehind that makes it linear: the
 * fast form must replace exactly what this one replaces, and MAYBE_SECRET must let through
 * (to the search) every text this one would change.
 */
const PLAIN_SHAPES = new RegExp(
  [
    String.raw`\b(?:sk|whsec|sess|inv)_[A-Za-z0-9_-]{6,}`,
    String.raw`\bBearer\s+\S+`,
    String.raw`(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{32,}`,
  ].join('|'),
  'g',
);

test('the fast secret search changes what the plain one changes, on generated text', () => {
  // Pieces that make the shapes' edges: prefixes inside and at the start of words, runs of each
  // character class that join into runs over 32 (or stop short), separators, a bearer.
  const pieces = 'sk_|whsec_|sess_|inv_|task_|Bearer|Bearer | |\t|-|_|.|/|:|=|é|a|Z|7|x9Y|Q9x_Q9x_Q9x_'.split('|');
  pieces.push('abcdefghijklmnop', 'ABCDEFGHIJKLMNOP', '0123456789012345');
  // A fixed xorshift sequence, so that every run tries the same texts.
  let state = 29;
  const next = (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  let changed = 0;
  for (let i = 0; i < 20_000; i++) {
    let text = '';
    for (let k = 1 + next(12); k > 0; k--) text += pieces[next(pieces.length)];
    const plain = text.replace(PLAIN_SHAPES, REDACTED);
    assert.is(text.replace(SECRET_SHAPES, REDACTED), plain, JSON.stringify(text));
    if (plain !== text) {
      changed += 1;
      assert.ok(MAYBE_SECRET.test(text), `the quick test lets ${JSON.stringify(text)} skip the search`);
    }
  }
  assert.ok(changed > 2_000, `the texts exercised the search (${changed} changed)`);
});

test("a request line's ids skip the search", () => {
  for (const id of ['acc_e9c2d226c1a21a23', 'pk_9f8e7d6c5b4a39281706f5e4', '202611271027X5PWE68YT7', '127.0.0.1'])
    assert.not.ok(MAYBE_SECRET.test(id), id);
});

test("the line's time is written as pino's isoTime writes it, and is now", () => {
  const before = Date.now();
  const time = isoTime();
  const at = Date.parse(JSON.parse(`{${time.slice(1)}}`).time as string);
  assert.ok(at >= before && at <= Date.now(), time);
  assert.match(time, /^,"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/);
});

test('hostile requests leave no secret in the gateway log', async () => {
  const core = await startCore();
  const lines: string[] = [];
  const log = createProcessLog({
    level: 'debug',
    service: 'gateway',
    destination: { write: (line: string) => void lines.push(line) },
  });
  const running = await startGateway({ PORT: '0', HOST: '127.0.0.1', CORE_URL: core.url, DATA_DIR: core.dataDir }, log);
  try {
    const { publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 100_000 });
    const requests: RequestOptions[] = [
      // The two key headers swapped.
      { query: { action: 'balance' }, keys: { publicKey: secretKey, secretKey: publicKey } },
      // The secret as an action, in a path, as an idempotency key, as a bearer token.
      { query: { action: secretKey }, keys: { publicKey, secretKey } },
      { path: `/api/v1/${secretKey}` },
      {
        query: { action: 'airtime' },
        keys: { publicKey, secretKey },
        headers: { 'Idempotency-Key': secretKey },
        body: { network: 'mtn', phone: '0803', amount: 5 },
      },
      {
        query: { action: 'balance' },
        headers: { Authorization: `Bearer ${core.serviceToken}`, 'X-Public-Key': publicKey },
      },
      { query: { action: 'transaction', reference: secretKey }, keys: { publicKey, secretKey } },
    ];
    for (const request of requests) await send(running.port, '/api/v1', request);
    await log.flush();
    const written = lines.join('');
    assert.ok(lines.length >= requests.length, `the requests were logged (${lines.length} lines)`);
    assert.not.ok(written.includes(secretKey), 'the secret key appears in no line');
    assert.not.ok(written.includes(core.serviceToken), 'the service token appears in no line');
  } finally {
    await running.close();
    await core.close();
  }
});

test.run();
