/**
 * Reading VTpass's `merchant-verify` answers. A wrong number may still come back with code
 * 000 (VTpass's documentation), so "found" needs a customer name and no `WrongBillersCode` or `error`.
 * Field names vary by biller and over time; each fact is read from the first of its known
 * spellings that holds a usable value, and a fact that is absent or unreadable is left out.
 */
import { type Kobo, parseNaira } from '../../domain/money.js';
import type { CustomerDetails, VerifyOutcome } from '../port.js';
import type { HttpAnswer } from '../upstream-http.js';
import { asObject } from './codes.js';

/** Names, addresses and bouquets are shown to partners: bounded, single-line. */
const MAX_TEXT_LENGTH = 120;

/** Reads a merchant-verify exchange. Never throws. */
export function verifyOutcome(answer: HttpAnswer): VerifyOutcome {
  if (answer.kind === 'no_answer') return { kind: 'unavailable', reason: answer.reason };
  if (answer.status >= 500 || answer.status < 200)
    return { kind: 'unavailable', reason: `the provider answered HTTP ${answer.status}` };
  const body = asObject(answer.json);
  if (body === undefined)
    return {
      kind: 'unavailable',
      reason: `malformed answer from the provider: ${answer.problem ?? 'not a JSON object'}`,
    };
  const code = body['code'];
  if (code !== '000' && code !== '020') {
    return {
      kind: 'unavailable',
      reason: `the provider could not verify the customer (code ${
        typeof code === 'string' ? code.slice(0, 8) : 'missing'
      })`,
    };
  }
  const content = asObject(body['content']);
  if (content === undefined) return { kind: 'unavailable', reason: 'malformed answer from the provider: no content' };
  const wrong = content['WrongBillersCode'];
  const error = text(content['error']);
  if (wrong === true || wrong === 'true' || error !== undefined) {
    return { kind: 'not_found', reason: error ?? 'The provider does not know this number.' };
  }
  const customerName = pick(content, ['Customer_Name', 'customer_name', 'Customer_name', 'name'], text);
  if (customerName === undefined)
    return { kind: 'not_found', reason: 'The provider returned no customer for this number.' };
  const customer: CustomerDetails = { customerName };
  const address = pick(content, ['Address', 'address', 'Customer_Address'], text);
  if (address !== undefined) customer.address = address;
  const meterType = pick(content, ['Meter_Type', 'meter_type', 'Customer_Account_Type'], text);
  if (meterType !== undefined) customer.meterType = meterType;
  const minimum = pick(content, ['Min_Purchase_Amount', 'Minimum_Amount', 'minimum_amount'], naira);
  if (minimum !== undefined) customer.minimumAmountKobo = minimum;
  const arrears = pick(content, ['Customer_Arrears', 'arrears'], naira);
  if (arrears !== undefined) customer.arrearsKobo = arrears;
  const bouquet = pick(content, ['Current_Bouquet', 'current_bouquet', 'Current_bouquet'], text);
  if (bouquet !== undefined) customer.currentBouquet = bouquet;
  // VTpass's documentation says verify tells the current bouquet but not how its code is spelled (unsure).
  const bouquetCode = pick(content, ['Current_Bouquet_Code', 'current_bouquet_code'], text);
  if (bouquetCode !== undefined) customer.currentBouquetCode = bouquetCode;
  const due = pick(content, ['Due_Date', 'due_date', 'Due_date'], text);
  if (due !== undefined) customer.dueDate = due;
  // VTpass's documentation leaves this field's name unsure; these are the spellings seen in clients.
  const renewal = pick(content, ['Renewal_Amount', 'renewal_amount', 'Renewal_amount', 'RenewalAmount'], naira);
  if (renewal !== undefined) customer.renewalAmountKobo = renewal;
  return { kind: 'found', customer };
}

function pick<T>(
  content: Record<string, unknown>,
  fields: readonly string[],
  read: (value: unknown) => T | undefined,
): T | undefined {
  for (const field of fields) {
    const value = read(content[field]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** A non-empty single line of at most MAX_TEXT_LENGTH characters, or undefined. */
function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const clean = value
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is what this pattern is for.
    .replace(/[\u0000-\u001F\u007F]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return undefined;
  return clean.length > MAX_TEXT_LENGTH ? `${clean.slice(0, MAX_TEXT_LENGTH - 1)}…` : clean;
}

/** A Naira amount (number, "1000", "1,000.00") in kobo; empty strings and zero are absent. */
export function naira(value: unknown): Kobo | undefined {
  const candidate = typeof value === 'string' ? value.replace(/,/g, '').trim() : value;
  if (candidate === '' || candidate === undefined || candidate === null) return undefined;
  const parsed = parseNaira(candidate);
  return parsed.ok && parsed.kobo > 0 ? parsed.kobo : undefined;
}
