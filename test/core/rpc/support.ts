/**
 * Small readers shared by the core's gRPC tests: what a failed call said (status, ErrorInfo,
 * BadRequest), and what an account's wallet looks like (balance, ledger, provider calls), so
 * a test can compare the wallet before and after a call in one line.
 */
import { type Code, ConnectError } from '@connectrpc/connect';
import { BadRequestSchema, ErrorInfoSchema } from '../../../gen/google/rpc/error_details_pb.js';
import type { LedgerEntry } from '../../../gen/prepaid/v1/admin_pb.js';
import { ledgerOf, type TestCore } from '../../helpers/core.js';

/** What a failed gRPC call told the caller. */
export interface Rejection {
  code: Code;
  message: string;
  /** ErrorInfo.reason, or '' when the status carried no ErrorInfo. */
  reason: string;
  domain: string;
  metadata: Record<string, string>;
  /** BadRequest field violations, in order. */
  violations: { field: string; description: string }[];
}

/** Awaits a call that must fail and reads its status and details; fails the test if it succeeds. */
export async function rejection(call: Promise<unknown>): Promise<Rejection> {
  let result: unknown;
  try {
    result = await call;
  } catch (error) {
    const e = ConnectError.from(error);
    const info = e.findDetails(ErrorInfoSchema)[0];
    const badRequest = e.findDetails(BadRequestSchema)[0];
    return {
      code: e.code,
      message: e.rawMessage,
      reason: info?.reason ?? '',
      domain: info?.domain ?? '',
      metadata: { ...(info?.metadata ?? {}) },
      violations: (badRequest?.fieldViolations ?? []).map((v) => ({ field: v.field, description: v.description })),
    };
  }
  throw new Error(
    `expected the call to fail, it answered ` +
      `${JSON.stringify(result, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`,
  );
}

/** An account's money and the provider calls so far, to compare before and after a call. */
export interface WalletSnapshot {
  balanceKobo: bigint;
  entries: LedgerEntry[];
  providerPurchases: number;
  providerQueries: number;
}

export async function walletOf(core: TestCore, accountId: string): Promise<WalletSnapshot> {
  const { balanceKobo } = await core.purchase.getBalance({ accountId });
  return {
    balanceKobo,
    entries: await ledgerOf(core, accountId),
    providerPurchases: core.sandbox.purchases.length,
    providerQueries: core.sandbox.queries.length,
  };
}

/** Ledger entries of one purchase reference, oldest first, as [kind, amount] pairs. */
export function entriesFor(snapshot: WalletSnapshot, reference: string): [string, bigint][] {
  return snapshot.entries.filter((e) => e.reference === reference).map((e) => [e.kind, e.amountKobo]);
}

/** Resolves once `check` returns true, polling every 20 ms; false when `timeoutMs` passes first. */
export async function eventually(check: () => boolean, timeoutMs = 2_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}
