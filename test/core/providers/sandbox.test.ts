import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import type { ProductName, PurchaseDetails } from '../../../core/domain/products.js';
import type { ProviderOutcome, ProviderRequest } from '../../../core/providers/port.js';
import {
  createSandbox,
  MAX_RECORDED_CALLS,
  SANDBOX_TARIFF_KOBO_PER_KWH,
} from '../../../core/providers/sandbox/index.js';
import { suite } from '../../helpers/suite.js';

const TOKEN = /^\d{4}(-\d{4}){4}$/;
const UNITS = /^(\d+\.\d) kWh$/;
const PROVIDER_REFERENCE = /^SBX-[0-9A-F]{12}$/;

function signal(): AbortSignal {
  return new AbortController().signal;
}

/** A valid request of each product whose recipient (or last bulk SMS recipient) ends in `ending`. */
function requestFor(product: ProductName, ending: string, reference = `TXN-${product}-${ending}`): ProviderRequest {
  const base = { reference, product, faceValueKobo: kobo(500_000) };
  const details: Record<ProductName, { service: string; recipient: string; details: PurchaseDetails }> = {
    airtime: { service: 'mtn', recipient: `0803123${ending}`, details: {} },
    data: { service: 'glo', recipient: `0805123${ending}`, details: { planId: 3, planLabel: '1GB - 30 days' } },
    electricity: {
      service: 'ikedc',
      recipient: `4501234${ending}`,
      details: { meterType: 'prepaid', customerPhone: '08031234567' },
    },
    cable: {
      service: 'dstv',
      recipient: `704123${ending}`,
      details: { packageCode: 'DSTV PADI', planLabel: 'DStv Padi' },
    },
    bulksms: {
      service: 'sms',
      recipient: '',
      details: {
        sender: 'Shop',
        message: 'Hello',
        pages: 1,
        recipients: ['08031110000', '08021110001', `0807111${ending}`],
      },
    },
  };
  return { ...base, ...details[product] };
}

/** The full delivered result each product must carry. */
function assertFullResult(product: ProductName, outcome: ProviderOutcome): void {
  if (outcome.kind !== 'delivered') return assert.unreachable(`expected delivered, got ${outcome.kind}`);
  assert.match(outcome.result.providerReference ?? '', PROVIDER_REFERENCE);
  if (product === 'electricity') {
    assert.match(outcome.result.token ?? '', TOKEN);
    assert.match(outcome.result.units ?? '', UNITS);
  } else {
    assert.is(outcome.result.token, undefined);
    assert.is(outcome.result.units, undefined);
  }
  assert.is(outcome.result.sent, product === 'bulksms' ? 3 : undefined);
}

const PRODUCTS: readonly ProductName[] = ['airtime', 'data', 'electricity', 'cable', 'bulksms'];
const CASES = [
  { ending: '1234', purchase: 'delivered', query: 'delivered' },
  { ending: '9999', purchase: 'failed', query: 'failed' },
  { ending: '8888', purchase: 'unknown', query: 'delivered' },
  { ending: '7777', purchase: 'unknown', query: 'failed' },
] as const;

const outcomes = suite('sandbox outcomes');

/** An outcome without the answer's body beside it. */
function withoutRaw(outcome: ProviderOutcome): ProviderOutcome {
  const { raw: _raw, ...rest } = outcome;
  return rest;
}

for (const product of PRODUCTS) {
  for (const { ending, purchase, query } of CASES) {
    outcomes(`${product} to a number ending in ${ending}: purchase is ${purchase}, re-query is ${query}`, async () => {
      const sandbox = createSandbox();
      const request = requestFor(product, ending);
      const bought = await sandbox[product].purchase(request, signal());
      const queried = await sandbox[product].query(request, signal());

      assert.is(bought.kind, purchase);
      assert.is(queried.kind, query);
      if (bought.kind !== 'delivered') assert.ok(bought.reason.length > 10, 'a failure or unknown carries a reason');
      if (queried.kind !== 'delivered') assert.ok(queried.reason.length > 10, 'a failure carries a reason');
      if (queried.kind === 'delivered') assertFullResult(product, queried);
      if (bought.kind === 'delivered')
        assert.equal(withoutRaw(queried), bought, 'a re-query repeats the purchase result');
      // A re-query carries the body a real upstream would have sent (kept for the console).
      assert.match(queried.raw?.body ?? '', /^\{"sandbox":true,"status":"/);
      assert.is(sandbox[product].name, 'sandbox');
      assert.equal(sandbox.purchases, [request]);
      assert.equal(sandbox.queries, [request]);
    });
  }
}

outcomes('the outcome of 8888 names the missing answer, not a failure', async () => {
  const outcome = await createSandbox().airtime.purchase(requestFor('airtime', '8888'), signal());
  assert.is(outcome.kind, 'unknown');
  if (outcome.kind === 'unknown') assert.match(outcome.reason, /no answer from the provider in time/i);
});

outcomes('a re-query after a restart gives the same result as the first answer', async () => {
  const request = requestFor('electricity', '1234');
  const first = await createSandbox().electricity.purchase(request, signal());
  const later = await createSandbox().electricity.query(request, signal());
  assert.equal(withoutRaw(later), first);
});

outcomes('a request routed to the wrong family is rejected as a bug and not recorded', async () => {
  const sandbox = createSandbox();
  try {
    await sandbox.airtime.purchase(requestFor('data', '1234'), signal());
    assert.unreachable('should reject');
  } catch (error) {
    assert.instance(error, Error);
    assert.match((error as Error).message, /airtime provider was called with a data request/);
  }
  assert.is(sandbox.purchases.length, 0);
});

outcomes('an out-of-range delay is refused when the sandbox is built', () => {
  assert.throws(() => createSandbox({ delayMs: -1 }), /delayMs/);
  assert.throws(() => createSandbox({ delayMs: 1.5 }), /delayMs/);
});

outcomes.run();

const electricity = suite('sandbox electricity');

async function electricityResult(
  reference: string,
  faceValueKobo = 500_000,
  service = 'ikedc',
  meterType: 'prepaid' | 'postpaid' = 'prepaid',
) {
  const request = {
    ...requestFor('electricity', '1234', reference),
    faceValueKobo: kobo(faceValueKobo),
    service,
    details: { meterType },
  };
  const outcome = await createSandbox().electricity.purchase(request, signal());
  if (outcome.kind !== 'delivered') throw new Error(`expected delivered, got ${outcome.kind}`);
  return outcome.result;
}

electricity('the token is 20 digits in groups of four, the same for the same reference', async () => {
  const first = await electricityResult('TXN-A');
  const again = await electricityResult('TXN-A');
  assert.match(first.token ?? '', TOKEN);
  assert.is(again.token, first.token);
  assert.is(again.providerReference, first.providerReference);
});

electricity('different references get different tokens and provider references', async () => {
  const tokens = new Set<string>();
  const providerReferences = new Set<string>();
  for (let i = 0; i < 50; i += 1) {
    const result = await electricityResult(`TXN-${i}`);
    tokens.add(result.token ?? '');
    providerReferences.add(result.providerReference ?? '');
  }
  assert.is(tokens.size, 50);
  assert.is(providerReferences.size, 50);
});

electricity('units are the face value over the disco tariff, one decimal, rounded down', async () => {
  for (const [disco, tariffKoboPerKwh] of Object.entries(SANDBOX_TARIFF_KOBO_PER_KWH)) {
    assert.ok(tariffKoboPerKwh >= 20_000 && tariffKoboPerKwh <= 22_500, `${disco} tariff is realistic`);
    const result = await electricityResult('TXN-U', 500_000, disco);
    const units = Number(UNITS.exec(result.units ?? '')?.[1]);
    const exact = 500_000 / tariffKoboPerKwh;
    assert.ok(units <= exact && exact - units < 0.1, `${disco}: ${result.units} for ${exact} kWh`);
  }
});

electricity('more money buys more units', async () => {
  const amountsKobo = [100_000, 500_000, 2_000_000, 10_000_000];
  const units: number[] = [];
  for (const amountKobo of amountsKobo) {
    const result = await electricityResult('TXN-G', amountKobo);
    units.push(Number(UNITS.exec(result.units ?? '')?.[1]));
  }
  for (let i = 1; i < units.length; i += 1) assert.ok(units[i]! > units[i - 1]!, `units grow: ${units.join(' < ')}`);
});

electricity('a postpaid bill payment delivers no token and no units', async () => {
  const result = await electricityResult('TXN-P', 500_000, 'ekedc', 'postpaid');
  assert.is(result.token, undefined);
  assert.is(result.units, undefined);
  assert.match(result.providerReference ?? '', PROVIDER_REFERENCE);
});

electricity('a disco outside the closed set fails definitively', async () => {
  const request = { ...requestFor('electricity', '1234'), service: 'nowhere' };
  const outcome = await createSandbox().electricity.purchase(request, signal());
  assert.is(outcome.kind, 'failed');
});

electricity.run();

const bulk = suite('sandbox bulk SMS');

function batch(recipients: string[]): ProviderRequest {
  return { ...requestFor('bulksms', '1234'), details: { sender: 'Shop', message: 'Hi', pages: 1, recipients } };
}

bulk('9999 outranks 8888, which outranks 7777, wherever they stand in the batch', async () => {
  const table = [
    { recipients: ['08030007777', '08030008888', '08030009999'], purchase: 'failed', query: 'failed' },
    { recipients: ['08030007777', '08030008888', '08030001234'], purchase: 'unknown', query: 'delivered' },
    { recipients: ['08030007777', '08030001234'], purchase: 'unknown', query: 'failed' },
    { recipients: ['08030009999', '08030001234'], purchase: 'failed', query: 'failed' },
    { recipients: ['08030001234', '08030004321'], purchase: 'delivered', query: 'delivered' },
  ];
  const sandbox = createSandbox();
  for (const { recipients, purchase, query } of table) {
    assert.is((await sandbox.bulksms.purchase(batch(recipients), signal())).kind, purchase, recipients.join(','));
    assert.is((await sandbox.bulksms.query(batch(recipients), signal())).kind, query, recipients.join(','));
  }
});

bulk('a delivered batch reports every recipient as sent', async () => {
  const recipients = ['08030000001', '08030000002', '08030000003', '08030000004'];
  const outcome = await createSandbox().bulksms.purchase(batch(recipients), signal());
  assert.is(outcome.kind === 'delivered' ? outcome.result.sent : -1, 4);
});

bulk('notify records the receipt in the outbox and accepts it', async () => {
  const sandbox = createSandbox();
  const message = { to: '08031234567', text: 'Token 1234-5678-9012-3456-7890', reference: 'TXN-R' };
  assert.is(await sandbox.bulksms.notify(message, signal()), true);
  assert.equal(sandbox.outbox, [message]);
});

bulk('notify refuses a phone ending in 9999 and records nothing', async () => {
  const sandbox = createSandbox();
  const accepted = await sandbox.bulksms.notify({ to: '08031239999', text: 'Receipt', reference: 'TXN-R' }, signal());
  assert.is(accepted, false);
  assert.is(sandbox.outbox.length, 0);
});

bulk(
  'with record off (as the running service has it) every call is answered the same and nothing is kept',
  async () => {
    const quiet = createSandbox({ record: false });
    const loud = createSandbox();
    const request = requestFor('airtime', '1234');
    assert.equal(await quiet.airtime.purchase(request, signal()), await loud.airtime.purchase(request, signal()));
    assert.equal(await quiet.airtime.query(request, signal()), await loud.airtime.query(request, signal()));
    assert.is(await quiet.bulksms.notify({ to: '08031234567', text: 'Receipt', reference: 'TXN-R' }, signal()), true);
    assert.is(quiet.purchases.length + quiet.queries.length + quiet.outbox.length, 0);
    assert.is(loud.purchases.length + loud.queries.length, 2);
  },
);

bulk.run();

const delay = suite('sandbox delay');

/** Resolves to the rejection reason of a promise, or fails the test if it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return assert.unreachable('should reject');
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
}

delay('an abort while waiting rejects with the signal reason long before the delay ends', async () => {
  const sandbox = createSandbox({ delayMs: 10_000 });
  const controller = new AbortController();
  const reason = new Error('deadline');
  const timersBefore = activeTimers();
  setTimeout(() => controller.abort(reason), 20);
  const started = Date.now();
  const error = await rejection(sandbox.electricity.purchase(requestFor('electricity', '1234'), controller.signal));
  assert.is(error, reason);
  assert.ok(Date.now() - started < 5_000, 'settled well before the 10 s delay');
  // At most: a timer of someone else may have ended meanwhile, but the sandbox's must be gone.
  assert.ok(activeTimers() <= timersBefore, 'the 10 s timer was cleared');
  assert.is(sandbox.purchases.length, 1, 'the aborted call was still received');
});

delay('query and notify honour the abort as well', async () => {
  const sandbox = createSandbox({ delayMs: 10_000 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('stop')), 20);
  const [queried, notified] = await Promise.all([
    rejection(sandbox.cable.query(requestFor('cable', '1234'), controller.signal)),
    rejection(sandbox.bulksms.notify({ to: '08031234567', text: 'Hi', reference: 'TXN-N' }, controller.signal)),
  ]);
  assert.match(String(queried), /stop/);
  assert.match(String(notified), /stop/);
  assert.is(sandbox.outbox.length, 0, 'an aborted receipt is not sent');
});

delay('an already aborted signal rejects at once, even without a delay', async () => {
  const controller = new AbortController();
  controller.abort(new Error('gone'));
  const error = await rejection(createSandbox().airtime.purchase(requestFor('airtime', '1234'), controller.signal));
  assert.match(String(error), /gone/);
});

delay('a short delay still answers by the rules', async () => {
  const sandbox = createSandbox({ delayMs: 30 });
  const started = Date.now();
  const outcome = await sandbox.data.purchase(requestFor('data', '1234'), signal());
  assert.is(outcome.kind, 'delivered');
  assert.ok(Date.now() - started >= 15, 'it waited');
});

delay.run();

const memory = suite('sandbox memory');

memory('what the sandbox records for tests stays bounded in a long-running service', async () => {
  const sandbox = createSandbox();
  const signal = new AbortController().signal;
  const calls = 2 * MAX_RECORDED_CALLS + 5;
  for (let i = 0; i < calls; i++) await sandbox.airtime.purchase(requestFor('airtime', '1234'), signal);
  assert.ok(sandbox.purchases.length <= 2 * MAX_RECORDED_CALLS, `kept ${sandbox.purchases.length}`);
  assert.ok(sandbox.purchases.length >= MAX_RECORDED_CALLS, 'the most recent calls are kept');
});

memory.run();
