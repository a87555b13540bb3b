/**
 * Tier price rules as both stores keep them: a rule written before airtime, electricity and
 * cable had rules (no product, service or above-face-value) reads back as the data rule it
 * was, and a face-value rule keeps its product, service and above-face-value through a
 * SQLite row and a MongoDB document alike. (The conformance suite runs the stores whole.)
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import type { PriceRule, TierRecord } from '../../../core/domain/records.js';
import { type TierDoc, tierFromDoc, tierToDoc } from '../../../core/store/mongo/documents.js';
import { tierFromRow, tierToParams } from '../../../core/store/sqlite/rows.js';
import { suite } from '../../helpers/suite.js';

const test = suite('tier price rules in both stores');

const LEGACY_RULE = {
  network: 'mtn',
  planType: 'sme',
  marginBasisPoints: 500,
  marginKobo: 0,
  floorKobo: 0,
  ceilingKobo: 0,
};
const AS_DATA: PriceRule = {
  ...LEGACY_RULE,
  product: 'data',
  service: '',
  aboveFaceValue: false,
  marginKobo: kobo(0),
  floorKobo: kobo(0),
  ceilingKobo: kobo(0),
};
const CABLE: PriceRule = {
  product: 'cable',
  network: '',
  planType: '',
  service: 'dstv',
  marginBasisPoints: 50,
  marginKobo: kobo(10_00),
  floorKobo: kobo(0),
  ceilingKobo: kobo(0),
  aboveFaceValue: true,
};
const TIER: TierRecord = { tierId: 'api', name: 'API', apiAccess: true, discounts: [], priceRules: [AS_DATA, CABLE] };

test('SQLite: a rule kept before products had rules is a data rule; a cable rule round-trips', () => {
  const legacy = tierFromRow({
    tier_id: 'api',
    name: 'API',
    api_access: 1,
    discounts: '[]',
    price_rules: JSON.stringify([LEGACY_RULE]),
  });
  assert.equal(legacy.priceRules, [AS_DATA]);
  assert.equal(tierFromRow({ ...tierToParams(TIER), api_access: 1 }), TIER);
});

test('MongoDB: the same, through a document', () => {
  const doc = tierToDoc(TIER);
  assert.equal(tierFromDoc(doc), TIER);
  const legacy: TierDoc = {
    ...doc,
    price_rules: [
      { network: 'mtn', plan_type: 'sme', margin_basis_points: 500, margin_kobo: 0, floor_kobo: 0, ceiling_kobo: 0 },
    ],
  };
  assert.equal(tierFromDoc(legacy).priceRules, [AS_DATA]);
});

test.run();
