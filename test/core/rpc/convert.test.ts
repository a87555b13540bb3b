/** Store records to messages: the shortcuts taken for the rows of a page mean the same as protobuf-es's own helpers. */
import { create } from '@bufbuild/protobuf';
import { TimestampSchema, timestampFromDate } from '@bufbuild/protobuf/wkt';
import * as assert from 'uvu/assert';
import { timestampInit } from '../../../core/rpc/convert.js';
import { suite } from '../../helpers/suite.js';

const test = suite('core rpc: record conversions');

test('a timestamp init shape is the message timestampFromDate makes, before 1970 too', () => {
  for (const ms of [0, 1, 999, 1000, -1, -999, -1000, -1001, Date.UTC(2026, 10, 24, 14, 5, 9, 7), 8.64e15, -8.64e15]) {
    const date = new Date(ms);
    assert.equal(create(TimestampSchema, timestampInit(date)), timestampFromDate(date), String(ms));
  }
});

test.run();
