/** The sign-up funnel a scrape shows: today's sign-ups by how far they came, read at scrape time. */
import * as assert from 'uvu/assert';
import { createCoreMetrics } from '../../../core/metrics.js';
import { suite } from '../../helpers/suite.js';

const test = suite('sign-up metrics');

test("today's funnel appears in the scrape, each step a series, read again at every scrape", async () => {
  const metrics = createCoreMetrics();
  let signedUp = 4;
  metrics.watchSignUps(async () => ({
    signed_up: signedUp,
    email_verified: 3,
    phone_verified: 2,
    funded: 1,
    purchased: 1,
    level_2: 1,
    api_tier: 0,
    pending_reviews: 2,
  }));
  const text = await metrics.registry.metrics();
  assert.match(text, /prepaid_core_sign_ups_today\{step="signed_up"\} 4/);
  assert.match(text, /prepaid_core_sign_ups_today\{step="phone_verified"\} 2/);
  assert.match(text, /prepaid_core_sign_ups_today\{step="api_tier"\} 0/);
  assert.match(text, /prepaid_core_sign_ups_today\{step="level_2"\} 1/);
  assert.match(text, /prepaid_core_sign_ups_today\{step="pending_reviews"\} 2/);
  signedUp = 5;
  assert.match(await metrics.registry.metrics(), /prepaid_core_sign_ups_today\{step="signed_up"\} 5/);
});

test.run();
