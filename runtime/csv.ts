/**
 * CSV cells made safe for a spreadsheet, shared by every part that writes CSV (the developer
 * area's exports, the console's reports, the CLI's `--csv`). Quoting and line ends are
 * csv-stringify's; what a cell may start with is ours.
 */
import { stringify } from 'csv-stringify/sync';

/**
 * Cells a spreadsheet would run as a formula start with one of these; such a cell gets a
 * leading apostrophe (OWASP's advice against CSV injection). A recipient or a failure reason
 * is text from outside.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A number that is text (a phone, meter or smart card number): its leading zeros must survive. */
export interface TextCell {
  text: string;
}

export function asText(text: string): TextCell {
  return { text };
}

/** A cell as written: a formula start neutralised, a plain number (a negative margin too) left a number. */
export function neutralised(cell: string | TextCell): string {
  if (typeof cell !== 'string') {
    // Excel drops the leading zero of 08031234567 and writes 45012345678 as 4.5E+10 unless the
    // cell is a text formula. Only bare digits get one (built here, not from the text), so
    // nothing the client typed can become a formula.
    return /^\d{1,30}$/.test(cell.text) ? `="${cell.text}"` : neutralised(cell.text);
  }
  return FORMULA_START.test(cell) && !/^-?\d+(\.\d+)?$/.test(cell) ? `'${cell}` : cell;
}

/** A whole CSV document, header first, CR LF line ends (RFC 4180), every cell neutralised. */
export function csvDocument(columns: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | TextCell>>): string {
  return stringify(
    rows.map((row) => row.map(neutralised)),
    { header: true, columns: [...columns], record_delimiter: 'windows' },
  );
}

/** Naira with two decimals and no separators, from integer kobo without floating point: -1234.05. */
export function csvNaira(amountKobo: bigint | number): string {
  const value = BigInt(amountKobo);
  const abs = value < 0n ? -value : value;
  return `${value < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}
