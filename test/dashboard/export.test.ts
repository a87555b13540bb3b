/**
 * The transaction exports read back: the CSV (parsed as a spreadsheet program would read its
 * text) and the .xlsx (opened with exceljs), from a real core and dashboard on port 0. Both
 * name products as the API does (bulksms), write ISO 8601 times, say what was refunded, have
 * charges that sum to what the wallet really spent, and keep phone and meter numbers as text.
 */
import ExcelJS from 'exceljs';
import * as assert from 'uvu/assert';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  cookie: string;
  spentKobo: bigint;
}

const test = suite<State>('dashboard: CSV and Excel exports', {} as State);
const START_KOBO = 5_000_000n;

test.before(async (state) => {
  state.core = await startCore();
  state.dashboard = await startTestDashboard(state.core);
  const { accountId } = await state.core.createApiAccount({ balanceKobo: Number(START_KOBO) });
  const purchase = state.core.purchase;
  await purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 50_000n });
  await purchase
    .buyAirtime({ accountId, network: 'glo', phone: '08059999999', amountKobo: 10_000n })
    .catch(() => undefined);
  await purchase.sendBulkSms({
    accountId,
    sender: 'Shop',
    recipients: ['08031234567', '07012345678'],
    message: 'Hello',
  });
  await purchase.payElectricity({
    accountId,
    disco: 'ikedc',
    meterNumber: '04512345678',
    meterType: 'prepaid',
    amountKobo: 200_000n,
    phone: '',
  });
  state.spentKobo = START_KOBO - (await purchase.getBalance({ accountId })).balanceKobo;
  const { invitation } = await state.core
    .clientWithToken(UserAdminService, state.core.adminToken)
    .inviteUser({ accountId, email: 'books@example.ng', role: UserRole.VIEWER });
  await state.dashboard.client.holder.acceptInvitation({
    invitationToken: invitation!.invitationToken,
    password: 'a long enough password',
  });
  const signedIn = await state.dashboard.client.holder.signIn({
    email: 'books@example.ng',
    password: 'a long enough password',
    clientIp: '127.0.0.1',
  });
  state.cookie = `prepaid_session=${signedIn.sessionToken}`;
});

test.after(async (state) => {
  await state.dashboard?.close();
  await state.core?.close();
});

/**
 * A CSV line's cells (the export quotes only what needs it; none of these rows has a comma inside a quote but
 * the failure reason).
 */
function cells(line: string): string[] {
  const out: string[] = [];
  const pattern = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
  for (const match of line.matchAll(pattern)) {
    if (match[0] === '' && out.length > 0 && match.index === line.length) break;
    const cell = match[1]!;
    out.push(cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell);
    if (match[2] === '') break;
  }
  return out;
}

test(
  'the CSV: API product names, ISO 8601 times, a refunded column, charges that sum to the spend, numbers ' +
    'kept as text',
  async (state) => {
    const response = await fetch(`${state.dashboard.url}/transactions.csv`, { headers: { cookie: state.cookie } });
    assert.is(response.status, 200);
    const [header, ...lines] = (await response.text()).trim().split('\r\n');
    const columns = cells(header!);
    const rows = lines.map((line) => Object.fromEntries(cells(line).map((cell, i) => [columns[i], cell])));
    assert.is(rows.length, 4);
    assert.ok(columns.includes('refunded'));
    assert.equal(rows.map((r) => r.product).sort(), ['airtime', 'airtime', 'bulksms', 'electricity']);
    for (const row of rows) assert.match(row.created_at!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+01:00$/);
    const failed = rows.find((r) => r.status === 'failed')!;
    assert.is(failed.charged, '0.00', 'a refunded purchase cost nothing');
    assert.ok(Number(failed.refunded) > 0 && Number(failed.refunded) <= 100, 'its whole charge came back');
    const charged = rows.reduce((sum, r) => sum + Math.round(Number(r.charged) * 100), 0);
    assert.is(BigInt(charged), state.spentKobo, 'the charged column sums to what the wallet really spent');
    const electricity = rows.find((r) => r.product === 'electricity')!;
    assert.is(electricity.recipient, '="04512345678"', 'the meter number stays text in Excel, leading zero and all');
    assert.is(rows.find((r) => r.product === 'bulksms')!.recipient, '', 'a bulk SMS has no one recipient');
  },
);

test('the .xlsx: typed cells (zero-led text numbers, dates, money), the same columns and sums', async (state) => {
  const response = await fetch(`${state.dashboard.url}/transactions.xlsx`, { headers: { cookie: state.cookie } });
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', 'spreadsheetml');
  assert.match(response.headers.get('content-disposition') ?? '', 'transactions.xlsx');
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(await response.arrayBuffer()) as unknown as ArrayBuffer);
  const sheet = workbook.getWorksheet('Transactions')!;
  const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
  const col = (name: string) => header.indexOf(name) + 1;
  assert.is(sheet.rowCount, 5);
  let charged = 0;
  for (let r = 2; r <= sheet.rowCount; r++) {
    const row = sheet.getRow(r);
    assert.instance(row.getCell(col('created_at')).value, Date, 'times are dates');
    assert.is(row.getCell(col('created_at')).numFmt, 'yyyy-mm-dd hh:mm:ss');
    assert.type(row.getCell(col('charged')).value, 'number', 'money is a number');
    assert.is(row.getCell(col('charged')).numFmt, '#,##0.00');
    charged += Math.round((row.getCell(col('charged')).value as number) * 100);
    if (row.getCell(col('product')).value === 'electricity') {
      assert.is(row.getCell(col('recipient')).value, '04512345678', 'the meter number is text, its zero kept');
      assert.is(row.getCell(col('recipient')).type, ExcelJS.ValueType.String);
    }
    if (row.getCell(col('status')).value === 'failed')
      assert.ok((row.getCell(col('refunded')).value as number) > 0, 'the refund is said');
  }
  assert.is(BigInt(charged), state.spentKobo);
  assert.ok(header.includes('refunded'));
});

test('Lighthouse basics: /favicon.ico answers with the icon, and pages carry a meta description', async (state) => {
  const icon = await fetch(`${state.dashboard.url}/favicon.ico`);
  assert.is(icon.status, 200);
  assert.is(icon.headers.get('content-type'), 'image/svg+xml');
  assert.match(await icon.text(), '<svg');
  const signIn = await (await fetch(`${state.dashboard.url}/sign-in`)).text();
  assert.match(signIn, /<meta name="description" content="[^"]{50,}">/);
  assert.match(signIn, '<link rel="icon" href="/static/favicon.svg"');
});

test.run();
