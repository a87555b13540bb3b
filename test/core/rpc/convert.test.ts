/** Store records to messages: the shortcuts taken for the rows of a page mean the same as protobuf-es's own helpers. */
import { create } from '@bufbuild/protobuf';
import { TimestampSchema, timestampFromDate } from '@bufbuild/protobuf/wkt';
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import type { TransactionRecord } from '../../../core/domain/records.js';
import { timestampInit, transactionMessage } from '../../../core/rpc/convert.js';
import { suite } from '../../helpers/suite.js';

const test = suite('core rpc: record conversions');

test('a timestamp init shape is the message timestampFromDate makes, before 1970 too', () => {
  for (const ms of [0, 1, 999, 1000, -1, -999, -1000, -1001, Date.UTC(2026, 10, 24, 14, 5, 9, 7), 8.64e15, -8.64e15]) {
    const date = new Date(ms);
    assert.equal(create(TimestampSchema, timestampInit(date)), timestampFromDate(date), String(ms));
  }
});

test("sms_sent: the delivery's count, else the recipients, else a history page's recipientCount", () => {
  const pending: TransactionRecord = {
    reference: 'TX1',
    accountId: 'acc_1',
    mode: 'live',
    product: 'bulksms',
    status: 'pending',
    service: 'sms',
    recipient: '',
    faceValueKobo: kobo(800),
    chargedKobo: kobo(800),
    balanceAfterKobo: kobo(1_000),
    details: { sender: 'Shop', message: 'Hi', recipients: ['08031234567', '08031234568'], pages: 1 },
    result: null,
    failureReason: null,
    requestId: null,
    requestHash: null,
    attempts: 0,
    nextAttemptAt: new Date(0),
    needsAttention: false,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
  // What TransactionStore.listByAccount gives for the same purchase.
  const onPage = { ...pending, details: { sender: 'Shop', message: 'Hi', pages: 1, recipientCount: 2 } };
  const delivered = { ...pending, status: 'success' as const, result: { sent: 1 } };
  assert.equal(
    [pending, onPage, delivered].map((tx) => transactionMessage(tx).smsSent),
    [2, 2, 1],
  );
});

test.run();
