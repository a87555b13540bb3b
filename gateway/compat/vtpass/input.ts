/**
 * Reading VTpass request fields as its clients send them (docs/compat.md, VTpass): JSON or a
 * form, numbers as JSON numbers or strings, null and "" as absent (one SDK sends `null` for
 * every optional field it was not given). Problems are collected and refused together as
 * VTpass's `011` ("invalid arguments"), before anything is bought.
 */
import { parseNaira } from '../../../core/domain/money.js';
import type { JsonObject } from '../../body.js';
import { invalidParameters, type PublicViolation } from '../../errors.js';

/** The longest text read from a field; past it the value is refused rather than passed on. */
const MAX_TEXT = 200;

export class VtpassInput {
  private readonly violations: PublicViolation[] = [];

  constructor(private readonly source: JsonObject | URLSearchParams) {}

  /** The raw value of `name` (null and "" count as absent). */
  raw(name: string): unknown {
    const value = this.source instanceof URLSearchParams ? this.source.get(name) : this.source[name];
    return value === undefined || value === null || value === '' ? undefined : value;
  }

  /** A text field (a number is taken as its digits); "" when absent, with a violation when required. */
  text(name: string, required: boolean): string {
    const value = this.raw(name);
    if (value === undefined) {
      if (required) this.reject(name, `${name} is required.`);
      return '';
    }
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
    if (typeof value !== 'string' || value.length > MAX_TEXT) {
      this.reject(name, `${name} must be a text of at most ${MAX_TEXT} characters.`);
      return '';
    }
    return value.trim();
  }

  /** An amount in naira (a number or a numeric text), in kobo; 0 with a violation when it is not one. */
  amountKobo(name: string, required: boolean): number {
    const value = this.raw(name);
    if (value === undefined) {
      if (required) this.reject(name, `${name} is required.`);
      return 0;
    }
    const parsed = parseNaira(typeof value === 'string' ? value.trim() : value);
    if (!parsed.ok) {
      this.reject(name, `${name} must be an amount in naira.`);
      return 0;
    }
    return parsed.kobo;
  }

  /** A whole number from 1 to `max` (months), or `fallback` when absent. */
  count(name: string, max: number, fallback: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    const n = /^\d{1,3}$/.test(text) ? Number(text) : 0;
    if (n < 1 || n > max) {
      this.reject(name, `${name} must be a whole number from 1 to ${max}.`);
      return fallback;
    }
    return n;
  }

  reject(field: string, message: string): void {
    this.violations.push({ field, message });
  }

  /** Throws the refusal listing every problem, if there is any. */
  done(): void {
    if (this.violations.length > 0) throw invalidParameters(this.violations);
  }
}
