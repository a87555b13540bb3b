import * as assert from 'uvu/assert';
import { cleanRawAnswer, RAW_ANSWER_MAX_BYTES } from '../../../core/domain/raw-answers.js';
import { suite } from '../../helpers/suite.js';

const test = suite("an upstream's raw answer as kept for the operator");

test('credential fields are removed at any depth; the electricity token and plain fields stay', () => {
  const body = JSON.stringify({
    code: '000',
    api_key: 'live-key-123',
    content: {
      transactions: { status: 'delivered', product_name: 'Ikeja Electric' },
      secret_key: 'SK_abc',
      password: 'hunter2',
      pin: '1234',
      authorization: 'Basic dXNlcjpwYXNz',
      access_token: 'tok',
    },
    token: '1234-5678-9012-3456-7890',
    purchased_code: 'Token : 1234-5678-9012-3456-7890',
    list: [{ apiKey: 'k' }, { UserID: 'CK100', APIKey: 'ck-secret' }],
  });
  const kept = cleanRawAnswer(body, 200);
  assert.ok(kept.startsWith('HTTP 200\n'));
  const parsed = JSON.parse(kept.slice('HTTP 200\n'.length)) as Record<string, unknown>;
  assert.equal(parsed, {
    code: '000',
    api_key: '[removed]',
    content: {
      transactions: { status: 'delivered', product_name: 'Ikeja Electric' },
      secret_key: '[removed]',
      password: '[removed]',
      pin: '[removed]',
      authorization: '[removed]',
      access_token: '[removed]',
    },
    token: '1234-5678-9012-3456-7890',
    purchased_code: 'Token : 1234-5678-9012-3456-7890',
    list: [{ apiKey: '[removed]' }, { UserID: 'CK100', APIKey: '[removed]' }],
  });
  for (const secret of ['live-key-123', 'SK_abc', 'hunter2', 'dXNlcjpwYXNz', 'ck-secret']) {
    assert.not.ok(kept.includes(secret), secret);
  }
});

test('text that is not JSON loses its name=value credentials and anything shaped like one', () => {
  const kept = cleanRawAnswer(
    '<html>error UserID=CK1&APIKey=ABCDEF123 password: hunter2 Bearer abc.def sk_live_0123456789 ' +
      'Ab3dEfGh1jKlMn0pQrStUvWxYz0123456789</html>',
  );
  for (const secret of [
    'ABCDEF123',
    'hunter2',
    'abc.def',
    'sk_live_0123456789',
    'Ab3dEfGh1jKlMn0pQrStUvWxYz0123456789',
  ])
    assert.not.ok(kept.includes(secret), secret);
  assert.ok(kept.includes('UserID=CK1'), 'a user id is not a secret');
});

test('a long answer is cut to the bound, never inside a character, and the cut is marked', () => {
  const kept = cleanRawAnswer('₦'.repeat(5_000));
  assert.ok(new TextEncoder().encode(kept).byteLength <= RAW_ANSWER_MAX_BYTES);
  assert.match(kept, /\n\[truncated: 15000 bytes in all\]$/);
  assert.not.ok(kept.includes('\uFFFD'));
  assert.is(cleanRawAnswer('short'), 'short');
});

test.run();
