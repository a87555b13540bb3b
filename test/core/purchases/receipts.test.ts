/**
 * The receipt SMS of the contract, 6 (docs/specification.md): an electricity payment with the optional phone tells
 * that phone the token, units and reference, in the background. A refused receipt never
 * fails or refunds the payment.
 */
import * as assert from 'uvu/assert';
import { TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { entriesFor, eventually, walletOf } from '../rpc/support.js';

/** Receipts go out in the background; the sandbox answers at once, so two seconds is ample. */
const RECEIPT_WAIT_MS = 2_000;
/** How long to watch for a receipt that must not come. */
const QUIET_WAIT_MS = 300;

let core!: TestCore;

const test = suite('electricity receipts');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

function receiptFor(reference: string) {
  return core.sandbox.outbox.find((sms) => sms.reference === reference);
}

function pay(accountId: string, fields: { meterNumber?: string; meterType?: string; phone?: string }) {
  return core.purchase.payElectricity({
    accountId,
    disco: 'ekedc',
    meterNumber: fields.meterNumber ?? '45012345678',
    meterType: fields.meterType ?? 'prepaid',
    amountKobo: 5_000_00n,
    phone: fields.phone ?? '',
  });
}

test('a prepaid payment with a phone sends that phone the token, units and reference', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
  const tx = (await pay(accountId, { phone: '08031234567' })).transaction!;
  assert.is(tx.status, TransactionStatus.SUCCESS);
  assert.is(tx.customerPhone, '08031234567');
  assert.ok(await eventually(() => receiptFor(tx.reference) !== undefined, RECEIPT_WAIT_MS), 'a receipt was sent');
  const sms = receiptFor(tx.reference)!;
  assert.is(sms.to, '08031234567');
  assert.ok(sms.text.includes(tx.token), `the text has the token ${tx.token}: ${sms.text}`);
  assert.ok(sms.text.includes(tx.units), `the text has the units ${tx.units}`);
  assert.ok(sms.text.includes(tx.reference), 'the text has the reference');
  assert.ok(sms.text.includes('45012345678'), 'the text names the meter');
  await assertLedgerInvariant(core, accountId);
});

test('a payment without a phone sends no receipt', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
  const tx = (await pay(accountId, {})).transaction!;
  await new Promise((resolve) => setTimeout(resolve, QUIET_WAIT_MS));
  assert.is(receiptFor(tx.reference), undefined);
});

test('a refused receipt (phone ending 9999) leaves the payment successful and unrefunded', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
  const tx = (await pay(accountId, { phone: '08031239999' })).transaction!;
  assert.is(tx.status, TransactionStatus.SUCCESS);
  await new Promise((resolve) => setTimeout(resolve, QUIET_WAIT_MS));
  assert.is(receiptFor(tx.reference), undefined, 'the sandbox refused the receipt');
  assert.is(
    (await core.purchase.getTransaction({ accountId, reference: tx.reference })).transaction!.status,
    TransactionStatus.SUCCESS,
  );
  const wallet = await walletOf(core, accountId);
  assert.equal(entriesFor(wallet, tx.reference), [['debit', -tx.chargedKobo]]);
  assert.is(wallet.balanceKobo, 10_000_00n - tx.chargedKobo);
  await assertLedgerInvariant(core, accountId);
});

test('a postpaid payment has no token, and its receipt shows none', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
  const tx = (await pay(accountId, { meterType: 'postpaid', phone: '08031234567' })).transaction!;
  assert.is(tx.status, TransactionStatus.SUCCESS);
  assert.is(tx.meterType, 'postpaid');
  assert.is(tx.token, '');
  assert.ok(await eventually(() => receiptFor(tx.reference) !== undefined, RECEIPT_WAIT_MS), 'a receipt was sent');
  const sms = receiptFor(tx.reference)!;
  assert.not.match(sms.text, /Token/);
  assert.ok(sms.text.includes(tx.reference));
});

test('a payment settled by recovery (meter ending 8888) sends its receipt then, with the token', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
  const pending = (await pay(accountId, { meterNumber: '45012348888', phone: '08031234567' })).transaction!;
  assert.is(pending.status, TransactionStatus.PENDING);
  await new Promise((resolve) => setTimeout(resolve, QUIET_WAIT_MS));
  assert.is(receiptFor(pending.reference), undefined, 'no receipt while the outcome is unknown');
  await core.recoverNow();
  const settled = (await core.purchase.getTransaction({ accountId, reference: pending.reference })).transaction!;
  assert.is(settled.status, TransactionStatus.SUCCESS);
  assert.ok(
    await eventually(() => receiptFor(pending.reference) !== undefined, RECEIPT_WAIT_MS),
    'a receipt was sent after recovery',
  );
  assert.ok(receiptFor(pending.reference)!.text.includes(settled.token));
  await assertLedgerInvariant(core, accountId);
});

test('a failed payment (meter ending 9999) sends no receipt', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
  const outboxBefore = core.sandbox.outbox.length;
  await pay(accountId, { meterNumber: '45012349999', phone: '08031234567' }).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, QUIET_WAIT_MS));
  assert.is(core.sandbox.outbox.length, outboxBefore);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 10_000_00n);
  await assertLedgerInvariant(core, accountId);
});

test.run();
