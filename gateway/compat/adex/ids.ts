/**
 * The Adex (PHP) family's ids (docs/compat.md): networks 1 MTN, 2 AIRTEL, 3 GLO, 4 9MOBILE, as
 * the family's clients send them. No source gives the family's own disco and cable numbering,
 * so the MSORG dialect's (Husmodata's) are used: unsure for every Adex site.
 */
import type { NETWORK_IDS as MSORG_NETWORK_IDS } from '../msorg/ids.js';

export { CABLE_IDS, DISCO_IDS } from '../msorg/ids.js';

/**
 * The family's name of the cable provider's field and of the cable path: the same letters as our
 * product word, spelled here once as the family's name, not ours.
 */
export const CABLE_FIELD = 'cable';

export const NETWORK_IDS: typeof MSORG_NETWORK_IDS = [
  { id: 1, name: 'MTN', ours: 'mtn', aliases: [] },
  { id: 2, name: 'AIRTEL', ours: 'airtel', aliases: [] },
  { id: 3, name: 'GLO', ours: 'glo', aliases: [] },
  { id: 4, name: '9MOBILE', ours: '9mobile', aliases: ['etisalat'] },
];
