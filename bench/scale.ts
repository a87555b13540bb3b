/**
 * The scale benchmark (`BENCH_SCALE=100k,1m npm run bench`): does the cost of serving stay
 * flat as the data grows? For the empty store and then each size, a fresh data directory is
 * filled through the store's port (bench/servers/scale-fill.ts: 1,000 accounts, one reseller
 * holding 30% of the purchases), the service is started on it as `npm start` runs it, and the
 * big reseller's traffic is measured: balance, airtime, the first and a deep history page of
 * 100 rows, the ledger check alone (time, and the service's memory while it reads), and
 * airtime while ledger checks run back to back. Each figure is also given as a ratio to the
 * empty store's, measured in the same run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SQLITE_FILE } from '../core/store/index.js';
import { adminOf, airtimeLoad, balanceLoad, built, type HttpLoad, http, startService, stop } from './harness.js';
import type { Figures } from './stats.js';

/** What one size gave. */
export interface ScaleFigures {
  size: string;
  purchases: number;
  fillMs: number;
  databaseBytes: number;
  figures: Record<string, Figures>;
  ledgerCheck: {
    ms: number;
    entries: number;
    msPerMillionEntries: number;
    peakRssGrowthBytes: number;
    checksDuringLoad: number;
  };
}

const SIZE_PATTERN = /^(\d+(?:\.\d+)?)([km]?)$/;

/** "100k,1m" -> [{label, count}]; the empty store is always measured first, as the reference. */
export function parseScaleSizes(value: string): { label: string; count: number }[] {
  const sizes = value
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean)
    .map((label) => ({ label, count: parseSize('BENCH_SCALE', label) }));
  return sizes.length === 0 ? [] : [{ label: '0', count: 0 }, ...sizes.filter((size) => size.count > 0)];
}

/** "100k" -> 100000; `variable` names where the size came from, for the error. */
export function parseSize(variable: string, label: string): number {
  const match = SIZE_PATTERN.exec(label.trim().toLowerCase());
  if (!match) throw new Error(`${variable}: "${label}" is not a size such as 100k or 1m`);
  const factor = match[2] === 'm' ? 1_000_000 : match[2] === 'k' ? 1_000 : 1;
  return Math.round(Number(match[1]) * factor);
}

/** Fills a data directory through the store's port; returns the fill's own report. */
export function fill(dataDir: string, count: number): { fillMs: number; deepCursor: string } {
  if (count === 0) return { fillMs: 0, deepCursor: '' };
  const out = execFileSync(
    process.execPath,
    [...built('bench/servers/scale-fill.ts'), path.join(dataDir, SQLITE_FILE), String(count)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(out.toString().trim()) as { fillMs: number; deepCursor: string };
}

/** Resident memory of a process, from /proc (Linux); 0 where it cannot be read. */
function rssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

async function measureSize(label: string, count: number): Promise<ScaleFigures> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-scale-'));
  try {
    console.error(`scale ${label}: filling ${count} purchases`);
    const filled = fill(dataDir, count);
    const databaseBytes = count === 0 ? 0 : statSync(path.join(dataDir, SQLITE_FILE)).size;
    const { service, port, corePort } = await startService(dataDir);
    try {
      const admin = adminOf(dataDir, corePort);
      // The big reseller of a filled store, or a fresh one in the empty store.
      const accountId =
        count === 0
          ? (await admin.createAccount({ name: 'Scale', tierId: 'api' })).account!.accountId
          : 'acc_scale_0000';
      // 100 million Naira more: room for every purchase the measurements make.
      await admin.creditWallet({ accountId, amountKobo: 10_000_000_000n, memo: 'bench funding' });
      const key = (await admin.createApiKey({ accountId })).issuedKey!;
      const keys = { 'X-Public-Key': key.publicKey, 'X-Secret-Key': key.secretKey };
      const loads: Record<string, HttpLoad> = {
        balance: balanceLoad(keys),
        airtime: airtimeLoad(keys),
        'history, first page of 100': { path: '/api/v1?action=transactions&limit=100', headers: keys },
        ...(filled.deepCursor
          ? {
              'history, deep page of 100': {
                path: `/api/v1?action=transactions&limit=100&cursor=${filled.deepCursor}`,
                headers: keys,
              },
            }
          : {}),
      };
      const figures: ScaleFigures['figures'] = {};
      for (const [name, load] of Object.entries(loads)) {
        figures[name] = await http(port, [load]);
        console.error(`  ${label} ${name}: ${figures[name]!.requestsPerSecond} req/s, p99 ${figures[name]!.p99Ms} ms`);
      }

      // The check alone: how long, and how much the service grows while it reads.
      const baseRss = rssBytes(service.pid!);
      let peakRss = baseRss;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(service.pid!))), 20);
      const started = performance.now();
      const report = await admin.checkLedger({}, { timeoutMs: 600_000 });
      const checkMs = performance.now() - started;
      clearInterval(sampler);
      if (report.violationCount !== 0n)
        throw new Error(`scale ${label}: the ledger check found ${report.violationCount} violations`);

      // Airtime while checks run back to back, one at a time as the core allows.
      let loading = true;
      let checksDuringLoad = 0;
      const checker = (async () => {
        while (loading) {
          await admin.checkLedger({}, { timeoutMs: 600_000 });
          checksDuringLoad += 1;
        }
      })();
      figures['airtime while the ledger is checked'] = await http(port, [loads.airtime!]);
      loading = false;
      await checker;
      const entries = Number(report.entriesChecked);
      return {
        size: label,
        purchases: count,
        fillMs: filled.fillMs,
        databaseBytes,
        figures,
        ledgerCheck: {
          ms: Math.round(checkMs),
          entries,
          msPerMillionEntries: entries === 0 ? 0 : Math.round((checkMs / entries) * 1_000_000),
          peakRssGrowthBytes: peakRss - baseRss,
          checksDuringLoad,
        },
      };
    } finally {
      await stop(service);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function scaleTable(all: ScaleFigures[]): string {
  const empty = all[0]!;
  const rows: string[][] = [];
  for (const result of all) {
    for (const [name, f] of Object.entries(result.figures)) {
      const reference = empty.figures[name];
      const ratio =
        reference && result !== empty
          ? `${((f.requestsPerSecond / reference.requestsPerSecond) * 100).toFixed(0)}% of empty`
          : '';
      rows.push([
        result.size,
        name,
        String(f.requestsPerSecond),
        f.p50Ms.toFixed(1),
        f.p99Ms.toFixed(1),
        String(f.errors),
        [ratio, f.maxMs === undefined ? '' : `max ${f.maxMs} ms`].filter(Boolean).join('; '),
      ]);
    }
    const c = result.ledgerCheck;
    rows.push([
      result.size,
      'ledger check',
      `${c.ms} ms`,
      `${c.msPerMillionEntries} ms/M entries`,
      `+${(c.peakRssGrowthBytes / 1_048_576).toFixed(0)} MB rss`,
      '0',
      `${c.checksDuringLoad} checks under load; db ${(result.databaseBytes / 1_048_576).toFixed(0)} MB`,
    ]);
  }
  const header = ['size', 'measurement', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'ratio'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export async function scale(sizes: { label: string; count: number }[]): Promise<ScaleFigures[]> {
  const all: ScaleFigures[] = [];
  for (const size of sizes) all.push(await measureSize(size.label, size.count));
  console.log(`\nscale\n${scaleTable(all)}\n`);
  return all;
}
