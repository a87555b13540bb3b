/**
 * The funding scenario's outside world, in a process of its own: the test suite's fake Paystack
 * (the core's re-queries land here) and the load of transfers' notifications, each a new
 * transfer the fake records and then announces, signed, to the gateway's /callbacks/paystack.
 *
 * Apart from the bench's own process so that the purchases measured beside the transfers are
 * driven by a load generator that does nothing else: in one event loop with the fake's answers
 * and the transfers' signing, the purchases' autocannon was slowed by them, and that was
 * measured as the service's loss (bench/funding.ts).
 *
 * stdout: {"port":N} once the fake listens, then one JSON line per finished load. stdin: one
 * JSON line per load to run, {"gateway", "accounts", "connections"?, "overallRate"?, "cpuPid"?}; the
 * answer is {"figures", "sent"} (transfers sent so far, over every load). Runs under tsx: the
 * fake is the test suite's own (test/helpers), which the build leaves out.
 */
import { createInterface } from 'node:readline';
import { startFakePaystack } from '../../test/helpers/fake-paystack.js';
import { http } from '../harness.js';
import { announcePort } from './announce.js';

/** Each transfer: 500 Naira. */
const TRANSFER_KOBO = 50_000;

/** One load of notifications (a line on stdin). */
export interface NotificationLoad {
  gateway: number;
  accounts: string[];
  connections?: number;
  overallRate?: number;
  /** The service's process, whose CPU per notification is reported. */
  cpuPid?: number;
  /** The window and its warm-up, when not a whole measurement's (rounds in turn). */
  durationMs?: number;
  warmupMs?: number;
}

const paystack = await startFakePaystack(process.env['PAYSTACK_SECRET_KEY']);
announcePort(Number(new URL(paystack.url).port));

let sent = 0;
for await (const line of createInterface({ input: process.stdin })) {
  const load = JSON.parse(line) as NotificationLoad;
  const figures = await http(
    load.gateway,
    [
      {
        method: 'POST',
        path: '/callbacks/paystack',
        headers: { 'Content-Type': 'application/json' },
        fresh: () => {
          sent += 1;
          const to = load.accounts[sent % load.accounts.length]!;
          const transfer = paystack.transfer(to, TRANSFER_KOBO, `bench_${sent}_${process.pid}`);
          return { body: transfer.body, headers: { 'x-paystack-signature': transfer.signature } };
        },
      },
    ],
    {
      ...(load.connections === undefined ? {} : { connections: load.connections }),
      ...(load.overallRate === undefined ? {} : { overallRate: load.overallRate }),
      ...(load.cpuPid === undefined ? {} : { cpuPid: load.cpuPid }),
      ...(load.durationMs === undefined ? {} : { durationMs: load.durationMs }),
      ...(load.warmupMs === undefined ? {} : { warmupMs: load.warmupMs }),
    },
  );
  process.stdout.write(`${JSON.stringify({ figures, sent })}\n`);
}
await paystack.stop();
