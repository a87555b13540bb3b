/**
 * The "funding" scenario: money in, measured as the service takes it. The service
 * runs as `npm start` runs it, with Paystack pointed at the test suite's fake Paystack, served
 * on loopback as a real HTTP server by a process of its own (bench/servers/paystack-side.ts),
 * which also sends the notifications. Every request is a new transfer into one of
 * FUNDING_ACCOUNTS accounts' dedicated accounts: the fake records it (so the core's re-query,
 * `GET /transaction/verify/{reference}`, finds it paid) and the request is its signed
 * `charge.success` to the gateway's `/callbacks/paystack`, which checks the signature, re-queries
 * and credits. Any answer but 200 is an error and fails the run.
 *
 * Measured: notifications a second (target: at least half of airtime's rate in the same run);
 * airtime purchases on the same accounts alone, then while transfers arrive beside them at a
 * tenth of that rate, in two long windows and then in PAIRED_ROUNDS rounds of a window of each
 * in turn (target: at least 80% of their rate alone, at the median of the rounds; the long
 * windows' share is reported). The ledger check must pass afterwards, and the core must have
 * credited no more transfers than were sent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createClient } from '@connectrpc/connect';
import { AdminService } from '../gen/prepaid/v1/admin_pb.js';
import { FundingService } from '../gen/prepaid/v1/funding_pb.js';
import {
  adminTransport,
  airtimeLoad,
  children,
  freePort,
  type HttpLoad,
  http,
  inTurn,
  PAIRED_WINDOW,
  startService,
  stop,
} from './harness.js';
import type { NotificationLoad } from './servers/paystack-side.js';
import { type Figures, median, percents } from './stats.js';

export const FUNDING_SCENARIO = 'scenario: funding';
export const FUNDING_PURCHASES_ALONE = 'scenario: funding, purchases alone';
export const FUNDING_PURCHASES_BESIDE = 'scenario: funding, purchases while transfers arrive';
/** The accounts transfers go to, in turn: enough that no one wallet's row is all the load. */
const FUNDING_ACCOUNTS = 20;
/** The fake Paystack's secret key, which the service is given and the fake signs with. */
const PAYSTACK_SECRET_KEY = 'sk_test_bench_paystack_key';
/** Transfers arriving beside purchases, per purchase measured alone. */
const TRANSFERS_PER_PURCHASE = 0.1;
/** Connections the paced transfers use: enough that a slow answer does not hold the pace back. */
const TRANSFER_CONNECTIONS = 10;
const MIN_SHARE_OF_AIRTIME = 0.5;
const MIN_PURCHASES_KEPT = 0.8;

interface FundingBench {
  record(name: string, figures: Figures): void;
  target(met: boolean, text: string): void;
  /** The airtime scenario's rate in this run, when it ran. */
  airtimePerSecond(): number | undefined;
}

/** The core's credited-inflow counter for Paystack, read from its metrics listener. */
async function creditedByPaystack(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('prepaid_core_funding_inflows_total{') &&
        l.includes('provider="paystack"') &&
        l.includes('outcome="credited"'),
    );
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** The fake Paystack and the notifications' sender, in a process of their own. */
async function paystackSide(): Promise<{
  url: string;
  notify(load: NotificationLoad): Promise<{ figures: Figures; sent: number }>;
  child: ChildProcess;
}> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/paystack-side.ts'], {
    env: { ...process.env, PAYSTACK_SECRET_KEY },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error('the Paystack side of the funding bench exited');
    return JSON.parse(line.value as string);
  };
  const { port } = (await next()) as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    async notify(load) {
      child.stdin!.write(`${JSON.stringify(load)}\n`);
      return (await next()) as { figures: Figures; sent: number };
    },
    child,
  };
}

export async function fundingScenario(bench: FundingBench): Promise<void> {
  console.error('the service taking bank transfers (Paystack notifications, re-queried against a fake on loopback)');
  const paystack = await paystackSide();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-bench-funding-'));
  const metricsPort = await freePort();
  const { service, port, corePort } = await startService(dataDir, {
    PAYSTACK_SECRET_KEY,
    PAYSTACK_BASE_URL: paystack.url,
    PAYSTACK_PREFERRED_BANK: 'test-bank',
    // The notifications all come from this machine's address: the per-address limit would be measured, not the service.
    CALLBACKS_PER_MINUTE: '1000000',
    CORE_METRICS_PORT: String(metricsPort),
  });
  try {
    const transport = adminTransport(dataDir, corePort);
    const admin = createClient(AdminService, transport);
    const funding = createClient(FundingService, transport);
    const accounts: { number: string; keys: Record<string, string> }[] = [];
    for (let i = 0; i < FUNDING_ACCOUNTS; i += 1) {
      const created = await admin.createAccount({ name: `Bench Funding ${i}`, tierId: 'api' });
      const accountId = created.account!.accountId;
      const opened = await funding.openFundingAccounts({
        accountId,
        kyc: {
          kind: 'bvn',
          number: '22222222222',
          firstName: 'Ada',
          lastName: 'Obi',
          phone: '08031234567',
          email: `bench-${i}@example.com`,
          bankCode: '',
          bankAccount: '',
        },
      });
      const number = opened.accounts.find((a) => a.provider === 'paystack')?.accountNumber;
      if (number === undefined) throw new Error('the bench account got no Paystack dedicated account');
      // Room for the purchases before any transfer arrives.
      await admin.creditWallet({ accountId, amountKobo: 1_000_000_000n, memo: 'bench funding' });
      accounts.push({
        number,
        keys: {
          'X-Public-Key': created.issuedKey!.publicKey,
          'X-Secret-Key': created.issuedKey!.secretKey,
        },
      });
    }

    const numbers = accounts.map((a) => a.number);
    const purchases: HttpLoad[] = accounts.map((a) => airtimeLoad(a.keys));
    const cpuPid = service.pid!;

    const alone = (await paystack.notify({ gateway: port, accounts: numbers, cpuPid })).figures;
    bench.record(FUNDING_SCENARIO, alone);
    // Purchases alone, then with transfers arriving beside them at a tenth of their rate (a
    // reseller's wallet takes a transfer for many purchases): what is measured is what the
    // transfers' credits cost the purchases on the same wallets (their rows, the store's
    // commits), not two saturating loads splitting the machine's cores.
    const purchasesAlone = await http(port, purchases, { cpuPid });
    bench.record(FUNDING_PURCHASES_ALONE, purchasesAlone);
    const transferRate = Math.max(1, Math.round(purchasesAlone.requestsPerSecond * TRANSFERS_PER_PURCHASE));
    const transfersBeside = (window: { durationMs?: number; warmupMs?: number }) =>
      paystack.notify({
        gateway: port,
        accounts: numbers,
        connections: TRANSFER_CONNECTIONS,
        overallRate: transferRate,
        ...window,
      });
    const [beside, notified] = await Promise.all([http(port, purchases, { cpuPid }), transfersBeside({})]);
    bench.record(FUNDING_PURCHASES_BESIDE, beside);
    bench.record(`${FUNDING_SCENARIO}, beside purchases`, notified.figures);
    /** Transfers sent so far (the Paystack side counts them all), for the check against the credits. */
    let sent = notified.sent;
    // Then in turn, as the bench's other targets: a window of purchases alone and one with
    // transfers beside them.
    const purchasesOnly = () => http(port, purchases, PAIRED_WINDOW);
    const withTransfers = async () => {
      const [figures, transfers] = await Promise.all([
        http(port, purchases, PAIRED_WINDOW),
        transfersBeside(PAIRED_WINDOW),
      ]);
      if (transfers.figures.errors > 0) throw new Error(`funding in turn: ${transfers.figures.errors} transfer errors`);
      sent = transfers.sent;
      return figures;
    };
    const kept = (await inTurn('funding', purchasesOnly, withTransfers)).map(
      ([a, b]) => b.requestsPerSecond / a.requestsPerSecond,
    );
    const keptInTurn = median(kept);
    console.error(
      `  funding: purchases with transfers beside them, in turn with purchases alone: ` +
        `${(keptInTurn * 100).toFixed(0)}% at the median of ${kept.length} rounds ` +
        `(${percents(kept)})`,
    );

    const airtime = bench.airtimePerSecond();
    if (airtime === undefined) console.error('  funding: no airtime scenario in this run to compare with');
    else
      bench.target(
        alone.requestsPerSecond >= MIN_SHARE_OF_AIRTIME * airtime,
        `funding: ${alone.requestsPerSecond} notifications/s, ` +
          `${((alone.requestsPerSecond / airtime) * 100).toFixed(0)}% of airtime's ` +
          `${airtime} purchases/s (at least ${MIN_SHARE_OF_AIRTIME * 100}%)`,
      );
    const keptInLongWindows = beside.requestsPerSecond / purchasesAlone.requestsPerSecond;
    bench.target(
      keptInTurn >= MIN_PURCHASES_KEPT,
      `funding: purchases while transfers arrive at ${(keptInTurn * 100).toFixed(0)}% of their rate alone, ` +
        `in turn (at least ${MIN_PURCHASES_KEPT * 100}%; the long windows: ${beside.requestsPerSecond}/s, ` +
        `${(keptInLongWindows * 100).toFixed(0)}% of ${purchasesAlone.requestsPerSecond}/s)`,
    );

    const check = await admin.checkLedger({});
    if (check.violationCount !== 0n)
      throw new Error(`ledger check after the funding run: ${check.violationCount} violations`);
    const credited = await creditedByPaystack(metricsPort);
    if (credited > sent) throw new Error(`the core credited ${credited} transfers of the ${sent} sent`);
    console.error(`  funding: ${sent} transfers sent, ${credited} credited`);
  } finally {
    await stop(service);
    await stop(paystack.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
