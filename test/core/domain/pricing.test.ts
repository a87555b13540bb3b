import * as assert from 'uvu/assert';
import { API_TIER_ID, defaultCatalog } from '../../../core/catalog/defaults.js';
import { type Kobo, kobo } from '../../../core/domain/money.js';
import { airtimeOrder, bulkSmsOrder, cableOrder, dataOrder, electricityOrder } from '../../../core/domain/orders.js';
import {
  applyDiscount,
  commissionExplaining,
  discountBasisPoints,
  faceValueCostAt,
  faceValuePriceFor,
  planPriceFor,
  priceFor,
} from '../../../core/domain/pricing.js';
import type { CostRule, DiscountRule, PlanRecord, PriceRule, TierRecord } from '../../../core/domain/records.js';
import { suite } from '../../helpers/suite.js';

function tier(discounts: DiscountRule[], tierId = 'test'): Pick<TierRecord, 'tierId' | 'discounts'> {
  return { tierId, discounts };
}

const specific = suite('tier discounts: the most specific rule wins');

const PRODUCT_WIDE_AND_MTN: DiscountRule[] = [
  { product: 'airtime', service: '', basisPoints: 100 },
  { product: 'airtime', service: 'mtn', basisPoints: 300 },
];

specific('a rule for the network beats the product-wide rule, whichever is listed first', () => {
  assert.is(discountBasisPoints(tier(PRODUCT_WIDE_AND_MTN), 'airtime', 'mtn'), 300);
  assert.is(discountBasisPoints(tier([...PRODUCT_WIDE_AND_MTN].reverse()), 'airtime', 'mtn'), 300);
});

specific('a network without its own rule gets the product-wide rule', () => {
  assert.is(discountBasisPoints(tier(PRODUCT_WIDE_AND_MTN), 'airtime', 'glo'), 100);
  assert.is(discountBasisPoints(tier([...PRODUCT_WIDE_AND_MTN].reverse()), 'airtime', 'glo'), 100);
});

specific('a rule of another product never applies', () => {
  assert.is(discountBasisPoints(tier(PRODUCT_WIDE_AND_MTN), 'data', 'mtn'), 0);
  assert.is(priceFor(tier(PRODUCT_WIDE_AND_MTN), 'cable', 'dstv', kobo(250_000)), 250_000);
});

specific('a rule for one network never applies to another', () => {
  const onlyGlo = tier([{ product: 'airtime', service: 'glo', basisPoints: 500 }]);
  assert.is(discountBasisPoints(onlyGlo, 'airtime', 'mtn'), 0);
  assert.is(priceFor(onlyGlo, 'airtime', 'mtn', kobo(10_000)), 10_000);
  assert.is(priceFor(onlyGlo, 'airtime', 'glo', kobo(10_000)), 9_500);
});

specific('a tier without discounts charges the face value', () => {
  assert.is(priceFor(tier([]), 'airtime', 'mtn', kobo(12_345)), 12_345);
});

specific.run();

const rounding = suite('discount rounding never gives away more than the rate');

rounding('3% of 9.99 Naira is 29.97 kobo, so 29 kobo come off, never 30', () => {
  assert.is(applyDiscount(kobo(999), 300), 970);
});

rounding('for every face value up to 100 Naira and common rates, the discount is the rate rounded down', () => {
  for (const basisPoints of [0, 1, 50, 100, 125, 250, 300, 333, 400, 500, 1_000, 5_000]) {
    for (let faceValueKobo = 1; faceValueKobo <= 10_000; faceValueKobo += 1) {
      const charged = applyDiscount(kobo(faceValueKobo), basisPoints);
      const discount = faceValueKobo - charged;
      // discount <= face * bp / 10000 < discount + 1, in integers.
      if (
        !(discount * 10_000 <= faceValueKobo * basisPoints && faceValueKobo * basisPoints < (discount + 1) * 10_000)
      ) {
        assert.unreachable(`${basisPoints} bp of ${faceValueKobo} kobo gave a discount of ${discount}`);
      }
      if (!Number.isSafeInteger(charged)) assert.unreachable(`charged ${charged} is not whole kobo`);
    }
  }
});

rounding('a large face value keeps exact integer arithmetic', () => {
  assert.is(applyDiscount(kobo(50_000_000_00), 50), 50_000_000_00 - 25_000_000);
});

rounding.run();

const plans = suite('data plan pricing: a tier price beats the discount');

const PLAN: PlanRecord = {
  planId: 9,
  network: 'mtn',
  label: '1GB',
  validity: '30 days',
  faceValueKobo: kobo(1_000_00),
  tierPricesKobo: { gold: kobo(900_00) },
  type: 'direct',
  sizeMb: 0,
  validityDays: 0,
  costsKobo: {},
  active: true,
  providerCode: '',
};

plans('a tier with its own plan price pays that price, not the discounted face value', () => {
  const gold = tier([{ product: 'data', service: '', basisPoints: 500 }], 'gold');
  assert.is(planPriceFor(gold, PLAN), 900_00);
});

plans('a tier without a plan price pays the face value less its data discount for the network', () => {
  const silver = tier([{ product: 'data', service: 'mtn', basisPoints: 250 }], 'silver');
  assert.is(planPriceFor(silver, PLAN), 975_00);
});

plans('a tier with neither pays the face value', () => {
  assert.is(planPriceFor(tier([], 'basic'), PLAN), 1_000_00);
});

plans.run();

const defaults = suite('the API tier of the default catalog prices every product');

const CATALOG = defaultCatalog();
const API_TIER = CATALOG.tiers.find((t) => t.tierId === API_TIER_ID)!;

/** [network, charged kobo for 100 Naira of airtime]: 3%, 5%, 3% and 4% off. */
const AIRTIME: ReadonlyArray<readonly [string, Kobo]> = [
  ['mtn', kobo(97_00)],
  ['glo', kobo(95_00)],
  ['airtel', kobo(97_00)],
  ['9mobile', kobo(96_00)],
];

for (const [network, charged] of AIRTIME) {
  defaults(`100 Naira of ${network} airtime costs ${charged / 100} Naira`, () => {
    const order = airtimeOrder({ network, phone: '08031234567', amountKobo: kobo(100_00) }, API_TIER);
    assert.is(order.faceValueKobo, 100_00);
    assert.is(order.chargedKobo, charged);
  });
}

defaults('every default plan has an API price below its face value, and that price is charged', () => {
  for (const plan of CATALOG.plans) {
    const apiPrice = plan.tierPricesKobo[API_TIER_ID];
    assert.ok(apiPrice !== undefined && apiPrice < plan.faceValueKobo, `plan ${plan.planId}`);
    assert.is(dataOrder({ planId: plan.planId, phone: '08031234567' }, plan, API_TIER).chargedKobo, apiPrice);
  }
});

defaults('the default plans cover all four networks with integer plan ids', () => {
  const networks = new Set(CATALOG.plans.map((p) => p.network));
  assert.equal([...networks].sort(), ['9mobile', 'airtel', 'glo', 'mtn']);
  assert.ok(CATALOG.plans.every((p) => Number.isSafeInteger(p.planId) && p.planId > 0));
  assert.is(new Set(CATALOG.plans.map((p) => p.planId)).size, CATALOG.plans.length);
});

defaults('1,000 Naira of electricity costs 995 Naira (0.5% off)', () => {
  const order = electricityOrder(
    { disco: 'ikedc', meterNumber: '45012345678', meterType: 'prepaid', amountKobo: kobo(1_000_00), phone: '' },
    API_TIER,
  );
  assert.is(order.chargedKobo, 995_00);
});

defaults('DStv Padi (2,500 Naira) costs 2,475 Naira (1% off)', () => {
  const order = cableOrder(
    { provider: 'dstv', smartCard: '7041234567', packageCode: 'DSTV PADI', phone: '' },
    CATALOG.cablePackages,
    API_TIER,
  );
  assert.is(order.chargedKobo, 2_475_00);
});

defaults('bulk SMS has no discount: 3.50 Naira a page', () => {
  const order = bulkSmsOrder(
    { sender: 'Shop', recipients: ['08031234567'], message: 'Hi' },
    CATALOG.smsRateKobo,
    API_TIER,
  );
  assert.is(CATALOG.smsRateKobo, 350);
  assert.is(order.chargedKobo, 350);
});

defaults('a tier without API access and the API tier are both seeded', () => {
  assert.ok(CATALOG.tiers.some((t) => !t.apiAccess));
  assert.is(API_TIER.apiAccess, true);
  assert.is(API_TIER.tierId, 'api');
});

defaults.run();

const commissions = suite('face-value costs: face value less the upstream commission');

const COST_RULES: CostRule[] = [
  { product: 'airtime', service: '', upstream: 'vtpass', commissionBasisPoints: 250 },
  { product: 'airtime', service: 'mtn', upstream: 'vtpass', commissionBasisPoints: 300 },
  { product: 'airtime', service: 'mtn', upstream: 'site', commissionBasisPoints: 100 },
];

commissions('the rule for the service wins over the product-wide one, per upstream', () => {
  const sale = (service: string) => ({ product: 'airtime' as const, service, faceValueKobo: kobo(1_000_00) });
  assert.is(faceValueCostAt(COST_RULES, sale('mtn'), 'vtpass'), 970_00);
  assert.is(faceValueCostAt(COST_RULES, sale('glo'), 'vtpass'), 975_00);
  assert.is(faceValueCostAt(COST_RULES, sale('mtn'), 'site'), 990_00);
  assert.is(faceValueCostAt(COST_RULES, sale('glo'), 'site'), undefined, 'no rule, no cost');
  assert.is(faceValueCostAt(COST_RULES, { ...sale('mtn'), product: 'cable' }, 'vtpass'), undefined);
});

commissions('the commission is rounded down, so the cost is never understated', () => {
  // 2.5% of 333 kobo is 8.325 kobo: the commission is 8, the cost 325.
  const cost = faceValueCostAt(COST_RULES, { product: 'airtime', service: 'glo', faceValueKobo: kobo(333) }, 'vtpass');
  assert.is(cost, 325);
});

commissions.run();

const faceRules = suite('face-value price rules: cost plus margin, within floor, ceiling and face value');

function faceRule(over: Partial<PriceRule>): PriceRule {
  return {
    product: 'airtime',
    network: '',
    planType: '',
    service: '',
    marginBasisPoints: 0,
    marginKobo: kobo(0),
    floorKobo: kobo(0),
    ceilingKobo: kobo(0),
    aboveFaceValue: false,
    ...over,
  };
}

const MTN_COSTS: CostRule[] = [
  { product: 'airtime', service: 'mtn', upstream: 'vtpass', commissionBasisPoints: 300 },
  { product: 'airtime', service: '', upstream: 'clubkonnect', commissionBasisPoints: 250 },
];
const MTN_1000 = { product: 'airtime', service: 'mtn', faceValueKobo: kobo(1_000_00) } as const;

faceRules('the cost is the highest over the upstreams; the margin percent is rounded down', () => {
  const t = {
    ...tier([{ product: 'airtime', service: 'mtn', basisPoints: 300 }]),
    priceRules: [faceRule({ marginBasisPoints: 33 })],
  };
  // ClubKonnect's 2.5% makes 975.00 the highest cost; 0.33% of it is 321.75 kobo, kept as 321.
  assert.is(faceValuePriceFor(t, MTN_1000, MTN_COSTS), 975_00 + 321);
});

faceRules('the rule for the service beats the product-wide one; a data rule does not apply', () => {
  const t = {
    ...tier([]),
    priceRules: [
      faceRule({ marginKobo: kobo(1_00) }),
      faceRule({ service: 'mtn', marginKobo: kobo(2_00) }),
      faceRule({ product: 'data', marginKobo: kobo(9_00) }),
    ],
  };
  assert.is(faceValuePriceFor(t, MTN_1000, MTN_COSTS), 977_00);
  assert.is(faceValuePriceFor(t, { ...MTN_1000, service: 'glo' }, MTN_COSTS), 976_00, 'only the product-wide cost');
});

faceRules('floor, ceiling, then the face value unless the rule allows more', () => {
  const priced = (rule: Partial<PriceRule>) =>
    faceValuePriceFor({ ...tier([]), priceRules: [faceRule(rule)] }, MTN_1000, MTN_COSTS);
  assert.is(priced({ floorKobo: kobo(990_00) }), 990_00);
  assert.is(priced({ marginKobo: kobo(20_00), ceilingKobo: kobo(980_00) }), 980_00);
  assert.is(priced({ marginKobo: kobo(50_00) }), 1_000_00, 'never above the face value by default');
  assert.is(priced({ marginKobo: kobo(50_00), aboveFaceValue: true }), 1_025_00);
});

faceRules('no rule, or no cost told: the tier discount, as before', () => {
  const discounted = tier([{ product: 'airtime', service: 'mtn', basisPoints: 300 }]);
  assert.is(faceValuePriceFor({ ...discounted, priceRules: [] }, MTN_1000, MTN_COSTS), 970_00);
  assert.is(
    faceValuePriceFor({ ...discounted, priceRules: [faceRule({ marginKobo: kobo(1) })] }, MTN_1000, []),
    970_00,
  );
});

faceRules.run();

const observed = suite('the commission that explains a stated cost');

observed('is the smallest rate whose rounded-down commission gives exactly the cost', () => {
  assert.is(commissionExplaining(kobo(1000_00), kobo(970_00)), 300);
  // 33,300 kobo at 2%: 666 kobo of commission; 2.01% would round down to 669.
  assert.is(commissionExplaining(kobo(333_00), kobo(326_34)), 200);
  // 50 Naira less 1 kobo: 0.02% (1 kobo) is the smallest rate that gives it.
  assert.is(commissionExplaining(kobo(50_00), kobo(49_99)), 2);
  assert.is(commissionExplaining(kobo(1000_00), kobo(1000_00)), 0);
  // Whatever it returns, the rule it makes reproduces the cost.
  for (const [face, cost] of [
    [1000_00, 975_00],
    [777_77, 760_00],
    [50_00, 48_50],
  ] as const) {
    const bp = commissionExplaining(kobo(face), kobo(cost));
    if (bp === undefined) continue;
    const rule: CostRule = { product: 'airtime', service: 'mtn', upstream: 'vtpass', commissionBasisPoints: bp };
    assert.is(
      faceValueCostAt([rule], { product: 'airtime', service: 'mtn', faceValueKobo: kobo(face) }, 'vtpass'),
      cost,
    );
  }
});

observed('explains nothing above face value, beyond 50%, or between two rates', () => {
  assert.is(commissionExplaining(kobo(1000_00), kobo(1001_00)), undefined, 'a fee on top');
  assert.is(commissionExplaining(kobo(1000_00), kobo(400_00)), undefined, 'a 60% commission is a typo');
  // 2.5% of 333 Naira rounded to the kobo (833): 2.51% gives 835 rounded down.
  assert.is(commissionExplaining(kobo(333_00), kobo(324_67)), undefined);
  assert.is(commissionExplaining(kobo(0), kobo(0)), undefined);
});

observed.run();
