/**
 * The funding series a scrape shows: inflows by provider and outcome, credited Naira, the unmatched backlog, the
 * sweeper's runs.
 */
import * as assert from 'uvu/assert';
import { createCoreMetrics } from '../../../core/metrics.js';
import { suite } from '../../helpers/suite.js';

const test = suite('funding metrics');

test('inflows, credited Naira, unmatched count and the last successful sweep appear in the scrape', async () => {
  const metrics = createCoreMetrics();
  metrics.funding.inflow('paystack', 'credited', 495_000);
  metrics.funding.inflow('paystack', 'already_credited', 0);
  metrics.funding.inflow('monnify', 'unmatched', 0);
  metrics.funding.sweep(false, new Date(1_000_000));
  metrics.funding.sweep(true, new Date(1_700_000_000_000));
  metrics.watchUnmatched(async () => 3);
  const text = await metrics.registry.metrics();
  assert.match(text, /prepaid_core_funding_inflows_total\{provider="paystack",outcome="credited"\} 1/);
  assert.match(text, /prepaid_core_funding_inflows_total\{provider="monnify",outcome="unmatched"\} 1/);
  assert.match(text, /prepaid_core_funding_credited_naira_total\{provider="paystack"\} 4950/);
  assert.match(text, /prepaid_core_funding_unmatched_inflows 3/);
  assert.match(text, /prepaid_core_funding_sweeps_total\{result="failed"\} 1/);
  assert.match(text, /prepaid_core_funding_sweep_last_success_timestamp_seconds 1700000000/);
});

test.run();
