/** What every measurement reports, from whichever load generator made it. */
export interface Figures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Failed calls and non-2xx answers. */
  errors: number;
  requests: number;
  /** The slowest answer, where the load generator reports it. */
  maxMs?: number;
  /** The p99 of the answers that arrived in each slice of the window, in order, where asked for (`steady`'s sliceMs). */
  sliceP99Ms?: number[];
  /** The service's CPU (gateway and core, every thread) per request, where it was measured. */
  serviceCpuMsPerRequest?: number;
  /**
   * What the errors were, where the load generator tells them apart: requests that got no
   * answer within its time-out, connections that failed (refused, reset, closed), and answers by status.
   */
  errorKinds?: { timeouts: number; connectionErrors: number; statuses: Record<string, number> };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function summarize(latenciesMs: number[], elapsedMs: number, errors: number): Figures {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round((latenciesMs.length / elapsedMs) * 1000),
    p50Ms: Number(percentile(sorted, 50).toFixed(2)),
    p99Ms: Number(percentile(sorted, 99).toFixed(2)),
    errors,
    requests: latenciesMs.length + errors,
  };
}

/** Each round's share in whole percent, for a line of the report: "44%, 48%" (signed: "+29%, -3%"). */
export function percents(values: readonly number[], { signed = false } = {}): string {
  return values.map((v) => `${signed && v >= 0 ? '+' : ''}${(v * 100).toFixed(0)}%`).join(', ');
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('the median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The p99 latency of the answers that arrived in each of `count` slices of `sliceMs`, the
 * first starting at `startMs` (0 for a slice no answer arrived in): how a steady window's tail
 * moves along it, where one p99 for the window says only its worst part.
 */
export function sliceP99s(
  answers: readonly { atMs: number; latencyMs: number }[],
  startMs: number,
  sliceMs: number,
  count: number,
): number[] {
  const slices: number[][] = Array.from({ length: count }, () => []);
  for (const { atMs, latencyMs } of answers) {
    const slice = Math.floor((atMs - startMs) / sliceMs);
    if (slice >= 0 && slice < count) slices[slice]!.push(latencyMs);
  }
  return slices.map((latencies) =>
    Number(
      percentile(
        [...latencies].sort((a, b) => a - b),
        99,
      ).toFixed(2),
    ),
  );
}
