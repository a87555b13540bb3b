/**
 * Which address a request came from. The socket's peer is the truth unless that peer is a
 * proxy we were told to trust; only then is X-Forwarded-For read, from the right, because
 * everything left of the last hop a trusted proxy appended was written by the client and
 * can be forged. The gateway, the developer area's neighbour and the console read their
 * trusted proxies (TRUSTED_PROXIES, CONSOLE_TRUSTED_PROXIES) with the same functions here.
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP, type Socket } from 'node:net';
import { ConfigError } from './env-schema.js';

/** Returns the client IP of a request. */
export type ClientIpResolver = (req: IncomingMessage) => string;

/** Builds a resolver that believes X-Forwarded-For only from the trusted proxies. */
export function createClientIpResolver(trustedProxies: BlockList): ClientIpResolver {
  const isTrusted = (address: string): boolean => trustedProxies.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  // A connection's peer never changes, and keep-alive clients send many requests on one:
  // its address and whether it is a trusted proxy are worked out once per connection.
  const peers = new WeakMap<Socket, { peer: string; trusted: boolean }>();

  return (req) => {
    let known = peers.get(req.socket);
    if (known === undefined) {
      // A socket always has a peer address while the request is being handled; "" only
      // after it was destroyed, and then nothing we answer reaches anyone anyway.
      const peer = normalizeAddress(req.socket.remoteAddress ?? '') ?? '';
      known = { peer, trusted: peer !== '' && isTrusted(peer) };
      if (peer !== '') peers.set(req.socket, known);
    }
    const { peer, trusted } = known;
    if (!trusted) return peer;

    const hops = forwardedHops(req);
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalizeAddress(hops[i]!);
      // A malformed hop means a proxy passed on something it should not have; the last
      // address a trusted proxy vouched for is the best we know.
      if (hop === undefined) break;
      client = hop;
      if (!isTrusted(hop)) break;
    }
    return client;
  };
}

/** Every X-Forwarded-For entry, in order, across repeated headers. */
function forwardedHops(req: IncomingMessage): string[] {
  const raw = req.headers['x-forwarded-for'];
  if (raw === undefined) return [];
  const text = Array.isArray(raw) ? raw.join(',') : raw;
  return text
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
}

/**
 * An address in the form the core's IP locks use: IPv4-mapped IPv6 ("::ffff:1.2.3.4", what
 * a dual-stack socket reports) becomes plain IPv4, and a port or brackets some proxies add
 * are dropped. Undefined when it is not an IP address at all.
 */
export function normalizeAddress(raw: string): string | undefined {
  let address = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) address = mapped[1]!;
  if (isIP(address) === 0) return undefined;
  return address.toLowerCase();
}

/** A BlockList of IPs and CIDRs as a configuration variable `name` wrote them. */
export function addressList(name: string, entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parseAddressOrCidr(entry);
    if (parsed === undefined) throw new ConfigError(name, `"${entry}" is not an IP address or CIDR.`);
    if (parsed.prefix === undefined) list.addAddress(parsed.address, parsed.family);
    else list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return list;
}

/** A comma-separated list of IPs and CIDRs, as written; empty text is an empty list. */
export function parseAddressList(name: string, text: string): string[] {
  const entries = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const entry of entries) {
    if (parseAddressOrCidr(entry) === undefined)
      throw new ConfigError(name, `"${entry}" is not an IP address or CIDR.`);
  }
  return entries;
}

interface ParsedAddress {
  address: string;
  family: 'ipv4' | 'ipv6';
  prefix: number | undefined;
}

function parseAddressOrCidr(entry: string): ParsedAddress | undefined {
  const [address = '', prefixText, extra] = entry.split('/');
  if (extra !== undefined) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, family, prefix: undefined };
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > (version === 4 ? 32 : 128)) return undefined;
  return { address, family, prefix };
}
