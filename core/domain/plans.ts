/**
 * What a data plan's texts say about it: its size in megabytes, its validity in days and
 * the way the market sells it. Upstreams name plans in free text ("MTN N1000 1.5GB - 30
 * days", "Glo SME 2GB 14 days"); these readings are a heuristic over such names, used by
 * the plans sync and the VTpass variations-update push, and an operator corrects any plan
 * they misread (UpsertPlan). The default catalog is read by the same rules.
 */
import type { PlanType } from './products.js';

/** 1GB is 1,024MB, as the networks count it. */
const MB_PER_GB = 1024;
const MB_PER_TB = 1024 * 1024;
/** A plan bigger than 10TB or longer than ten years is a misreading, not a plan. */
const MAX_SIZE_MB = 10 * MB_PER_TB;
const MAX_VALIDITY_DAYS = 3650;

const SIZE = /(\d+(?:\.\d+)?)\s*(TB|GB|MB)\b/i;
const VALIDITY_UNITS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^(?:hrs?|hours?|mins?|minutes?)$/i, 0],
  [/^days?$/i, 1],
  [/^(?:weeks?|wks?)$/i, 7],
  [/^(?:months?|mnths?)$/i, 30],
  [/^years?$/i, 365],
];
const VALIDITY_WORDS: Readonly<Record<string, number>> = { daily: 1, weekly: 7, monthly: 30, yearly: 365 };

/**
 * The plan type a name says, by its words: "SME2" or "SME 2", "SME", "CG" or "corporate
 * gifting", "awoof", "gifting", "direct". A name that says none is `direct`: the networks'
 * own retail bundles, which is what VTpass's data variations are.
 */
export function planTypeFromName(name: string): PlanType {
  if (/\bSME\s*-?\s*2\b/i.test(name)) return 'sme2';
  if (/\bSME\b/i.test(name)) return 'sme';
  if (/\bCG\b|corporate\s*gifting/i.test(name)) return 'cg';
  if (/\bawoof\b/i.test(name)) return 'awoof';
  if (/\bgifting\b/i.test(name)) return 'gifting';
  return 'direct';
}

/** The first size in a name ("1.5GB" -> 1536), rounded to whole megabytes; 0 when it names none. */
export function sizeMbFromName(name: string): number {
  const match = SIZE.exec(name);
  if (match === null) return 0;
  const unit = match[2]!.toUpperCase();
  const factor = unit === 'TB' ? MB_PER_TB : unit === 'GB' ? MB_PER_GB : 1;
  const mb = Math.round(Number(match[1]) * factor);
  return Number.isSafeInteger(mb) && mb > 0 && mb <= MAX_SIZE_MB ? mb : 0;
}

/**
 * Whole days in a validity text ("30 days" -> 30, "24 hrs" -> 1, "2 weeks" -> 14,
 * "Monthly" -> 30); a plan of hours counts as one day. 0 when the text tells none.
 */
export function validityDaysFromText(text: string): number {
  const clean = text.trim().toLowerCase();
  if (Object.hasOwn(VALIDITY_WORDS, clean)) return VALIDITY_WORDS[clean]!;
  const match = /(\d+(?:\.\d+)?)\s*(?:-\s*(\d+)\s*)?([a-z]+)/i.exec(clean);
  if (match === null) return 0;
  const count = Number(match[2] ?? match[1]);
  for (const [unit, days] of VALIDITY_UNITS) {
    if (!unit.test(match[3]!)) continue;
    const total = days === 0 ? 1 : Math.ceil(count * days);
    return Number.isSafeInteger(total) && total > 0 && total <= MAX_VALIDITY_DAYS ? total : 0;
  }
  return 0;
}
