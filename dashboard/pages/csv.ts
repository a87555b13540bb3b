/**
 * CSV exports, streamed: rows come from an async generator that asks the core page after page,
 * go through runtime/csv.ts's stream (quoting, CR LF line ends) with runtime/csv.ts's formula guard, and
 * are written as the socket takes them, so memory stays one page whatever the history's length. A core failure
 * half-way cannot become
 * an error page any more (the status is sent): the stream is cut, which the browser reports as a
 * failed download rather than a short file that looks whole.
 */
import { once } from 'node:events';
import { csvStream, neutralised, type TextCell } from '../../runtime/csv.js';
import type { Answer, SignedInContext } from '../route.js';

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
  const csv = csvStream(columns);
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
