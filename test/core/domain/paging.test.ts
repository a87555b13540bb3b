/** Page sizes and cursors, one rule for every list: the default, the bounds, the bad cursor. */
import * as assert from 'uvu/assert';
import { DomainError } from '../../../core/domain/errors.js';
import {
  HISTORY_PAGES,
  InvalidCursorError,
  LEDGER_PAGES,
  pageSize,
  readPage,
  sizeOrDefault,
} from '../../../core/domain/paging.js';
import { suite } from '../../helpers/suite.js';

const test = suite('paging rules');

test('no size named is the default; 1 to the bound is taken as asked; anything else names the caller field', () => {
  assert.is(pageSize(undefined, HISTORY_PAGES, 'limit'), 20);
  assert.is(pageSize(undefined, LEDGER_PAGES, 'page_size'), 100);
  assert.is(pageSize(1, HISTORY_PAGES, 'limit'), 1);
  assert.is(pageSize(100, HISTORY_PAGES, 'limit'), 100);
  for (const bad of [0, -1, 101, 2.5, Number.NaN]) {
    try {
      pageSize(bad, HISTORY_PAGES, 'limit');
      assert.unreachable(`${bad} was taken`);
    } catch (error) {
      assert.instance(error, DomainError);
      assert.is((error as DomainError).code, 'INVALID_PARAMETER');
      assert.equal((error as DomainError).violations, [
        { field: 'limit', description: 'limit must be between 1 and 100.' },
      ]);
    }
  }
});

test("a plain int32's 0 means no size named; any other value is passed on to be checked", () => {
  assert.is(sizeOrDefault(0), undefined);
  assert.is(sizeOrDefault(7), 7);
  assert.is(sizeOrDefault(-3), -3);
  assert.is(pageSize(sizeOrDefault(0), LEDGER_PAGES, 'page_size'), 100);
});

test('a cursor the store cannot read is the caller field, invalid; any other failure passes through', async () => {
  assert.is(await readPage('cursor', async () => 'page'), 'page');
  try {
    await readPage('page_token', async () => {
      throw new InvalidCursorError();
    });
    assert.unreachable('the bad cursor was taken');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.equal((error as DomainError).violations, [
      { field: 'page_token', description: 'page_token is not one this service issued.' },
    ]);
  }
  const other = new Error('disk on fire');
  try {
    await readPage('cursor', async () => {
      throw other;
    });
    assert.unreachable('the failure was swallowed');
  } catch (error) {
    assert.is(error, other);
  }
});

test.run();
