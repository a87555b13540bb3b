/** The funding variables of the core's configuration: fee, cap, sweep interval and Paystack, each checked at start. */
import * as assert from 'uvu/assert';
import { readCoreConfig } from '../../../core/config.js';
import { fundingFeeKobo } from '../../../core/domain/funding.js';
import { kobo } from '../../../core/domain/money.js';
import { ConfigError } from '../../../runtime/env-schema.js';
import { suite } from '../../helpers/suite.js';

const test = suite('funding configuration');

function configError(env: Record<string, string>): ConfigError {
  try {
    readCoreConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

test('defaults: no fee, no cap, a ten-minute sweep, no Paystack', () => {
  const { funding } = readCoreConfig({});
  assert.equal(funding.fee, { basisPoints: 0, capKobo: null });
  assert.is(funding.sweepIntervalMs, 600_000);
  assert.is(funding.paystack, null);
  assert.is(funding.monnify, null);
});

test('the fee in percent with two decimals and a cap in Naira; the fee rounds down, in the holder favour', () => {
  const { funding } = readCoreConfig({ FUNDING_FEE_PERCENT: '1.5', FUNDING_FEE_CAP_NAIRA: '300' });
  assert.equal(funding.fee, { basisPoints: 150, capKobo: 30_000 });
  assert.is(fundingFeeKobo(kobo(10_033), funding.fee), 150, '1.5% of 100.33 Naira is 150.495 kobo: 150');
  assert.is(fundingFeeKobo(kobo(5_000_000), funding.fee), 30_000, 'capped');
  for (const bad of ['100', '1.555', '-1', 'one'])
    assert.match(configError({ FUNDING_FEE_PERCENT: bad }).message, 'FUNDING_FEE_PERCENT');
  assert.match(configError({ FUNDING_FEE_CAP_NAIRA: '1.234' }).message, 'FUNDING_FEE_CAP_NAIRA');
});

test('Paystack: on with its secret key; http only to loopback; the key is never echoed', () => {
  const on = readCoreConfig({ PAYSTACK_SECRET_KEY: 'sk_test_abc', PAYSTACK_BASE_URL: 'http://127.0.0.1:9999' });
  assert.equal(on.funding.paystack, {
    secretKey: 'sk_test_abc',
    baseUrl: 'http://127.0.0.1:9999/',
    preferredBank: 'wema-bank',
  });
  const remote = configError({ PAYSTACK_SECRET_KEY: 'sk_test_abc', PAYSTACK_BASE_URL: 'http://paystack.example.com' });
  assert.match(remote.message, 'PAYSTACK_BASE_URL');
  const spaced = configError({ PAYSTACK_SECRET_KEY: 'sk live secret' });
  assert.not.match(spaced.message, 'live secret');
});

test('Monnify: on with all three credentials, refused with only some; http only to loopback', () => {
  const env = { MONNIFY_API_KEY: 'MK_TEST_A', MONNIFY_SECRET_KEY: 'SECRETB', MONNIFY_CONTRACT_CODE: '8389328412' };
  assert.equal(readCoreConfig(env).funding.monnify, {
    apiKey: 'MK_TEST_A',
    secretKey: 'SECRETB',
    contractCode: '8389328412',
    baseUrl: 'https://api.monnify.com/',
  });
  assert.match(configError({ MONNIFY_API_KEY: 'MK_TEST_A', MONNIFY_CONTRACT_CODE: '1' }).message, 'MONNIFY_SECRET_KEY');
  assert.match(configError({ ...env, MONNIFY_CONTRACT_CODE: 'abc' }).message, 'MONNIFY_CONTRACT_CODE');
  assert.match(configError({ ...env, MONNIFY_BASE_URL: 'http://monnify.example.com' }).message, 'MONNIFY_BASE_URL');
  assert.not.match(configError({ ...env, MONNIFY_SECRET_KEY: 'two words' }).message, 'two words');
});

test.run();
