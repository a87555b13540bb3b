/**
 * CSV cells made safe for a spreadsheet, shared by every part that writes CSV (the developer
 * area's exports, the console's reports, the CLI's `--csv`). Quoting and line ends are
 * csv-stringify's; what a cell may start with is ours.
 */
import { type Options, type Stringifier, stringify as stringifyStream } from 'csv-stringify';
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

/**
 * How every CSV here is written: header first, CR LF line ends (RFC 4180), and a cell quoted when it holds a
 * CR or an LF of its own as well as a quote or the separator. csv-stringify quotes a line break only when it is
 * the whole record delimiter (CR LF), but a spreadsheet ends a row at a bare CR or LF too: a transfer reference
 * `\r=1+1` left bare would start a new row whose first cell is a formula the guard never saw.
 */
function csvOptions(columns: readonly string[]): Options {
  return { header: true, columns: [...columns], record_delimiter: 'windows', quoted_match: /[\r\n]/ };
}

/** A whole CSV document, every cell neutralised (the formula guard), then quoted as csvOptions says. */
export function csvDocument(columns: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | TextCell>>): string {
  return stringify(
    rows.map((row) => row.map(neutralised)),
    csvOptions(columns),
  );
}

/** The streamed form of csvDocument: its writer passes each row's cells through `neutralised` first. */
export function csvStream(columns: readonly string[]): Stringifier {
  return stringifyStream(csvOptions(columns));
}

/** Naira with two decimals and no separators, from integer kobo without floating point: -1234.05. */
export function csvNaira(amountKobo: bigint | number): string {
  const value = BigInt(amountKobo);
  const abs = value < 0n ? -value : value;
  return `${value < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}
