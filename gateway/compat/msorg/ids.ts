/**
 * The MSORG (Django) family's ids (docs/compat.md): networks 1 MTN, 2 GLO, 3 9MOBILE, 4 AIRTEL;
 * Husmodata's discos 1 to 10 and cable providers 1 GOTV, 2 DSTV, 3 STARTIME (other sites of the
 * family may number them otherwise: unsure). Each is read from an integer, a numeric string or
 * a name, as the family's clients send them.
 */
import type { CableProvider, Disco, Network } from '../../../core/domain/products.js';

/** A family id and the names clients send for it, with our word. */
interface Id<T extends string> {
  id: number;
  /** The family's own name, as its answers spell it. */
  name: string;
  ours: T;
  /** Other spellings accepted (lower case, spaces and dashes removed). */
  aliases: readonly string[];
}

export const NETWORK_IDS: readonly Id<Network>[] = [
  { id: 1, name: 'MTN', ours: 'mtn', aliases: [] },
  { id: 2, name: 'GLO', ours: 'glo', aliases: [] },
  { id: 3, name: '9MOBILE', ours: '9mobile', aliases: ['etisalat'] },
  { id: 4, name: 'AIRTEL', ours: 'airtel', aliases: [] },
];

/** Husmodata's disco ids (unsure for other sites). */
export const DISCO_IDS: readonly Id<Disco>[] = [
  { id: 1, name: 'Ikeja Electric', ours: 'ikedc', aliases: ['ikejaelectric', 'ikeja'] },
  { id: 2, name: 'Eko Electric', ours: 'ekedc', aliases: ['ekoelectric', 'eko'] },
  { id: 3, name: 'Abuja Electric', ours: 'aedc', aliases: ['abujaelectric', 'abuja'] },
  { id: 4, name: 'Kano Electric', ours: 'kedco', aliases: ['kanoelectric', 'kano'] },
  { id: 5, name: 'Enugu Electric', ours: 'eedc', aliases: ['enuguelectric', 'enugu'] },
  { id: 6, name: 'Port Harcourt Electric', ours: 'phed', aliases: ['portharcourtelectric', 'portharcourt'] },
  { id: 7, name: 'Ibadan Electric', ours: 'ibedc', aliases: ['ibadanelectric', 'ibadan'] },
  { id: 8, name: 'Kaduna Electric', ours: 'kaedc', aliases: ['kadunaelectric', 'kaduna'] },
  { id: 9, name: 'Jos Electric', ours: 'jed', aliases: ['joselectric', 'jos'] },
  { id: 10, name: 'Benin Electric', ours: 'bedc', aliases: ['beninelectric', 'benin'] },
];

export const CABLE_IDS: readonly Id<CableProvider>[] = [
  { id: 1, name: 'GOTV', ours: 'gotv', aliases: [] },
  { id: 2, name: 'DSTV', ours: 'dstv', aliases: [] },
  { id: 3, name: 'STARTIME', ours: 'startimes', aliases: ['startime'] },
];

/** Meter types: 1 prepaid, 2 postpaid, or the words in any case. */
export function meterTypeOf(value: unknown): 'prepaid' | 'postpaid' | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (text === '1' || text === 'prepaid') return 'prepaid';
  if (text === '2' || text === 'postpaid') return 'postpaid';
  return undefined;
}

/** The entry a client's value names: its id (a number or a numeric string), our word, or a name. */
export function lookUp<T extends string>(table: readonly Id<T>[], value: unknown): Id<T> | undefined {
  if (typeof value === 'number') return table.find((entry) => entry.id === value);
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d{1,3}$/.test(text)) return table.find((entry) => entry.id === Number(text));
  const key = text.toLowerCase().replace(/[\s_-]+/g, '');
  return table.find(
    (entry) =>
      entry.ours === key || entry.name.toLowerCase().replace(/\s+/g, '') === key || entry.aliases.includes(key),
  );
}

/** The entry of one of our words, for answers. */
export function byOurs<T extends string>(table: readonly Id<T>[], ours: string): Id<T> | undefined {
  return table.find((entry) => entry.ours === ours);
}
