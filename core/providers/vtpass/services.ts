/**
 * Our names for networks, discos and cable providers, as VTpass's serviceIDs (see
 * VTpass's documentation, https://www.vtpass.com/documentation/, summed up in docs/vtpass.md).
 * Records over the closed sets, so a new network or disco does not compile until it has its serviceID here.
 */
import { type CableProvider, canonicalNetwork, type Disco, type Network } from '../../domain/products.js';

/** Airtime serviceIDs by network. */
export const AIRTIME_SERVICE_IDS: Readonly<Record<Network, string>> = {
  mtn: 'mtn',
  glo: 'glo',
  airtel: 'airtel',
  // 9mobile was Etisalat Nigeria until 2017; VTpass kept the old name.
  '9mobile': 'etisalat',
};

/** Data serviceIDs by network (also the service-variations the plans sync reads). */
export const DATA_SERVICE_IDS: Readonly<Record<Network, string>> = {
  mtn: 'mtn-data',
  glo: 'glo-data',
  airtel: 'airtel-data',
  '9mobile': 'etisalat-data',
};

/** Electricity serviceIDs by disco; the meter type goes in variation_code. */
export const ELECTRICITY_SERVICE_IDS: Readonly<Record<Disco, string>> = {
  ekedc: 'eko-electric',
  ikedc: 'ikeja-electric',
  aedc: 'abuja-electric',
  phed: 'portharcourt-electric',
  eedc: 'enugu-electric',
  kedco: 'kano-electric',
  ibedc: 'ibadan-electric',
  bedc: 'benin-electric',
  yedc: 'yola-electric',
  // Not in VTpass's documentation (unsure): the serviceIDs VTpass's public catalogue shows for these
  // three. Check them against VTpass's service list before selling them live.
  kaedc: 'kaduna-electric',
  jed: 'jos-electric',
  aba: 'aba-electric',
};

/** Cable serviceIDs by provider. */
export const CABLE_SERVICE_IDS: Readonly<Record<CableProvider, string>> = {
  dstv: 'dstv',
  gotv: 'gotv',
  startimes: 'startimes',
};

/** The serviceID of a key of one of the tables, or undefined for a name outside it. */
export function serviceIdOf<K extends string>(table: Readonly<Record<K, string>>, name: string): string | undefined {
  return Object.hasOwn(table, name) ? table[name as K] : undefined;
}

/** The serviceID of a network by any of its names (t2 is 9mobile, which VTpass calls etisalat). */
export function networkServiceId(table: Readonly<Record<Network, string>>, name: string): string | undefined {
  const network = canonicalNetwork(name);
  return network === undefined ? undefined : table[network];
}

/** The network whose data plans a serviceID sells ("mtn-data" -> mtn), or undefined for any other service. */
export function dataNetworkOfServiceId(serviceId: string): Network | undefined {
  return (Object.keys(DATA_SERVICE_IDS) as Network[]).find((network) => DATA_SERVICE_IDS[network] === serviceId);
}

/** The cable provider whose bouquets a serviceID sells ("dstv" -> dstv), or undefined for any other service. */
export function cableProviderOfServiceId(serviceId: string): CableProvider | undefined {
  return (Object.keys(CABLE_SERVICE_IDS) as CableProvider[]).find((cable) => CABLE_SERVICE_IDS[cable] === serviceId);
}
