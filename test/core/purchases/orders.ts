/**
 * One valid purchase per product whose recipient ends in a chosen sandbox ending (9999 fails,
 * 8888 and 7777 leave the outcome unknown), with what the API tier is charged for it under
 * the default catalog. The money tests run the same scenario across every product with these.
 */

import type { ProductName } from '../../../core/domain/products.js';
import type { Transaction } from '../../../gen/prepaid/v1/types_pb.js';
import type { TestCore } from '../../helpers/core.js';

export interface ProductCase {
  product: ProductName;
  /** What the API tier pays under the default catalog. */
  chargedKobo: bigint;
  buy(
    core: TestCore,
    accountId: string,
    ending: string,
    requestId?: string,
  ): Promise<{ transaction?: Transaction; replayed: boolean }>;
}

export const PRODUCT_CASES: readonly ProductCase[] = [
  {
    product: 'airtime',
    // 100 Naira of MTN airtime, 3% off.
    chargedKobo: 97_00n,
    buy: (core, accountId, ending, requestId = '') =>
      core.purchase.buyAirtime({
        accountId,
        network: 'mtn',
        phone: `0803123${ending}`,
        amountKobo: 100_00n,
        requestId,
      }),
  },
  {
    product: 'data',
    // Plan 1, MTN 500MB at the API tier's own price.
    chargedKobo: 470_00n,
    buy: (core, accountId, ending, requestId = '') =>
      core.purchase.buyData({ accountId, planId: 1n, phone: `0803123${ending}`, requestId }),
  },
  {
    product: 'electricity',
    // 1,000 Naira prepaid, 0.5% off.
    chargedKobo: 995_00n,
    buy: (core, accountId, ending, requestId = '') =>
      core.purchase.payElectricity({
        accountId,
        disco: 'ikedc',
        meterNumber: `4501234${ending}`,
        meterType: 'prepaid',
        amountKobo: 1_000_00n,
        requestId,
      }),
  },
  {
    product: 'cable',
    // DStv Padi, 2,500 Naira, 1% off.
    chargedKobo: 2_475_00n,
    buy: (core, accountId, ending, requestId = '') =>
      core.purchase.payCable({
        accountId,
        provider: 'dstv',
        smartCard: `704123${ending}`,
        packageCode: 'DSTV PADI',
        requestId,
      }),
  },
  {
    product: 'bulksms',
    // One page to two numbers at 3.50 Naira, no discount.
    chargedKobo: 7_00n,
    buy: (core, accountId, ending, requestId = '') =>
      core.purchase.sendBulkSms({
        accountId,
        sender: 'Shop',
        recipients: ['08031110000', `0807111${ending}`],
        message: 'Your order is ready.',
        requestId,
      }),
  },
];
