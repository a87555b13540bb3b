/**
 * Customer verification in the sandbox: a deterministic customer for every meter and smart
 * card, derived from the number alone, so a demo or a test sees the same name every time.
 * A number ending in 9999 is "not found", the sandbox's usual failing ending. Nothing here
 * is a real person or address.
 */
import { createHash } from 'node:crypto';
import { kobo } from '../../domain/money.js';
import type { CustomerDetails, CustomerQuery, VerifyOutcome } from '../port.js';

/** The sandbox's not-found ending, the same as its failing purchases. */
const NOT_FOUND_ENDING = '9999';

const FIRST_NAMES = [
  'Adaeze',
  'Babatunde',
  'Chinedu',
  'Fatima',
  'Ifeoma',
  'Musa',
  'Ngozi',
  'Oluwaseun',
  'Tunde',
  'Yetunde',
  'Emeka',
  'Aisha',
];
const LAST_NAMES = [
  'Okafor',
  'Adeyemi',
  'Bello',
  'Eze',
  'Ibrahim',
  'Nwosu',
  'Ogunleye',
  'Okoro',
  'Suleiman',
  'Uche',
  'Abubakar',
  'Balogun',
];
const STREETS = [
  'Allen Avenue, Ikeja',
  'Adeola Odeku Street, Victoria Island',
  'Aminu Kano Crescent, Wuse II',
  'Ogui Road, Enugu',
  'Trans-Amadi Road, Port Harcourt',
  'Zaria Road, Kano',
];

/** The smallest vend the sandbox's discos accept: the platform's own minimum, 1,000 Naira. */
const SANDBOX_MINIMUM_KOBO = kobo(1_000_00);
/**
 * Meters whose number ends in this have a higher minimum and arrears, as real discos report
 * for some meters, so a partner can see the per-meter minimum refused with a 422.
 */
const HIGH_MINIMUM_ENDING = '5555';
/** That meter's minimum vend (2,000 Naira) and its arrears (500 Naira). */
const HIGH_MINIMUM_KOBO = kobo(2_000_00);
const HIGH_MINIMUM_ARREARS_KOBO = kobo(500_00);

/** [bouquet name, monthly price in kobo] per cable provider, from the default catalog. */
const BOUQUETS: Readonly<Record<string, readonly (readonly [string, number])[]>> = {
  dstv: [
    ['DStv Padi', 2_500_00],
    ['DStv Yanga', 3_500_00],
    ['DStv Confam', 9_000_00],
    ['DStv Compact', 15_700_00],
  ],
  gotv: [
    ['GOtv Smallie', 1_575_00],
    ['GOtv Jinja', 2_715_00],
    ['GOtv Jolli', 4_085_00],
    ['GOtv Max', 5_500_00],
  ],
  startimes: [
    ['StarTimes Nova', 1_200_00],
    ['StarTimes Basic', 2_200_00],
    ['StarTimes Smart', 3_000_00],
  ],
};

/** A few bytes of a SHA-256 of the number: the same number always picks the same facts. */
function pick(number: string, salt: string, size: number): number {
  return createHash('sha256').update(`sandbox-customer:${salt}:${number}`).digest().readUInt32BE(0) % size;
}

/** The sandbox customer behind a meter or smart card. */
export function sandboxVerify(query: CustomerQuery, now: Date): VerifyOutcome {
  if (query.number.endsWith(NOT_FOUND_ENDING)) {
    return {
      kind: 'not_found',
      reason:
        `No customer has number ${query.number} ` + `(sandbox: numbers ending in ${NOT_FOUND_ENDING} are never found).`,
    };
  }
  const first = FIRST_NAMES[pick(query.number, 'first', FIRST_NAMES.length)];
  const customerName = `${first} ${LAST_NAMES[pick(query.number, 'last', LAST_NAMES.length)]}`;
  if (query.product === 'electricity') {
    const customer: CustomerDetails = {
      customerName,
      address: `${1 + pick(query.number, 'house', 120)} ${STREETS[pick(query.number, 'street', STREETS.length)]}`,
      meterType: query.meterType,
      minimumAmountKobo: SANDBOX_MINIMUM_KOBO,
    };
    if (query.number.endsWith(HIGH_MINIMUM_ENDING)) {
      customer.minimumAmountKobo = HIGH_MINIMUM_KOBO;
      customer.arrearsKobo = HIGH_MINIMUM_ARREARS_KOBO;
    }
    return { kind: 'found', customer };
  }
  const bouquets = BOUQUETS[query.service] ?? [];
  if (bouquets.length === 0) return { kind: 'not_found', reason: `The sandbox does not serve ${query.service}.` };
  const [bouquet, priceKobo] = bouquets[pick(query.number, 'bouquet', bouquets.length)]!;
  // Due some day in the coming month, fixed by the number, so it is always in the future.
  const due = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1 + pick(query.number, 'due', 28)));
  return {
    kind: 'found',
    customer: {
      customerName,
      currentBouquet: bouquet,
      dueDate: due.toISOString().slice(0, 10),
      renewalAmountKobo: kobo(priceKobo),
    },
  };
}
