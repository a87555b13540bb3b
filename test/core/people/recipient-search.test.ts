/** Recipient search in the developer area: a Nigerian number typed in any of its usual forms finds the stored one. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nigerianNumber, transactionQuery } from '../../../core/people/holder.js';

const filter = { product: null, status: null, fromDate: '', toDate: '', reference: '', requestId: '' };

test('+234..., 234..., 00234..., spaced or dashed, all become the stored 0... form', () => {
  for (const typed of [
    '+2348031234567',
    '2348031234567',
    '002348031234567',
    '+234 803 123 4567',
    '0803-123-4567',
    '(0803) 123 4567',
    '08031234567',
  ]) {
    assert.is(nigerianNumber(typed), '08031234567', typed);
    assert.is(transactionQuery({ ...filter, recipient: typed }).recipient, '08031234567', typed);
  }
});

test('a meter, a smart card or anything else is searched as typed', () => {
  assert.is(nigerianNumber('45012345678'), '45012345678');
  assert.is(nigerianNumber('7023456789'), '7023456789');
  assert.is(nigerianNumber('+23480312'), '+23480312');
  assert.is(transactionQuery({ ...filter, recipient: '  ' }).recipient, undefined);
});

test.run();
