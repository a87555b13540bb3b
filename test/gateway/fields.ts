/**
 * Assertions shared by the gateway tests: exact field sets with types, the error body
 * shape, and the ledger entry behind a purchase answer.
 */
import * as assert from 'uvu/assert';
import { ledgerOf, type TestCore } from '../helpers/core.js';
import type { ApiKeys, Reply } from '../helpers/gateway.js';

/** A JSON type as the tests name it; "a|b" allows either. */
export type FieldType =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'null'
  | 'array'
  | 'object'
  | `${string}|${string}`;

/** Asserts that `value` has exactly these keys, each of its type. */
export function assertShape(value: unknown, shape: Record<string, FieldType>, label = 'body'): void {
  assert.type(value, 'object', `${label} is an object`);
  const record = value as Record<string, unknown>;
  assert.equal(
    Object.keys(record).sort(),
    Object.keys(shape).sort(),
    `${label} has exactly the fields ${Object.keys(shape).join(', ')}`,
  );
  for (const [field, type] of Object.entries(shape)) {
    const allowed = type.split('|');
    assert.ok(
      allowed.some((t) => isType(record[field], t)),
      `${label}.${field} is ${type}, got ${JSON.stringify(record[field])}`,
    );
  }
}

function isType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    default:
      throw new Error(`unknown type ${type}`);
  }
}

/** Naira with at most two decimals, as every money field must be. */
export function assertNaira(value: unknown, label: string): void {
  assert.type(value, 'number', `${label} is a number`);
  const kobo = (value as number) * 100;
  assert.ok(Math.abs(kobo - Math.round(kobo)) < 1e-6, `${label} has at most two decimals: ${String(value)}`);
}

/** Asserts an error answer: its status, `code`, and the body shape `{status, message, code, ...}`. */
export function assertError(reply: Reply, status: number, code: string, extra: Record<string, FieldType> = {}): void {
  assert.is(reply.status, status, `HTTP ${status} expected, got ${reply.status}: ${reply.text}`);
  assert.match(String(reply.headers['content-type']), /^application\/json/);
  assertShape(reply.json, { status: 'string', message: 'string', code: 'string', ...extra }, `${code} body`);
  assert.is(reply.json.status, 'error');
  assert.is(reply.json.code, code);
  assert.ok(reply.json.message.length > 10, 'the message is a sentence');
  assert.not.match(reply.text, /at .+\.(ts|js):\d+/, 'no stack trace in the body');
}

/** Naira to kobo without float noise. */
export function toKobo(naira: number): bigint {
  return BigInt(Math.round(naira * 100));
}

/**
 * Asserts that a purchase answer matches the ledger: one debit for its reference of exactly
 * `charged`, with `balance` as the balance right after it.
 */
export async function assertMatchesLedger(
  core: TestCore,
  accountId: string,
  body: { reference: string; charged: number; balance: number },
): Promise<void> {
  const entries = (await ledgerOf(core, accountId)).filter((e) => e.reference === body.reference);
  const debits = entries.filter((e) => e.kind === 'debit');
  assert.is(debits.length, 1, `one debit for ${body.reference}`);
  assert.is(debits[0]!.amountKobo, -toKobo(body.charged), 'charged equals the debit');
  assert.is(debits[0]!.balanceAfterKobo, toKobo(body.balance), 'balance equals the balance after the debit');
}

/** The wallet balance in kobo, from the admin service. */
export async function balanceKobo(core: TestCore, accountId: string): Promise<bigint> {
  const { account } = await core.admin.getAccount({ accountId });
  return account!.balanceKobo;
}

/** An account on the API tier with a key pair, funded with `balanceKobo`. */
export async function fundedAccount(
  core: TestCore,
  balanceKobo = 5_000_000,
): Promise<{ accountId: string; keys: ApiKeys }> {
  const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo });
  return { accountId, keys: { publicKey, secretKey } };
}
