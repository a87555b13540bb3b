/**
 * CSV exports, streamed: rows come from an async generator that asks the core page after page,
 * go through csv-stringify (quoting, CR LF line ends), and are written as the socket takes them,
 * so memory stays one page whatever the history's length. A core failure half-way cannot become
 * an error page any more (the status is sent): the stream is cut, which the browser reports as a
 * failed download rather than a short file that looks whole.
 */
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import type { Answer, SignedInContext } from '../route.js';

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

function neutralised(cell: string | TextCell): string {
  if (typeof cell !== 'string') {
    // Excel drops the leading zero of 08031234567 and writes 45012345678 as 4.5E+10 unless the
    // cell is a text formula. Only bare digits get one (built here, not from the text), so
    // nothing the client typed can become a formula.
    return /^\d{1,30}$/.test(cell.text) ? `="${cell.text}"` : neutralised(cell.text);
  }
  return FORMULA_START.test(cell) && !/^-?\d+(\.\d+)?$/.test(cell) ? `'${cell}` : cell;
}

export async function streamCsv(
  ctx: SignedInContext,
  filename: string,
  columns: readonly string[],
  rows: () => AsyncGenerator<Array<string | TextCell>>,
): Promise<Answer> {
  const { res } = ctx;
  res.writeHead(200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${filename}"`,
    'Cache-Control': 'no-store',
  });
  const csv = stringify({ header: true, columns: [...columns], record_delimiter: 'windows' });
  csv.pipe(res);
  try {
    for await (const row of rows()) {
      if (!csv.write(row.map(neutralised))) await once(csv, 'drain');
      if (res.destroyed) return { kind: 'written' };
    }
    csv.end();
    await once(res, 'finish');
  } catch (error) {
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  }
  return { kind: 'written' };
}
