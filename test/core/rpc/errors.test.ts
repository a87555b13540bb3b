/**
 * Errors leave the core as gRPC statuses whose details carry a google.rpc.ErrorInfo (reason =
 * our error code, domain prepaid.v1) and, for bad parameters, a google.rpc.BadRequest whose
 * field violations use the public field names of the spec.
 */

import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { type Rejection, rejection } from './support.js';

let core!: TestCore;
let accountId = '';

const test = suite('error details over gRPC');
test.before(async () => {
  core = await startCore();
  accountId = (await core.createApiAccount({ balanceKobo: 100_000_00 })).accountId;
});
test.after(async () => {
  await core.close();
});

function assertInvalid(refused: Rejection, fields: string[]) {
  assert.is(refused.code, Code.InvalidArgument);
  assert.is(refused.reason, 'INVALID_PARAMETER');
  assert.is(refused.domain, 'prepaid.v1');
  assert.equal(
    refused.violations.map((v) => v.field),
    fields,
  );
  assert.ok(
    refused.violations.every((v) => v.description.length > 10),
    'every violation says why',
  );
}

/** One request per product that breaks several rules at once, and the public fields it must name. */
const INVALID_REQUESTS: ReadonlyArray<{ rpc: string; call: () => Promise<unknown>; fields: string[] }> = [
  {
    rpc: 'BuyAirtime',
    call: () => core.purchase.buyAirtime({ accountId, network: 'etisalat', phone: '0803', amountKobo: 49_99n }),
    fields: ['network', 'phone', 'amount'],
  },
  {
    rpc: 'BuyData',
    call: () => core.purchase.buyData({ accountId, planId: 999_999n, phone: '' }),
    fields: ['plan_id', 'phone'],
  },
  {
    rpc: 'PayElectricity',
    call: () =>
      core.purchase.payElectricity({
        accountId,
        disco: 'phcn',
        meterNumber: 'abc',
        meterType: 'smart',
        amountKobo: 999_99n,
        phone: '123',
      }),
    fields: ['disco', 'meter_number', 'meter_type', 'amount', 'phone'],
  },
  {
    rpc: 'PayCable',
    call: () => core.purchase.payCable({ accountId, provider: 'dstv', smartCard: '', packageCode: 'DSTV GOLD' }),
    fields: ['smart_card', 'package_code'],
  },
  {
    rpc: 'SendBulkSms',
    call: () =>
      core.purchase.sendBulkSms({
        accountId,
        sender: 'Sender Name Too Long',
        recipients: ['08031234567', '555'],
        message: '',
      }),
    fields: ['sender', 'message', 'recipients[1]'],
  },
  {
    rpc: 'BuyAirtime with an int64 amount beyond the safe range',
    call: () => core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 2n ** 60n }),
    fields: ['amount'],
  },
  {
    rpc: 'BuyAirtime with a malformed request_id',
    call: () =>
      core.purchase.buyAirtime({
        accountId,
        network: 'mtn',
        phone: '08031234567',
        amountKobo: 100_00n,
        requestId: 'has spaces in it',
      }),
    fields: ['request_id'],
  },
  {
    rpc: 'BuyAirtime without account_id',
    call: () => core.purchase.buyAirtime({ accountId: '', network: 'mtn', phone: '08031234567', amountKobo: 100_00n }),
    fields: ['account_id'],
  },
];

for (const { rpc, call, fields } of INVALID_REQUESTS) {
  test(`${rpc}: INVALID_ARGUMENT, INVALID_PARAMETER, violations on ${fields.join(', ')}; nothing debited`, async () => {
    const before = (await core.purchase.getBalance({ accountId })).balanceKobo;
    const calls = core.sandbox.purchases.length;
    assertInvalid(await rejection(call()), fields);
    assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, before);
    assert.is(core.sandbox.purchases.length, calls);
  });
}

test('a request with several bad fields has a message that names them all', async () => {
  const refused = await rejection(
    core.purchase.buyAirtime({ accountId, network: 'etisalat', phone: '0803', amountKobo: 49_99n }),
  );
  assert.match(refused.message, /network, phone, amount/);
});

test('an unknown account is NOT_FOUND with reason NOT_FOUND', async () => {
  const refused = await rejection(core.purchase.getBalance({ accountId: 'acc_ffffffffffffffff' }));
  assert.is(refused.code, Code.NotFound);
  assert.is(refused.reason, 'NOT_FOUND');
  assert.is(refused.domain, 'prepaid.v1');
  assert.equal(refused.violations, []);
});

test('a short balance is FAILED_PRECONDITION, reason INSUFFICIENT_BALANCE, and the amounts in metadata', async () => {
  const poor = await core.createApiAccount({ balanceKobo: 10_00 });
  const refused = await rejection(
    core.purchase.buyAirtime({ accountId: poor.accountId, network: 'mtn', phone: '08031234567', amountKobo: 100_00n }),
  );
  assert.is(refused.code, Code.FailedPrecondition);
  assert.is(refused.reason, 'INSUFFICIENT_BALANCE');
  assert.equal(refused.metadata, { balance_kobo: '1000', charge_kobo: '9700' });
  assert.match(refused.message, /10\.00 Naira.*97\.00 Naira/);
});

test('a definite provider failure is ABORTED, PROVIDER_FAILED, with the reference and refund in metadata', async () => {
  const refused = await rejection(
    core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031239999', amountKobo: 100_00n }),
  );
  assert.is(refused.code, Code.Aborted);
  assert.is(refused.reason, 'PROVIDER_FAILED');
  assert.match(refused.metadata.reference ?? '', /^\d{12}[A-Z0-9]{10}$/);
  assert.is(refused.metadata.refunded, 'true');
  assert.is(refused.metadata.charged_kobo, '9700');
  assert.match(refused.message, /refunded 97\.00 Naira in full/);
});

test.run();
