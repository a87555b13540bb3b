/**
 * Bulk SMS money: the charge is the page rate x pages x unique recipients (docs/specification.md, 4.8, rule 1);
 * a number listed twice is sent and charged once, and `sms_sent` counts unique numbers.
 */
import * as assert from 'uvu/assert';
import { TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { entriesFor, walletOf } from '../rpc/support.js';

let core!: TestCore;

const test = suite('bulk SMS charges');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

test('duplicates are charged once and sms_sent counts unique recipients', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_00 });
  const recipients = ['08031234567', '08021234567', '08031234567', '08031234567', '07061234567'];
  const { transaction } = await core.purchase.sendBulkSms({
    accountId,
    sender: 'Shop',
    recipients,
    message: 'Sale today',
  });
  assert.is(transaction!.status, TransactionStatus.SUCCESS);
  assert.is(transaction!.smsSent, 3);
  assert.is(transaction!.smsPages, 1);
  assert.is(transaction!.chargedKobo, 3n * 350n);
  const sent = core.sandbox.purchases.find((p) => p.reference === transaction!.reference)!;
  assert.equal(
    sent.details.recipients,
    ['08031234567', '08021234567', '07061234567'],
    'the provider gets each number once',
  );
  const wallet = await walletOf(core, accountId);
  assert.is(wallet.balanceKobo, 100_00n - 3n * 350n);
  assert.equal(entriesFor(wallet, transaction!.reference), [['debit', -(3n * 350n)]]);
  await assertLedgerInvariant(core, accountId);
});

/**
 * [what, message, pages]: GSM-7 text is ceil(units / 160); text with an emoji travels as UCS-2, 70 UTF-16 units a page.
 */
const MESSAGES: ReadonlyArray<readonly [string, string, number]> = [
  ['160 characters', 'a'.repeat(160), 1],
  ['161 characters', 'a'.repeat(161), 2],
  ['480 characters', 'a'.repeat(480), 3],
  ['161 emoji (322 UTF-16 units as UCS-2)', '😀'.repeat(161), 5],
];

for (const [what, message, pages] of MESSAGES) {
  test(`${what} to 2 numbers at the default 3.50 Naira is ${pages} x 2 x 350 kobo`, async () => {
    const { accountId } = await core.createApiAccount({ balanceKobo: 100_00 });
    const { transaction } = await core.purchase.sendBulkSms({
      accountId,
      sender: 'Shop',
      recipients: ['08031234567', '08021234567'],
      message,
    });
    assert.is(transaction!.smsPages, pages);
    assert.is(transaction!.smsSent, 2);
    assert.is(transaction!.chargedKobo, BigInt(pages * 2 * 350));
    assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 100_00n - BigInt(pages * 2 * 350));
    await assertLedgerInvariant(core, accountId);
  });
}

test('a new page rate applies to the next message', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_00 });
  await core.admin.setSmsRate({ koboPerPage: 425n });
  try {
    const { transaction } = await core.purchase.sendBulkSms({
      accountId,
      sender: 'Shop',
      recipients: ['08031234567', '08021234567', '08031234567'],
      message: 'a'.repeat(200),
    });
    assert.is(transaction!.chargedKobo, 425n * 2n * 2n);
  } finally {
    await core.admin.setSmsRate({ koboPerPage: 350n });
  }
  await assertLedgerInvariant(core, accountId);
});

test.run();
