/**
 * CSV cells as a spreadsheet reads them (runtime/csv.ts): a spreadsheet ends a row at a bare CR
 * or LF as well as at CR LF, so a cell holding one must be quoted, and a cell that starts a
 * formula is still guarded. Both writers are read back: the whole document (the console's
 * reports, the CLI) and the stream (the developer area's exports).
 */
import * as assert from 'uvu/assert';
import { csvDocument, csvStream, neutralised } from '../../runtime/csv.js';
import { suite } from '../helpers/suite.js';

const test = suite('runtime: CSV cells');

/** Rows as a spreadsheet splits them: quoted cells whole, a row ended by CR LF, a bare CR or a bare LF. */
function spreadsheetRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      rows.push([...row, cell]);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

const HOSTILE = [
  ['Bank transfer via paystack (\r=1+1)', '1'],
  ['a bare\nline feed', '2'],
  ['\r=1+1', '3'],
  ['a "quote", and a comma', '4'],
];

/** The stream as the developer area's exports use it (dashboard/pages/csv.ts): each row's cells neutralised. */
async function streamed(columns: string[], rows: string[][]): Promise<string> {
  const csv = csvStream(columns);
  const chunks: string[] = [];
  csv.on('data', (chunk: Buffer | string) => chunks.push(String(chunk)));
  const done = new Promise((resolve) => csv.on('end', resolve));
  for (const row of rows) csv.write(row.map(neutralised));
  csv.end();
  await done;
  return chunks.join('');
}

for (const [name, write] of [
  ['the whole document', async (columns: string[], rows: string[][]) => csvDocument(columns, rows)],
  ['the stream', streamed],
] as const) {
  test(`${name}: a cell with a bare CR or LF stays one cell of its row`, async () => {
    const text = await write(['memo', 'n'], HOSTILE);
    const rows = spreadsheetRows(text);
    assert.is(rows.length, 1 + HOSTILE.length, 'a header and one row per row written');
    assert.equal(rows[1], ['Bank transfer via paystack (\r=1+1)', '1']);
    assert.equal(rows[2], ['a bare\nline feed', '2']);
    assert.equal(rows[4], ['a "quote", and a comma', '4']);
    assert.ok(
      rows.every((row) => row.every((cell) => !/^[=+\-@]/.test(cell))),
      'no cell a spreadsheet reads starts a formula',
    );
  });

  test(`${name}: the formula guard still runs before the quoting`, async () => {
    const rows = spreadsheetRows(await write(['memo', 'n'], HOSTILE));
    assert.is(rows[3]![0], "'\r=1+1");
  });
}

test.run();
