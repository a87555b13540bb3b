/**
 * VTpass's serviceIDs (https://www.vtpass.com/documentation/service-ids/) as our products and
 * words (docs/compat.md, VTpass): airtime `mtn`, `glo`, `airtel`, `etisalat` (9mobile, which
 * VTpass still calls by its old name); data the same with `-data`; electricity one serviceID a
 * disco; cable `dstv`, `gotv`, `startimes`. The core's VTpass adapter keeps the same table for
 * the other direction (core/providers/vtpass/services.ts); a client may not import it.
 */
import type { CableProvider, Disco, Network } from '../../../core/domain/products.js';
import { Product } from '../../../gen/prepaid/v1/types_pb.js';

/** The products VTpass's `pay` sells here, as the contract's enum (their words are core/domain/words.ts's). */
export type VtpassProduct = Product.AIRTIME | Product.DATA | Product.ELECTRICITY | Product.CABLE;

/** One serviceID: what it sells, our word for its network, disco or cable provider, and VTpass's names. */
export interface VtpassService {
  serviceID: string;
  product: VtpassProduct;
  ours: string;
  /** `content.transactions.product_name` (VTpass's wording as in its samples; unsure for each service). */
  productName: string;
  /** `content.transactions.type`. */
  type: string;
}

const airtime = (serviceID: string, ours: Network, name: string): VtpassService => ({
  serviceID,
  product: Product.AIRTIME,
  ours,
  productName: `${name} Airtime VTU`,
  type: 'Airtime Recharge',
});

const data = (serviceID: string, ours: Network, name: string): VtpassService => ({
  serviceID,
  product: Product.DATA,
  ours,
  productName: `${name} Data`,
  type: 'Data Services',
});

const electricity = (serviceID: string, ours: Disco, name: string): VtpassService => ({
  serviceID,
  product: Product.ELECTRICITY,
  ours,
  productName: `${name} Payment - ${ours.toUpperCase()}`,
  type: 'Electricity Bill',
});

const cable = (serviceID: string, ours: CableProvider, name: string): VtpassService => ({
  serviceID,
  product: Product.CABLE,
  ours,
  productName: `${name} Subscription`,
  type: 'TV Subscription',
});

const VTPASS_SERVICES: readonly VtpassService[] = [
  airtime('mtn', 'mtn', 'MTN'),
  airtime('glo', 'glo', 'GLO'),
  airtime('airtel', 'airtel', 'Airtel'),
  airtime('etisalat', '9mobile', '9mobile'),
  data('mtn-data', 'mtn', 'MTN'),
  data('glo-data', 'glo', 'GLO'),
  data('airtel-data', 'airtel', 'Airtel'),
  data('etisalat-data', '9mobile', '9mobile'),
  electricity('eko-electric', 'ekedc', 'Eko Electric'),
  electricity('ikeja-electric', 'ikedc', 'Ikeja Electric'),
  electricity('abuja-electric', 'aedc', 'Abuja Electric'),
  electricity('portharcourt-electric', 'phed', 'Port Harcourt Electric'),
  electricity('enugu-electric', 'eedc', 'Enugu Electric'),
  electricity('kano-electric', 'kedco', 'Kano Electric'),
  electricity('ibadan-electric', 'ibedc', 'Ibadan Electric'),
  electricity('benin-electric', 'bedc', 'Benin Electric'),
  electricity('yola-electric', 'yedc', 'Yola Electric'),
  // Not in VTpass's documented list (unsure): the serviceIDs its public catalogue shows for
  // Kaduna, Jos and Aba, the same ones the core's adapter sends. A client naming them reaches
  // our disco; whether VTpass itself spells them so is not confirmed.
  electricity('kaduna-electric', 'kaedc', 'Kaduna Electric'),
  electricity('jos-electric', 'jed', 'Jos Electric'),
  electricity('aba-electric', 'aba', 'Aba Electric'),
  cable('dstv', 'dstv', 'DSTV'),
  cable('gotv', 'gotv', 'Gotv'),
  cable('startimes', 'startimes', 'Startimes'),
];

/** The service a client's serviceID names (VTpass's are lower case; any case is taken), or undefined. */
export function serviceOf(value: unknown): VtpassService | undefined {
  if (typeof value !== 'string') return undefined;
  const id = value.trim().toLowerCase();
  return VTPASS_SERVICES.find((service) => service.serviceID === id);
}

/** The service of one of our words in a product family, for answers. */
export function serviceOfOurs(product: VtpassProduct, ours: string): VtpassService | undefined {
  const word = ours === 't2' ? '9mobile' : ours;
  return VTPASS_SERVICES.find((service) => service.product === product && service.ours === word);
}
