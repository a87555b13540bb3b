/**
 * AdminService over real gRPC: accounts and tiers, key pairs and IP locks, wallet credits and
 * the ledger, the catalog (tiers, plans, cable packages, SMS rate) and the operators' calls (pending list, ledger
 * check).
 */

import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { Product, TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, ledgerOf, startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const PUBLIC_KEY = /^pk_[0-9a-f]{24}$/;
const SECRET_KEY = /^sk_[A-Za-z0-9_-]{43}$/;

let core!: TestCore;

function withCore(name: string) {
  const test = suite(name);
  test.before(async () => {
    core = await startCore();
  });
  test.after(async () => {
    await core.close();
  });
  return test;
}

const accounts = withCore('AdminService: accounts and tiers of accounts');

accounts('CreateAccount on the default tier makes a basic account with no key and no money', async () => {
  const { account, issuedKey } = await core.admin.createAccount({ name: 'Ada Stores' });
  assert.match(account!.accountId, /^acc_[0-9a-f]{16}$/);
  assert.is(account!.name, 'Ada Stores');
  assert.is(account!.tierId, 'basic');
  assert.is(account!.balanceKobo, 0n);
  assert.is(issuedKey, undefined);
  assert.equal((await core.admin.listApiKeys({ accountId: account!.accountId })).keys, []);
});

accounts('CreateAccount on the API tier issues a key pair, shown once', async () => {
  const { account, issuedKey } = await core.admin.createAccount({ name: 'Bola Telecoms', tierId: 'api' });
  assert.is(account!.tierId, 'api');
  assert.match(issuedKey!.publicKey, PUBLIC_KEY);
  assert.match(issuedKey!.secretKey, SECRET_KEY);
  const { keys } = await core.admin.listApiKeys({ accountId: account!.accountId });
  assert.equal(
    keys.map((k) => k.publicKey),
    [issuedKey!.publicKey],
  );
  assert.not.ok(
    JSON.stringify(keys, (_, v) => (typeof v === 'bigint' ? String(v) : v)).includes(issuedKey!.secretKey),
    'listing keys never shows a secret',
  );
});

accounts('CreateAccount refuses an unknown tier and an empty name', async () => {
  const badTier = await rejection(core.admin.createAccount({ name: 'X', tierId: 'platinum' }));
  assert.is(badTier.code, Code.InvalidArgument);
  assert.equal(
    badTier.violations.map((v) => v.field),
    ['tier_id'],
  );
  const badName = await rejection(core.admin.createAccount({ name: '  ' }));
  assert.is(badName.code, Code.InvalidArgument);
  assert.equal(
    badName.violations.map((v) => v.field),
    ['name'],
  );
});

accounts('GetAccount shows the account with its balance; an unknown id is NOT_FOUND', async () => {
  const { account } = await core.admin.createAccount({ name: 'Chidi Ventures' });
  await core.admin.creditWallet({ accountId: account!.accountId, amountKobo: 5_000_00n });
  const got = await core.admin.getAccount({ accountId: account!.accountId });
  assert.equal(
    [got.account!.name, got.account!.tierId, got.account!.balanceKobo],
    ['Chidi Ventures', 'basic', 5_000_00n],
  );
  assert.ok(got.account!.createdAt, 'created_at is set');
  const missing = await rejection(core.admin.getAccount({ accountId: 'acc_0000000000000000' }));
  assert.is(missing.code, Code.NotFound);
  assert.is(missing.reason, 'NOT_FOUND');
});

accounts('SetAccountTier basic -> api issues the first key pair once; moving again issues none', async () => {
  const { account } = await core.admin.createAccount({ name: 'Dayo Links' });
  const accountId = account!.accountId;
  const toApi = await core.admin.setAccountTier({ accountId, tierId: 'api' });
  assert.is(toApi.account!.tierId, 'api');
  assert.match(toApi.issuedKey!.publicKey, PUBLIC_KEY);
  assert.match(toApi.issuedKey!.secretKey, SECRET_KEY);
  const verified = await core.auth.verifyKeyPair({
    publicKey: toApi.issuedKey!.publicKey,
    secretKey: toApi.issuedKey!.secretKey,
    clientIp: '203.0.113.7',
  });
  assert.is(verified.accountId, accountId);

  const again = await core.admin.setAccountTier({ accountId, tierId: 'api' });
  assert.is(again.issuedKey, undefined);
  const away = await core.admin.setAccountTier({ accountId, tierId: 'reseller' });
  assert.equal([away.account!.tierId, away.issuedKey], ['reseller', undefined]);
  const back = await core.admin.setAccountTier({ accountId, tierId: 'api' });
  assert.is(back.issuedKey, undefined);
  assert.is((await core.admin.listApiKeys({ accountId })).keys.length, 1);
});

accounts('SetAccountTier refuses an unknown tier and an unknown account', async () => {
  const { account } = await core.admin.createAccount({ name: 'Efe Mobile' });
  const badTier = await rejection(core.admin.setAccountTier({ accountId: account!.accountId, tierId: 'nope' }));
  assert.is(badTier.code, Code.InvalidArgument);
  const badAccount = await rejection(core.admin.setAccountTier({ accountId: 'acc_ffffffffffffffff', tierId: 'api' }));
  assert.is(badAccount.code, Code.NotFound);
  assert.is((await core.admin.getAccount({ accountId: account!.accountId })).account!.tierId, 'basic');
});

accounts.run();

const keys = withCore('AdminService: key pairs and IP locks');

keys('CreateApiKey adds a second working pair to an API account', async () => {
  const api = await core.createApiAccount();
  const { issuedKey } = await core.admin.createApiKey({ accountId: api.accountId });
  assert.match(issuedKey!.publicKey, PUBLIC_KEY);
  assert.match(issuedKey!.secretKey, SECRET_KEY);
  assert.is.not(issuedKey!.publicKey, api.publicKey);
  const { keys: listed } = await core.admin.listApiKeys({ accountId: api.accountId });
  assert.equal(listed.map((k) => k.publicKey).sort(), [api.publicKey, issuedKey!.publicKey].sort());
  assert.ok(listed.every((k) => k.accountId === api.accountId && !k.revoked));
  const verified = await core.auth.verifyKeyPair({ publicKey: issuedKey!.publicKey, secretKey: issuedKey!.secretKey });
  assert.is(verified.accountId, api.accountId);
});

keys('CreateApiKey refuses an account without API access', async () => {
  const { account } = await core.admin.createAccount({ name: 'Basic Only' });
  const refused = await rejection(core.admin.createApiKey({ accountId: account!.accountId }));
  assert.is(refused.code, Code.FailedPrecondition);
  assert.is(refused.reason, 'FAILED_PRECONDITION');
  assert.equal((await core.admin.listApiKeys({ accountId: account!.accountId })).keys, []);
});

keys('RevokeApiKey marks the key revoked; an unknown key is NOT_FOUND', async () => {
  const api = await core.createApiAccount();
  const { key } = await core.admin.revokeApiKey({ publicKey: api.publicKey });
  assert.equal([key!.publicKey, key!.revoked], [api.publicKey, true]);
  assert.is((await core.admin.listApiKeys({ accountId: api.accountId })).keys[0]!.revoked, true);
  const missing = await rejection(core.admin.revokeApiKey({ publicKey: 'pk_000000000000000000000000' }));
  assert.is(missing.code, Code.NotFound);
});

keys('SetApiKeyIpLock locks a key to addresses and unlocks it with an empty list', async () => {
  const api = await core.createApiAccount();
  const locked = await core.admin.setApiKeyIpLock({
    publicKey: api.publicKey,
    allowedIps: ['203.0.113.7', '::ffff:198.51.100.2', '203.0.113.7'],
  });
  assert.equal(locked.key!.allowedIps, ['203.0.113.7', '198.51.100.2']);
  const unlocked = await core.admin.setApiKeyIpLock({ publicKey: api.publicKey, allowedIps: [] });
  assert.equal(unlocked.key!.allowedIps, []);
});

keys('SetApiKeyIpLock refuses something that is not an IP address, naming its index', async () => {
  const api = await core.createApiAccount();
  const bad = await rejection(
    core.admin.setApiKeyIpLock({ publicKey: api.publicKey, allowedIps: ['203.0.113.7', 'example.com'] }),
  );
  assert.is(bad.code, Code.InvalidArgument);
  assert.equal(
    bad.violations.map((v) => v.field),
    ['allowed_ips[1]'],
  );
  assert.equal((await core.admin.listApiKeys({ accountId: api.accountId })).keys[0]!.allowedIps, []);
});

keys.run();

const wallet = withCore('AdminService: wallet credits and the ledger');

wallet('CreditWallet adds money and writes a credit entry', async () => {
  const { account } = await core.admin.createAccount({ name: 'Funded' });
  const accountId = account!.accountId;
  const first = await core.admin.creditWallet({ accountId, amountKobo: 10_000_00n, memo: 'bank transfer 1' });
  assert.is(first.balanceKobo, 10_000_00n);
  assert.equal(
    [first.entry!.kind, first.entry!.amountKobo, first.entry!.balanceAfterKobo, first.entry!.memo],
    ['credit', 10_000_00n, 10_000_00n, 'bank transfer 1'],
  );
  const second = await core.admin.creditWallet({ accountId, amountKobo: 50n });
  assert.is(second.balanceKobo, 10_000_50n);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 10_000_50n);
  await assertLedgerInvariant(core, accountId);
});

wallet('CreditWallet retried with the same reference credits once and answers the first credit', async () => {
  const { account } = await core.admin.createAccount({ name: 'Retried' });
  const accountId = account!.accountId;
  const request = { accountId, amountKobo: 25_000_00n, memo: 'GTB transfer 42', reference: 'GTB-000042' };
  const first = await core.admin.creditWallet(request);
  assert.is(first.replayed, false);
  assert.is(first.entry!.reference, 'GTB-000042');
  await core.admin.creditWallet({ accountId, amountKobo: 1_00n });
  const retried = await core.admin.creditWallet(request);
  assert.is(retried.replayed, true);
  assert.is(retried.balanceKobo, 25_000_00n, 'the balance the first credit left');
  assert.equal(retried.entry, first.entry);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 25_001_00n);
  assert.is((await ledgerOf(core, accountId)).length, 2);

  const otherAmount = await rejection(core.admin.creditWallet({ ...request, amountKobo: 30_000_00n }));
  assert.is(otherAmount.code, Code.InvalidArgument);
  assert.is(otherAmount.reason, 'IDEMPOTENCY_KEY_REUSED');
  assert.match(otherAmount.message, /GTB-000042 already credited 2500000 kobo to the live wallet/);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 25_001_00n);
  await assertLedgerInvariant(core, accountId);
});

wallet('CreditWallet without a reference makes one up, different each time', async () => {
  const { account } = await core.admin.createAccount({ name: 'Unreferenced' });
  const accountId = account!.accountId;
  const a = await core.admin.creditWallet({ accountId, amountKobo: 100n });
  const b = await core.admin.creditWallet({ accountId, amountKobo: 100n });
  assert.match(a.entry!.reference, /^CR/);
  assert.is.not(a.entry!.reference, b.entry!.reference);
  assert.is(b.replayed, false);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 200n);
});

for (const reference of ['with space', 'x'.repeat(65), 'tab\there', 'naïra']) {
  wallet(
    `CreditWallet refuses the reference ${JSON.stringify(reference.slice(0, 12))} and changes nothing`,
    async () => {
      const { account } = await core.admin.createAccount({ name: 'Badly referenced' });
      const refused = await rejection(
        core.admin.creditWallet({ accountId: account!.accountId, amountKobo: 100n, reference }),
      );
      assert.is(refused.code, Code.InvalidArgument);
      assert.equal(
        refused.violations.map((v) => v.field),
        ['reference'],
      );
      assert.equal(await ledgerOf(core, account!.accountId), []);
    },
  );
}

const BAD_CREDITS: ReadonlyArray<readonly [string, bigint]> = [
  ['zero', 0n],
  ['a negative amount', -100n],
  ['more than 100 million Naira', 10_000_000_001n],
  ['beyond the safe integer range', 2n ** 62n],
];

for (const [what, amountKobo] of BAD_CREDITS) {
  wallet(`CreditWallet refuses ${what} and changes nothing`, async () => {
    const { account } = await core.admin.createAccount({ name: 'Unfunded' });
    const refused = await rejection(core.admin.creditWallet({ accountId: account!.accountId, amountKobo }));
    assert.is(refused.code, Code.InvalidArgument);
    assert.equal(
      refused.violations.map((v) => v.field),
      ['amount'],
    );
    assert.equal(await ledgerOf(core, account!.accountId), []);
  });
}

wallet('ListLedgerEntries pages newest first with a cursor', async () => {
  const { account } = await core.admin.createAccount({ name: 'Paged' });
  const accountId = account!.accountId;
  for (let i = 1; i <= 5; i += 1)
    await core.admin.creditWallet({ accountId, amountKobo: BigInt(i * 100), memo: `credit ${i}` });
  const pages: string[][] = [];
  let pageToken = '';
  do {
    const page = await core.admin.listLedgerEntries({ accountId, pageSize: 2, pageToken });
    assert.ok(page.entries.length <= 2);
    pages.push(page.entries.map((e) => e.memo));
    pageToken = page.nextPageToken;
  } while (pageToken);
  assert.equal(pages.flat(), ['credit 5', 'credit 4', 'credit 3', 'credit 2', 'credit 1']);
  assert.equal(
    pages.map((p) => p.length),
    [2, 2, 1],
  );
});

wallet('ListLedgerEntries refuses a page size over 500 and a cursor it did not issue', async () => {
  const { account } = await core.admin.createAccount({ name: 'Bad paging' });
  const tooBig = await rejection(core.admin.listLedgerEntries({ accountId: account!.accountId, pageSize: 501 }));
  assert.is(tooBig.code, Code.InvalidArgument);
  assert.equal(
    tooBig.violations.map((v) => v.field),
    ['page_size'],
  );
  const badCursor = await rejection(
    core.admin.listLedgerEntries({ accountId: account!.accountId, pageToken: 'not-a-cursor' }),
  );
  assert.is(badCursor.code, Code.InvalidArgument);
  assert.equal(
    badCursor.violations.map((v) => v.field),
    ['page_token'],
  );
});

wallet.run();

const catalog = withCore('AdminService: tiers, plans, cable packages and the SMS rate');

catalog('ListTiers shows the seeded tiers with their discounts', async () => {
  const { tiers } = await core.admin.listTiers({});
  const byId = new Map(tiers.map((t) => [t.tierId, t]));
  assert.is(byId.get('basic')!.apiAccess, false);
  assert.is(byId.get('api')!.apiAccess, true);
  assert.is(byId.get('api')!.name, 'API Client');
  const mtn = byId.get('api')!.discounts.find((d) => d.product === Product.AIRTIME && d.service === 'mtn');
  assert.is(mtn!.basisPoints, 300);
});

catalog('UpsertTier adds a tier whose discount prices the next purchase', async () => {
  const { tier } = await core.admin.upsertTier({
    tier: {
      tierId: 'gold',
      name: 'Gold',
      apiAccess: false,
      discounts: [{ product: Product.AIRTIME, service: 'mtn', basisPoints: 250 }],
    },
  });
  assert.equal([tier!.tierId, tier!.name, tier!.discounts.length], ['gold', 'Gold', 1]);
  assert.ok((await core.admin.listTiers({})).tiers.some((t) => t.tierId === 'gold'));
  const { account } = await core.admin.createAccount({ name: 'Gold Shop', tierId: 'gold' });
  await core.admin.creditWallet({ accountId: account!.accountId, amountKobo: 1_000_00n });
  const bought = await core.purchase.buyAirtime({
    accountId: account!.accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 100_00n,
  });
  assert.is(bought.transaction!.chargedKobo, 97_50n);
  await assertLedgerInvariant(core, account!.accountId);
});

const BAD_TIERS = [
  {
    what: 'a discount over 50%',
    discount: { product: Product.AIRTIME, service: '', basisPoints: 5_001 },
    field: 'tier.discounts[0].basis_points',
  },
  {
    what: 'a negative discount',
    discount: { product: Product.AIRTIME, service: '', basisPoints: -1 },
    field: 'tier.discounts[0].basis_points',
  },
  {
    what: 'a service of another product',
    discount: { product: Product.AIRTIME, service: 'dstv', basisPoints: 100 },
    field: 'tier.discounts[0].service',
  },
  {
    what: 'a discount without a product',
    discount: { product: Product.UNSPECIFIED, service: '', basisPoints: 100 },
    field: 'tier.discounts[0].product',
  },
];

for (const { what, discount, field } of BAD_TIERS) {
  catalog(`UpsertTier refuses ${what} (INVALID_ARGUMENT on ${field})`, async () => {
    const refused = await rejection(
      core.admin.upsertTier({ tier: { tierId: 'typo', name: 'Typo', apiAccess: false, discounts: [discount] } }),
    );
    assert.is(refused.code, Code.InvalidArgument);
    assert.is(refused.reason, 'INVALID_PARAMETER');
    assert.equal(
      refused.violations.map((v) => v.field),
      [field],
    );
    assert.not.ok((await core.admin.listTiers({})).tiers.some((t) => t.tierId === 'typo'));
  });
}

catalog("ListCatalogPlans lists every plan, or one network's", async () => {
  const all = (await core.admin.listCatalogPlans({})).plans;
  assert.equal([...new Set(all.map((p) => p.network))].sort(), ['9mobile', 'airtel', 'glo', 'mtn']);
  const plan1 = all.find((p) => p.planId === 1n)!;
  assert.equal(Object.fromEntries(plan1.tierPrices.map((tp) => [tp.tierId, tp.priceKobo])), {
    reseller: 490_00n,
    api: 470_00n,
  });
  const airtel = (await core.admin.listCatalogPlans({ network: 'airtel' })).plans;
  assert.ok(airtel.length > 0 && airtel.every((p) => p.network === 'airtel'));
});

catalog('UpsertPlan with plan_id 0 allocates a new id; upserting that id again keeps it', async () => {
  const before = (await core.admin.listCatalogPlans({})).plans;
  const created = (
    await core.admin.upsertPlan({
      plan: {
        planId: 0n,
        network: 'mtn',
        label: '40GB',
        validity: '30 days',
        faceValueKobo: 11_000_00n,
        tierPrices: [{ tierId: 'api', priceKobo: 10_500_00n }],
        active: true,
      },
    })
  ).plan!;
  assert.ok(created.planId > 0n);
  assert.not.ok(
    before.some((p) => p.planId === created.planId),
    'the id is new',
  );

  const renamed = (await core.admin.upsertPlan({ plan: { ...created, label: '40GB Monthly' } })).plan!;
  assert.is(renamed.planId, created.planId);
  const after = (await core.admin.listCatalogPlans({})).plans;
  assert.is(after.length, before.length + 1);
  assert.is(after.find((p) => p.planId === created.planId)!.label, '40GB Monthly');

  const api = await core.createApiAccount({ balanceKobo: 20_000_00 });
  const offered = (await core.purchase.listPlans({ accountId: api.accountId, network: 'mtn' })).plans.find(
    (p) => p.planId === created.planId,
  );
  assert.is(offered!.priceKobo, 10_500_00n);
  const bought = await core.purchase.buyData({
    accountId: api.accountId,
    planId: created.planId,
    phone: '08031234567',
  });
  assert.equal(
    [bought.transaction!.chargedKobo, bought.transaction!.planLabel],
    [10_500_00n, '40GB Monthly (30 days)'],
  );

  await core.admin.upsertPlan({ plan: { ...renamed, active: false } });
  assert.not.ok(
    (await core.purchase.listPlans({ accountId: api.accountId, network: 'mtn' })).plans.some(
      (p) => p.planId === created.planId,
    ),
    'an inactive plan is not offered',
  );
  await assertLedgerInvariant(core, api.accountId);
});

catalog('UpsertPlan refuses an unknown network and a price for an unknown tier', async () => {
  const refused = await rejection(
    core.admin.upsertPlan({
      plan: {
        planId: 0n,
        network: 'ntel',
        label: '1GB',
        validity: '1 day',
        faceValueKobo: 300_00n,
        tierPrices: [{ tierId: 'platinum', priceKobo: 200_00n }],
        active: true,
      },
    }),
  );
  assert.is(refused.code, Code.InvalidArgument);
  assert.equal(
    refused.violations.map((v) => v.field),
    ['plan.network', 'plan.tier_prices'],
  );
});

catalog("ListCablePackages lists the spec packages, or one provider's", async () => {
  assert.is((await core.admin.listCablePackages({})).packages.length, 13);
  const gotv = (await core.admin.listCablePackages({ provider: 'gotv' })).packages;
  assert.equal(gotv.map((p) => [p.packageCode, p.priceKobo]).sort(), [
    ['GOTV JINJA', 2_715_00n],
    ['GOTV JOLLI', 4_085_00n],
    ['GOTV MAX', 5_500_00n],
    ['GOTV SMALLIE', 1_575_00n],
  ]);
});

catalog('UpsertCablePackage adds a package that can be bought, and changes a price', async () => {
  const added = (
    await core.admin.upsertCablePackage({
      package: { provider: 'dstv', packageCode: 'DSTV ASIA', name: 'DStv Asia', priceKobo: 8_300_00n, active: true },
    })
  ).package!;
  assert.equal([added.provider, added.packageCode, added.priceKobo], ['dstv', 'DSTV ASIA', 8_300_00n]);
  await core.admin.upsertCablePackage({
    package: { provider: 'gotv', packageCode: 'GOTV MAX', name: 'GOtv Max', priceKobo: 6_000_00n, active: true },
  });
  const gotvMax = (await core.admin.listCablePackages({ provider: 'gotv' })).packages.find(
    (p) => p.packageCode === 'GOTV MAX',
  );
  assert.is(gotvMax!.priceKobo, 6_000_00n);

  const api = await core.createApiAccount({ balanceKobo: 20_000_00 });
  const asia = await core.purchase.payCable({
    accountId: api.accountId,
    provider: 'dstv',
    smartCard: '7041234567',
    packageCode: 'DSTV ASIA',
  });
  assert.equal([asia.transaction!.faceValueKobo, asia.transaction!.chargedKobo], [8_300_00n, 8_217_00n]);
  const max = await core.purchase.payCable({
    accountId: api.accountId,
    provider: 'gotv',
    smartCard: '7041234567',
    packageCode: 'GOTV MAX',
  });
  assert.is(max.transaction!.faceValueKobo, 6_000_00n);
  await assertLedgerInvariant(core, api.accountId);
});

catalog('UpsertCablePackage refuses an unknown provider and a zero price', async () => {
  const refused = await rejection(
    core.admin.upsertCablePackage({
      package: { provider: 'showmax', packageCode: 'X', name: 'X', priceKobo: 0n, active: true },
    }),
  );
  assert.is(refused.code, Code.InvalidArgument);
  assert.equal(
    refused.violations.map((v) => v.field),
    ['package.provider', 'package.price_kobo'],
  );
});

catalog('GetSmsRate is 3.50 Naira by default; SetSmsRate changes what the next SMS costs', async () => {
  assert.is((await core.admin.getSmsRate({})).koboPerPage, 350n);
  assert.is((await core.admin.setSmsRate({ koboPerPage: 400n })).koboPerPage, 400n);
  assert.is((await core.admin.getSmsRate({})).koboPerPage, 400n);
  const api = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const sent = await core.purchase.sendBulkSms({
    accountId: api.accountId,
    sender: 'Shop',
    recipients: ['08031234567', '08021234567'],
    message: 'Hi',
  });
  assert.is(sent.transaction!.chargedKobo, 800n);
  await core.admin.setSmsRate({ koboPerPage: 350n });
  await assertLedgerInvariant(core, api.accountId);
});

catalog('SetSmsRate refuses zero and more than 1,000 Naira a page, keeping the rate', async () => {
  for (const koboPerPage of [0n, -1n, 1_000_01n]) {
    const refused = await rejection(core.admin.setSmsRate({ koboPerPage }));
    assert.is(refused.code, Code.InvalidArgument);
    assert.equal(
      refused.violations.map((v) => v.field),
      ['kobo_per_page'],
    );
  }
  assert.is((await core.admin.getSmsRate({})).koboPerPage, 350n);
});

catalog.run();

const operations = withCore('AdminService: pending transactions and the ledger check');

operations('ListPendingTransactions lists a purchase whose outcome is unknown, until recovery settles it', async () => {
  const api = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const pending = (
    await core.purchase.buyAirtime({
      accountId: api.accountId,
      network: 'mtn',
      phone: '08031238888',
      amountKobo: 100_00n,
    })
  ).transaction!;
  assert.is(pending.status, TransactionStatus.PENDING);
  const listed = await core.admin.listPendingTransactions({});
  assert.equal(
    listed.transactions.map((t) => t.reference),
    [pending.reference],
  );
  assert.is((await core.admin.listPendingTransactions({ needsAttentionOnly: true })).transactions.length, 0);
  await core.recoverNow();
  assert.equal((await core.admin.listPendingTransactions({})).transactions, []);
});

operations('CheckLedger finds nothing wrong after credits, purchases, failures and refunds', async () => {
  const api = await core.createApiAccount({ balanceKobo: 5_000_00 });
  await core.purchase.buyAirtime({
    accountId: api.accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 100_00n,
  });
  await rejection(
    core.purchase.buyAirtime({ accountId: api.accountId, network: 'mtn', phone: '08031239999', amountKobo: 100_00n }),
  );
  await core.purchase.buyAirtime({
    accountId: api.accountId,
    network: 'mtn',
    phone: '08031237777',
    amountKobo: 100_00n,
  });
  const beforeRecovery = await core.admin.checkLedger({});
  assert.is(beforeRecovery.pendingCount, 1n);
  await core.recoverNow();
  const audit = await core.admin.checkLedger({});
  assert.is(audit.violationCount, 0n, JSON.stringify(audit.violations));
  assert.equal(audit.violations, []);
  assert.ok(audit.accountsChecked >= 1n && audit.transactionsChecked >= 3n && audit.entriesChecked >= 5n);
  assert.is(audit.pendingCount, 0n);
  await assertLedgerInvariant(core, api.accountId);
});

operations.run();
