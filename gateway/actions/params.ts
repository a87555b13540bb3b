/**
 * Type and presence checks on request fields, collected so that one 422 lists every
 * problem at once. These are JSON-shape checks only (is it a string, an integer, an array
 * of strings); whether a value is allowed is the core's to say, so that gRPC callers get
 * the same answers.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { DomainError, type FieldViolation } from '../../core/domain/errors.js';
import { type Kobo, parseNaira, ZERO_KOBO } from '../../core/domain/money.js';
import { checkWellFormed } from '../../core/domain/validation.js';
import { invalidParameters, type PublicViolation } from '../errors.js';

/**
 * A page's `limit` and `cursor` from the query: the core owns the page-size bounds
 * (core/domain/paging.ts), so the gateway only checks that `limit` is an integer. A limit
 * beyond the contract's int32 `page_size` is sent as the nearest int32, which the core refuses
 * like any other size out of its bounds; it could not be encoded as it is.
 */
export function pageQuery(fields: FieldReader): { pageSize: number | undefined; pageToken: string | undefined } {
  const limit = fields.optionalInteger('limit');
  const pageToken = fields.optionalString('cursor');
  const pageSize = limit === undefined ? undefined : Math.min(INT32_MAX, Math.max(INT32_MIN, limit));
  return { pageSize, pageToken };
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Reads typed fields from a body or a query string and remembers what was wrong. */
export class FieldReader {
  private readonly violations: PublicViolation[] = [];

  /** `source` is a JSON body or the query string. */
  constructor(private readonly source: Readonly<Record<string, unknown>> | URLSearchParams) {}

  /** A required string; "" when missing or of the wrong type (a violation is recorded). */
  string(field: string): string {
    const value = this.get(field);
    if (value === undefined) return this.fail(field, `${field} is required.`, '');
    if (typeof value !== 'string') return this.fail(field, `${field} must be a string.`, '');
    return this.wellFormed(field, value);
  }

  /** An optional string; "" when absent. */
  optionalString(field: string): string {
    const value = this.get(field);
    if (value === undefined) return '';
    if (typeof value !== 'string') return this.fail(field, `${field} must be a string.`, '');
    return this.wellFormed(field, value);
  }

  /** A required Naira amount (number or numeric string) in kobo; 0 after a violation. */
  amount(field: string): Kobo {
    const value = this.get(field);
    if (value === undefined) return this.fail(field, `${field} is required.`, ZERO_KOBO);
    const parsed = parseNaira(value);
    if (!parsed.ok) return this.fail(field, `${field} ${parsed.reason}.`, ZERO_KOBO);
    return parsed.kobo;
  }

  /** A required integer (number or integer string) within the safe range; 0 after a violation. */
  integer(field: string): number {
    const value = this.get(field);
    if (value === undefined) return this.fail(field, `${field} is required.`, 0);
    const parsed = toInteger(value);
    if (parsed === undefined) return this.fail(field, `${field} must be an integer.`, 0);
    return parsed;
  }

  /** An optional integer; undefined when absent (or after a violation). */
  optionalInteger(field: string): number | undefined {
    const value = this.get(field);
    if (value === undefined) return undefined;
    const parsed = toInteger(value);
    if (parsed === undefined) return this.fail(field, `${field} must be an integer.`, undefined);
    return parsed;
  }

  /** A required array of strings; each wrong element is its own violation ("recipients[2]"). */
  stringArray(field: string): string[] {
    const value = this.get(field);
    if (value === undefined) return this.fail(field, `${field} is required.`, []);
    if (!Array.isArray(value)) return this.fail(field, `${field} must be an array of strings.`, []);
    const strings: string[] = [];
    value.forEach((item: unknown, index) => {
      if (typeof item === 'string') strings.push(this.wellFormed(`${field}[${index}]`, item));
      else this.fail(`${field}[${index}]`, `${field}[${index}] must be a string.`, undefined);
    });
    return strings;
  }

  /** Records a violation found by the caller of this reader. */
  reject(field: string, message: string): void {
    this.violations.push({ field, message });
  }

  /** Whether `field` was found wrong here (so a caller can stand a valid value in for it). */
  failed(field: string): boolean {
    return this.violations.some((v) => v.field === field);
  }

  /**
   * Throws one 422 listing every violation, if there is any. `coreRules`, when given, is the
   * core's own pure check of the order (core/domain/orders.ts) with a valid stand-in for
   * each field found wrong here: the problems it finds in the other fields join the list,
   * so a wrong type on one field does not hide what is wrong with the others. It only ever
   * runs when the request is refused anyway; the core still checks every request it gets.
   */
  done(coreRules?: () => unknown): void {
    if (this.violations.length === 0) return;
    if (coreRules !== undefined) {
      try {
        coreRules();
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        for (const v of error.violations)
          if (!this.failed(v.field)) this.violations.push({ field: v.field, message: v.description });
      }
    }
    throw invalidParameters(this.violations);
  }

  private get(field: string): unknown {
    if (this.source instanceof URLSearchParams) {
      const value = this.source.get(field);
      // An empty query value (`?network=`) means the same as leaving it out.
      return value === null || value === '' ? undefined : value;
    }
    const value = Object.hasOwn(this.source, field) ? this.source[field] : undefined;
    return value === null ? undefined : value;
  }

  /** `value`, with a violation recorded when it holds a lone surrogate (the core's rule; see checkWellFormed). */
  private wellFormed(field: string, value: string): string {
    const found: FieldViolation[] = [];
    checkWellFormed(field, value, found);
    for (const v of found) this.violations.push({ field: v.field, message: v.description });
    return value;
  }

  private fail<T>(field: string, message: string, fallback: T): T {
    this.violations.push({ field, message });
    return fallback;
  }
}

/**
 * The optional idempotency key: `request_id` in the body or the Idempotency-Key header.
 * Both may be given only if they agree, since a client sending two different keys has a
 * bug that should not be resolved by guessing.
 */
export function idempotencyKey(
  reader: FieldReader,
  body: Readonly<Record<string, unknown>>,
  headers: IncomingHttpHeaders,
): string {
  const fromBody = Object.hasOwn(body, 'request_id') ? body['request_id'] : undefined;
  const rawHeader = headers['idempotency-key'];
  if (Array.isArray(rawHeader)) {
    reader.reject('Idempotency-Key', 'The Idempotency-Key header must be sent once.');
    return '';
  }
  const fromHeader = rawHeader;
  if (fromBody !== undefined && fromBody !== null && (typeof fromBody !== 'string' || fromBody === '')) {
    reader.reject('request_id', 'request_id must be a non-empty string.');
    return '';
  }
  if (fromHeader !== undefined && fromHeader.trim() === '') {
    reader.reject('Idempotency-Key', 'The Idempotency-Key header must not be empty.');
    return '';
  }
  const bodyKey = typeof fromBody === 'string' ? fromBody : undefined;
  const headerKey = fromHeader?.trim();
  if (bodyKey !== undefined && headerKey !== undefined && bodyKey !== headerKey) {
    reader.reject(
      'request_id',
      'request_id and the Idempotency-Key header differ; send one key, or the same key in both.',
    );
    return '';
  }
  return bodyKey ?? headerKey ?? '';
}

/** The most digits an integer sent as a string may have: every 15-digit number is a safe integer. */
export const MAX_INTEGER_DIGITS = 15;
const INTEGER_TEXT = new RegExp(`^-?\\d{1,${MAX_INTEGER_DIGITS}}$`);

function toInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && INTEGER_TEXT.test(value.trim())) return Number(value.trim());
  return undefined;
}
