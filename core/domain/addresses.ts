/**
 * Which budget a client address spends, for every throttle that counts by address (the
 * gateway's failed authentications, the developer area's sign-in): an IPv4 address alone, an
 * IPv6 one by its /64 network. One subscriber usually holds a whole /64, so counting single
 * IPv6 addresses would hand each of them 2^64 fresh budgets.
 */

/** The budget key of an address: the IPv4 address itself, or "<first four groups>::/64". */
export function addressBudgetKey(address: string): string {
  if (!address.includes(':')) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in hex without leading zeros ("::" expanded). */
function ipv6Groups(address: string): string[] {
  const bare = address.split('%')[0]!.toLowerCase();
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined];
  const part = (text: string | undefined) => (text === undefined || text === '' ? [] : text.split(':'));
  const left = part(head);
  const right = part(tail);
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => (group.includes('.') ? group : Number.parseInt(group, 16).toString(16)));
}
