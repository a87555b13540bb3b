/**
 * Spreadsheet exports (.xlsx), streamed with exceljs's workbook writer: rows go out as the
 * core hands its pages over, committed one by one, so memory stays about one page. Each cell
 * has its type: phone, meter and smart card numbers are text (leading zeros kept), times are
 * dates (Lagos wall time, shown as yyyy-mm-dd hh:mm:ss), money is a number with two decimals.
 * As with the CSV, a core failure half-way cuts the download instead of ending a short file.
 */
import ExcelJS from 'exceljs';
import type { Answer, SignedInContext } from '../route.js';

export type XlsxCell = string | number | Date | null;

export interface XlsxColumn {
  header: string;
  /** text: kept as typed; date: a date-time cell; money: Naira with two decimals; count: a whole number. */
  type: 'text' | 'date' | 'money' | 'count';
  width?: number;
}

const FORMATS: Readonly<Record<XlsxColumn['type'], string | undefined>> = {
  text: '@',
  date: 'yyyy-mm-dd hh:mm:ss',
  money: '#,##0.00',
  count: '0',
};

/** A time as Lagos wall time: spreadsheets keep no zone, and the pages show Lagos time. */
export function lagosWallTime(date: Date | undefined): Date | null {
  return date === undefined ? null : new Date(date.getTime() + 60 * 60_000);
}

/** Naira from kobo, as a spreadsheet number (two decimals shown by the cell's format). */
export function nairaNumber(amountKobo: bigint): number {
  return Number(amountKobo) / 100;
}

export async function streamXlsx(
  ctx: SignedInContext,
  filename: string,
  sheetName: string,
  columns: readonly XlsxColumn[],
  rows: () => AsyncGenerator<XlsxCell[]>,
): Promise<Answer> {
  const { res } = ctx;
  res.writeHead(200, {
    'Content-Type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'Content-Disposition': `attachment; filename="${filename}"`,
    'Cache-Control': 'no-store',
  });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: res, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = columns.map((column, i) => ({
    header: column.header,
    key: String(i),
    width: column.width ?? (column.type === 'date' ? 20 : column.type === 'money' ? 14 : 18),
    style: FORMATS[column.type] ? { numFmt: FORMATS[column.type]! } : {},
  }));
  sheet.getRow(1).font = { bold: true };
  try {
    for await (const cells of rows()) {
      if (res.destroyed) return { kind: 'written' };
      sheet.addRow(cells).commit();
    }
    sheet.commit();
    await workbook.commit();
  } catch (error) {
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  }
  return { kind: 'written' };
}
