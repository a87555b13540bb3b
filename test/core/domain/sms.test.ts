import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import { bulkSmsOrder } from '../../../core/domain/orders.js';
import { smsChargeKobo, smsPages, uniqueRecipients } from '../../../core/domain/sms.js';
import { suite } from '../../helpers/suite.js';

const PLAIN_TIER = { tierId: 'basic', discounts: [] };

const charge = suite('SMS charge = page rate x pages x unique recipients (the contract, 4.8, rule 1)');

const CHARGES: ReadonlyArray<readonly [number, number, number, number]> = [
  // [rate kobo, pages, recipients, charge kobo]
  [350, 1, 1, 350],
  [350, 2, 1, 700],
  [350, 1, 3, 1_050],
  [350, 2, 3, 2_100],
  [400, 10, 10_000, 40_000_000],
];

for (const [rate, pages, recipients, expected] of CHARGES) {
  charge(`${rate} kobo x ${pages} pages x ${recipients} recipients = ${expected} kobo`, () => {
    assert.is(smsChargeKobo(kobo(rate), pages, recipients), expected);
  });
}

charge('a number listed twice is charged once', () => {
  const order = bulkSmsOrder(
    { sender: 'Shop', recipients: ['08031234567', '08021234567', '08031234567'], message: 'a'.repeat(161) },
    kobo(350),
    PLAIN_TIER,
  );
  assert.equal(order.details.recipients, ['08031234567', '08021234567']);
  assert.is(order.details.pages, 2);
  assert.is(order.faceValueKobo, 350 * 2 * 2);
  assert.is(order.chargedKobo, 350 * 2 * 2);
});

charge('the same list in any order costs the same', () => {
  const a = bulkSmsOrder(
    { sender: 'Shop', recipients: ['08031234567', '08021234567'], message: 'Hi' },
    kobo(350),
    PLAIN_TIER,
  );
  const b = bulkSmsOrder(
    { sender: 'Shop', recipients: ['08021234567', '08031234567', '08021234567'], message: 'Hi' },
    kobo(350),
    PLAIN_TIER,
  );
  assert.is(a.chargedKobo, b.chargedKobo);
});

charge.run();

const helpers = suite('SMS helpers');

helpers('uniqueRecipients keeps the order in which numbers first appear', () => {
  assert.equal(uniqueRecipients(['3', '1', '3', '2', '1']), ['3', '1', '2']);
});

helpers('smsPages is at least one page: ceil(units / 160) for GSM-7, ceil(UTF-16 units / 70) otherwise', () => {
  assert.is(smsPages(''), 1);
  assert.is(smsPages('a'.repeat(160)), 1);
  assert.is(smsPages('a'.repeat(161)), 2);
  assert.is(smsPages('😀'.repeat(160)), 5, '320 UTF-16 units travel as five UCS-2 pages');
});

helpers.run();
