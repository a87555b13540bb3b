/**
 * Realistic electricity results for the sandbox: a 20-digit STS token and the energy the
 * face value buys. Both are pure functions of the request, so a re-query made after a
 * restart shows the customer the same token as the first answer did.
 */
import { createHash } from 'node:crypto';
import { type Kobo, kobo } from '../../domain/money.js';
import { type DeliveryResult, DISCOS, type Disco, isOneOf } from '../../domain/products.js';

/**
 * Price of one kWh per disco, in kobo. These are sandbox figures, loosely modelled on the
 * 2024/25 Band A tariffs (around N200 to N225 per kWh); they are not any disco's real
 * tariff and must never be shown as one.
 */
export const SANDBOX_TARIFF_KOBO_PER_KWH: Readonly<Record<Disco, Kobo>> = {
  ekedc: kobo(20_950),
  ikedc: kobo(20_950),
  aedc: kobo(20_980),
  phed: kobo(21_250),
  eedc: kobo(21_000),
  kedco: kobo(20_800),
  ibedc: kobo(20_950),
  bedc: kobo(21_500),
  yedc: kobo(22_400),
  kaedc: kobo(21_900),
  jed: kobo(21_700),
  aba: kobo(21_300),
};

/** An STS token has 20 digits; customers read it in groups of four. */
const TOKEN_DIGITS = 20;
const TOKEN_GROUP = 4;
const TOKEN_MODULUS = 10n ** BigInt(TOKEN_DIGITS);

/**
 * The token the sandbox issues for a reference: 20 digits drawn from a SHA-256 of the
 * reference, shown as "1234-5678-9012-3456-7890". A 256-bit hash reduced modulo 10^20
 * is uniform for every practical purpose, and distinct references give distinct tokens
 * unless SHA-256 collides on 20 digits, which a test suite will not see.
 */
function sandboxToken(reference: string, kind = 'sts-token'): string {
  const digest = createHash('sha256').update(`sandbox-${kind}:${reference}`).digest('hex');
  const digits = (BigInt(`0x${digest}`) % TOKEN_MODULUS).toString().padStart(TOKEN_DIGITS, '0');
  const groups: string[] = [];
  for (let start = 0; start < TOKEN_DIGITS; start += TOKEN_GROUP) groups.push(digits.slice(start, start + TOKEN_GROUP));
  return groups.join('-');
}

/**
 * Energy bought with a face value at a tariff, as "<n> kWh" with one decimal. It rounds
 * down, as a vending system does: it never credits energy that was not paid for. The
 * arithmetic stays in integers (tenths of a kWh) so no float touches the amount.
 */
function sandboxUnits(faceValueKobo: Kobo, tariffKoboPerKwh: Kobo): string {
  const tenths = Math.floor((faceValueKobo * 10) / tariffKoboPerKwh);
  return `${Math.floor(tenths / 10)}.${tenths % 10} kWh`;
}

/**
 * Prepaid meters whose number ends in this get what a vend after the 2024 token-identifier
 * rollover looks like: two key-change tokens (KCT) and a free-basic-electricity bonus token
 * besides the energy token, so a partner can see and test the whole answer.
 */
const KCT_METER_ENDING = '6666';

/** What an electricity purchase delivers, or why the sandbox cannot deliver it. */
export type ElectricityResult = { ok: true; result: DeliveryResult } | { ok: false; reason: string };

/**
 * The delivery of an electricity purchase without its provider reference. A prepaid meter
 * gets a token and units; a postpaid payment settles a bill, so it delivers neither. Validation
 * always names the meter type, so a missing one is taken as prepaid, the common case. A disco
 * outside the closed set is refused the way a real upstream refuses an unknown biller.
 */
export function electricityDelivery(
  service: string,
  meterType: string | undefined,
  faceValueKobo: Kobo,
  reference: string,
  meterNumber = '',
): ElectricityResult {
  if (!isOneOf(DISCOS, service)) {
    return { ok: false, reason: `The provider does not serve the disco "${service}".` };
  }
  if (meterType === 'postpaid') return { ok: true, result: {} };
  const result: DeliveryResult = {
    token: sandboxToken(reference),
    units: sandboxUnits(faceValueKobo, SANDBOX_TARIFF_KOBO_PER_KWH[service]),
  };
  if (meterNumber.endsWith(KCT_METER_ENDING)) {
    result.kctTokens = [sandboxToken(reference, 'kct-1'), sandboxToken(reference, 'kct-2')];
    result.bonusTokens = [sandboxToken(reference, 'bonus-token')];
  }
  return { ok: true, result };
}
