/**
 * The books' admin RPCs over real gRPC: a top-up and a settlement are booked once per reference
 * with one audit row each (the entry's own, not the admin wrapper's too), a replay answers the
 * first entry, another amount is IDEMPOTENCY_KEY_REUSED, an unknown upstream or provider is an
 * INVALID_ARGUMENT naming the known ones, and the trial balance's totals are equal.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { Mode } from '../../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const test = suite('AdminService: the books');
let core: TestCore;

test.before.each(async () => {
  core = await startCore();
});
test.after.each(async () => {
  await core.close();
});

test('a top-up is booked once per reference, with one audit row written with it', async () => {
  const first = await core.admin.fundUpstream({ upstream: 'sandbox', amountKobo: 700_000n, reference: 'TOPUP-7' });
  assert.is(first.replayed, false);
  assert.is(first.entry?.kind, 'upstream_funded');
  assert.is(first.entry?.mode, Mode.LIVE);
  const again = await core.admin.fundUpstream({ upstream: 'sandbox', amountKobo: 700_000n, reference: 'TOPUP-7' });
  assert.is(again.replayed, true);
  assert.is(again.entry?.entryId, first.entry?.entryId);
  const other = await rejection(core.admin.fundUpstream({ upstream: 'sandbox', amountKobo: 1n, reference: 'TOPUP-7' }));
  assert.is(other.code, Code.InvalidArgument);
  assert.is(other.reason, 'IDEMPOTENCY_KEY_REUSED');
  const rows = await core.store.auditLog.list({ limit: 20 });
  assert.equal(
    rows.map((row) => row.action),
    ['books.fund_upstream'],
    'the entry writes its own row; the admin wrapper writes none beside it',
  );
  assert.equal(JSON.parse(rows[0]!.after!), { upstream: 'sandbox', amountKobo: 700_000, reference: 'TOPUP-7' });
  const { modes } = await core.admin.getTrialBalance({ atDate: '' });
  assert.equal(
    modes[0]!.lines.map((l) => [l.account, l.kind, l.debitKobo, l.creditKobo]),
    [
      ['upstream:sandbox:float', 'asset', 700_000n, 0n],
      ['world:bank', 'asset', 0n, 700_000n],
    ],
  );
  assert.is(modes[0]!.debitTotalKobo, modes[0]!.creditTotalKobo);
});

test('an unknown upstream or provider, a bad fee or a missing reference is INVALID_ARGUMENT and books nothing', async () => {
  const upstream = await rejection(core.admin.fundUpstream({ upstream: 'vtpass', amountKobo: 100n, reference: 'R-1' }));
  assert.is(upstream.code, Code.InvalidArgument);
  assert.equal(
    upstream.violations.map((v) => v.field),
    ['upstream'],
  );
  assert.match(upstream.message, /configured upstreams: sandbox/);
  const provider = await rejection(
    core.admin.recordSettlement({ provider: 'bank', amountKobo: 100n, feeKobo: 0n, reference: 'R-2' }),
  );
  assert.match(provider.message, /sandbox, paystack, monnify/);
  const fee = await rejection(
    core.admin.recordSettlement({ provider: 'paystack', amountKobo: 100n, feeKobo: -1n, reference: 'R-3' }),
  );
  assert.equal(
    fee.violations.map((v) => v.field),
    ['fee'],
  );
  const reference = await rejection(
    core.admin.recordSettlement({ provider: 'paystack', amountKobo: 0n, feeKobo: 0n, reference: '' }),
  );
  assert.equal(
    reference.violations.map((v) => v.field),
    ['amount', 'reference'],
  );
  const day = await rejection(core.admin.getTrialBalance({ atDate: '2026-13-01' }));
  assert.is(day.code, Code.InvalidArgument);
  const { modes } = await core.admin.getTrialBalance({ atDate: '' });
  assert.equal(modes[0]!.lines, []);
  assert.equal(await core.store.auditLog.list({ limit: 5 }), []);
});

test.run();
