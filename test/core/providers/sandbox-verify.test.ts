/**
 * The sandbox's customer verification: a made-up customer that depends on the number alone,
 * "not found" for numbers ending 9999, recorded like every sandbox call.
 */
import * as assert from 'uvu/assert';
import { createSandbox, sandboxVerify } from '../../../core/providers/sandbox/index.js';
import { suite } from '../../helpers/suite.js';

const test = suite('sandbox verify');

const at = new Date('2026-03-10T12:00:00Z');

test('the same meter always gives the same customer; another meter may give another', () => {
  const query = { product: 'electricity', service: 'ikedc', number: '45031234567', meterType: 'prepaid' } as const;
  const first = sandboxVerify(query, at);
  assert.equal(sandboxVerify(query, at), first);
  assert.is(first.kind, 'found');
  if (first.kind !== 'found') return;
  assert.match(first.customer.customerName, /^[A-Z][a-z]+ [A-Z][a-z]+$/);
  assert.is(first.customer.meterType, 'prepaid');
  assert.is(first.customer.minimumAmountKobo, 1_000_00);
  const names = new Set(
    ['45031234560', '45031234561', '45031234562', '45031234563', '45031234564'].map((number) => {
      const found = sandboxVerify({ ...query, number }, at);
      return found.kind === 'found' ? found.customer.customerName : '';
    }),
  );
  assert.ok(names.size > 1, 'names vary with the number');
});

test('a smart card has a bouquet of its provider, a renewal amount and a due date next month', () => {
  const found = sandboxVerify({ product: 'cable', service: 'dstv', number: '7012345678' }, at);
  assert.is(found.kind, 'found');
  if (found.kind !== 'found') return;
  assert.match(found.customer.currentBouquet!, /^DStv /);
  assert.ok(found.customer.renewalAmountKobo! > 0);
  assert.match(found.customer.dueDate!, /^2026-04-\d{2}$/);
  assert.is(found.customer.address, undefined);
});

test('numbers ending 9999 are not found', () => {
  assert.is(sandboxVerify({ product: 'cable', service: 'gotv', number: '7012349999' }, at).kind, 'not_found');
  assert.is(
    sandboxVerify({ product: 'electricity', service: 'aedc', number: '123459999', meterType: 'postpaid' }, at).kind,
    'not_found',
  );
});

test('the sandbox records verifications and honours its delay and the abort signal', async () => {
  const sandbox = createSandbox({ delayMs: 200 });
  const query = { product: 'cable', service: 'gotv', number: '7012345678' } as const;
  await sandbox.cable.verify(query, AbortSignal.timeout(5_000));
  assert.equal(sandbox.verifications, [query]);
  let aborted = false;
  try {
    await sandbox.electricity.verify(
      { product: 'electricity', service: 'ikedc', number: '45031234567', meterType: 'prepaid' },
      AbortSignal.timeout(20),
    );
  } catch {
    aborted = true;
  }
  assert.ok(aborted, 'a verification past its deadline rejects');
});

test.run();
