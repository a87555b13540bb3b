/**
 * Reading MSORG request fields as the family's clients send them (docs/compat.md): numbers as
 * JSON numbers or strings, booleans as true, false, "true", "1", "" and the like, null as
 * absent. Problems are collected per field and refused together as the family's 400
 * (`{"error":[...], "<field>":[...]}`), before anything is bought.
 */
import { parseNaira } from '../../../core/domain/money.js';
import type { JsonObject } from '../../body.js';
import { invalidParameters, type PublicViolation } from '../../errors.js';

/** The longest text read from a field; past it the value is refused rather than passed on. */
const MAX_TEXT = 200;

export class MsorgInput {
  private readonly violations: PublicViolation[] = [];

  constructor(private readonly source: JsonObject | URLSearchParams) {}

  /** The raw value of the first of `names` present (null and "" count as absent). */
  raw(...names: string[]): unknown {
    for (const name of names) {
      const value = this.source instanceof URLSearchParams ? this.source.get(name) : this.source[name];
      if (value !== undefined && value !== null && value !== '') return value;
    }
    return undefined;
  }

  /** A text field (a number is taken as its digits); "" when absent, with a violation when required. */
  text(names: string | string[], required: boolean): string {
    const list = typeof names === 'string' ? [names] : names;
    const value = this.raw(...list);
    if (value === undefined) {
      if (required) this.reject(list[0]!, 'This field is required.');
      return '';
    }
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
    if (typeof value !== 'string' || value.length > MAX_TEXT) {
      this.reject(list[0]!, 'Not a valid string.');
      return '';
    }
    return value.trim();
  }

  /** Records a problem with a field, in the family's words. */
  reject(field: string, message: string): void {
    this.violations.push({ field, message });
  }

  /** Throws the 400 listing every problem, if there is any. */
  done(): void {
    if (this.violations.length > 0) throw invalidParameters(this.violations);
  }
}

/**
 * `Ported_number` and `bypass` in every form clients send them. The platform's own checks do
 * not depend on it (the core knows no prefix rule it would skip), so it is read and echoed only.
 */
export function portedFlag(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return ['true', '1', 'yes', 'on'].includes(value.trim().toLowerCase());
  return false;
}

/** A Naira amount field (a number or a numeric string) in kobo; a missing or bad one is rejected (0 then). */
export function amountOf(input: MsorgInput, field: string): number {
  const value = input.raw(field);
  if (value === undefined) {
    input.reject(field, 'This field is required.');
    return 0;
  }
  const parsed = parseNaira(typeof value === 'string' ? value.trim() : value);
  if (!parsed.ok) {
    input.reject(field, 'A valid number is required.');
    return 0;
  }
  return parsed.kobo;
}
