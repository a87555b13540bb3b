/**
 * How numbers and times read on the pages: Naira with thousands separators and two decimals
 * (₦1,234.50), times in Africa/Lagos. The amounts come from the core in kobo; nothing here
 * computes a price, it only writes one.
 */
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { formatNaira, kobo } from '../core/domain/money.js';

/** ₦1,234.50 from kobo (the core's int64 fields arrive as bigint). */
export function naira(amountKobo: bigint | number): string {
  const value = Number(amountKobo);
  const text = formatNaira(kobo(Math.abs(value)));
  return value < 0 ? `−₦${text}` : `₦${text}`;
}

/** A signed amount as a statement shows it: +₦10.00 or −₦97.00. */
export function signedNaira(amountKobo: bigint | number): string {
  return Number(amountKobo) > 0 ? `+${naira(amountKobo)}` : naira(amountKobo);
}

const LAGOS_TIME = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Africa/Lagos',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

const LAGOS_ISO = new Intl.DateTimeFormat('sv-SE', {
  timeZone: 'Africa/Lagos',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

export function dateOf(ts: Timestamp | undefined): Date | undefined {
  if (ts === undefined) return undefined;
  return new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1_000_000));
}

/** "24 Nov 2026, 13:45" in Lagos; an empty string for a missing time. */
export function lagosTime(ts: Timestamp | undefined): string {
  const date = dateOf(ts);
  return date === undefined ? '' : LAGOS_TIME.format(date);
}

/** "2026-11-24T13:45:07+01:00": ISO 8601 in Lagos time, for CSV files, sortable and unambiguous. */
export function lagosIso(ts: Timestamp | undefined): string {
  const date = dateOf(ts);
  return date === undefined ? '' : `${LAGOS_ISO.format(date).replace(' ', 'T')}+01:00`;
}

/** The machine form of a time for <time datetime>. */
export function isoTime(ts: Timestamp | undefined): string {
  return dateOf(ts)?.toISOString() ?? '';
}

/** "24 Nov" from a YYYY-MM-DD day. */
export function shortDay(day: string): string {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(Date.UTC(year!, month! - 1, date!)).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
}
