/**
 * Recipient search in the developer area: a Nigerian number typed in any of its usual forms
 * finds the stored one, the start of a number finds every number that starts so, and the
 * prefix becomes an index range both stores answer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { prefixRange, recipientSearch } from '../../../core/domain/recipient-search.js';
import { transactionQuery } from '../../../core/holders/desk.js';

const filter = { product: null, status: null, fromDate: '', toDate: '', reference: '', requestId: '' };

test('+234..., 234..., 00234..., spaced or dashed, all become the stored 0... form, exactly', () => {
  for (const typed of [
    '+2348031234567',
    '2348031234567',
    '002348031234567',
    '+234 803 123 4567',
    '0803-123-4567',
    '(0803) 123 4567',
    '0803.123.4567',
    '08031234567',
  ]) {
    assert.equal(recipientSearch(typed), { exact: '08031234567' }, typed);
    const query = transactionQuery({ ...filter, recipient: typed });
    assert.is(query.recipient, '08031234567', typed);
    assert.is(query.recipientPrefix, undefined, typed);
  }
});

test('the start of a number is a prefix of the stored form, however the country is written', () => {
  for (const [typed, prefix] of [
    ['0803123', '0803123'],
    ['0803 123', '0803123'],
    ['+234803123', '0803123'],
    ['00234 8031', '08031'],
    ['+234 803', '0803'],
    ['0803', '0803'],
  ] as const) {
    assert.equal(recipientSearch(typed), { prefix }, typed);
    assert.is(transactionQuery({ ...filter, recipient: typed }).recipientPrefix, prefix, typed);
  }
});

test('meter and smart card numbers, whole or a start, are prefixes as typed; a bare 234... is no country code', () => {
  assert.equal(recipientSearch('45012345678'), { prefix: '45012345678' });
  assert.equal(recipientSearch('7023456789'), { prefix: '7023456789' });
  assert.equal(recipientSearch('4501'), { prefix: '4501' });
  assert.equal(recipientSearch('2348031'), { prefix: '2348031' }, 'without + or 00 it may be a meter');
});

test('too few digits, or letters, are matched exactly as typed (finding nothing rather than everything)', () => {
  assert.equal(recipientSearch('080'), { exact: '080' });
  assert.equal(recipientSearch('+234'), { exact: '+234' });
  assert.equal(recipientSearch('ada'), { exact: 'ada' });
  assert.is(transactionQuery({ ...filter, recipient: '  ' }).recipient, undefined);
  assert.is(transactionQuery({ ...filter, recipient: '  ' }).recipientPrefix, undefined);
});

test('a prefix is the half-open range of the strings that start with it', () => {
  assert.equal(prefixRange('0803123'), { from: '0803123', until: '0803124' });
  assert.equal(prefixRange('0809'), { from: '0809', until: '080:' });
  const { from, until } = prefixRange('0809');
  for (const inside of ['0809', '08090000000', '08099999999']) assert.ok(inside >= from && inside < until, inside);
  for (const outside of ['0808999', '0810', '081']) assert.not.ok(outside >= from && outside < until, outside);
  assert.throws(() => prefixRange(''));
});

test.run();
