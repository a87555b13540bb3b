/**
 * Where a webhook may point, and the one HTTP client that posts to it.
 *
 * A webhook URL is typed by a partner, so the core must never become a way into our own
 * network: only https to public addresses. The address is checked when the connection is
 * made, on the address actually dialled (a custom `lookup`), not when the URL is saved: a
 * name that resolved to a public address yesterday and to 10.0.0.5 now (DNS rebinding) is
 * refused at the moment it matters. An IP literal in the URL never goes through `lookup`,
 * so it is checked before the request. WEBHOOK_ALLOW_PRIVATE=true lets development and
 * tests use http and loopback receivers.
 *
 * Posts go through the platform's one outbound client (runtime/outbound-http.ts): no redirect is
 * followed, every attempt ends within a bound (a tenth of a second more at most: deadlines are
 * shared, see sharedDeadlines), and the answer's body is read only up to a small bound: a
 * receiver can neither hold a delivery slot for long nor make the core buffer a large answer.
 * What this file adds: the public-address check and a connection pool per account.
 */
import dns from 'node:dns';
import { setMaxListeners } from 'node:events';
import net from 'node:net';
import { type OutboundClient, outboundClient } from '../../runtime/outbound-http.js';

/** The longest URL accepted: far beyond any real endpoint, small enough to log and store. */
const MAX_WEBHOOK_URL_CHARS = 2_048;
/** A receiver has this long to answer with a 2xx (the contract says 10 s). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of an answer's body is read (and then dropped); the rest closes the connection. */
const MAX_ANSWER_BYTES = 16 * 1024;

/**
 * Addresses that are not the public internet: private, loopback, link-local (cloud
 * metadata at 169.254.169.254), carrier-grade NAT, multicast, reserved, documentation and
 * benchmarking ranges, and the IPv6 forms of each (IPv4-mapped addresses are unwrapped).
 */
const NOT_PUBLIC = (() => {
  const list = new net.BlockList();
  for (const [address, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    list.addSubnet(address, prefix, 'ipv4');
  }
  for (const [address, prefix] of [
    ['::', 128],
    ['::1', 128],
    ['64:ff9b::', 96],
    ['64:ff9b:1::', 48],
    ['100::', 64],
    ['2001::', 23],
    ['2001:db8::', 32],
    ['2002::', 16],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
  ] as const) {
    list.addSubnet(address, prefix, 'ipv6');
  }
  return list;
})();

/** True when `address` (an IP literal) is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  return !NOT_PUBLIC.check(address, 'ipv6');
}

/** Why a webhook URL is refused, or the parsed URL. */
export type DestinationCheck = { url: URL; problem?: undefined } | { url?: undefined; problem: string };

/** The checks that need no DNS, made when a URL is saved and again before each attempt. */
export function checkWebhookUrl(text: string, allowPrivate: boolean): DestinationCheck {
  if (text.length > MAX_WEBHOOK_URL_CHARS)
    return { problem: `url must be at most ${MAX_WEBHOOK_URL_CHARS} characters.` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'url must be an absolute URL such as https://example.com/webhooks.' };
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return { problem: 'url must start with https://.' };
  if (url.username !== '' || url.password !== '') return { problem: 'url must not carry a user name or password.' };
  if (url.hash !== '') return { problem: 'url must not have a #fragment.' };
  // The URL parser takes 0 as a port, but nothing can be dialled there.
  if (url.port === '0') return { problem: 'url must not name port 0.' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate) {
    // An IP literal is judged by its address alone (an IPv6 one has no dot to look for).
    if (net.isIP(host) !== 0) {
      if (!isPublicAddress(host)) return { problem: 'url must point at a public address.' };
    } else if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.'))
      return { problem: 'url must point at a public host name.' };
  }
  return { url };
}

/** An error whose message is safe to record and show: it names no secret. */
class DestinationRefused extends Error {}

/**
 * The `lookup` of every webhook connection: resolves the name and refuses it unless every
 * address it resolves to is public, so no answer of a rebinding DNS server can steer the
 * connection inward.
 */
type Resolve = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

const publicOnlyLookup =
  (resolve: Resolve) =>
  (
    hostname: string,
    options: dns.LookupOptions,
    callback: (error: Error | null, address?: string | dns.LookupAddress[], family?: number) => void,
  ): void => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const list = addresses as dns.LookupAddress[];
      if (list.length === 0 || list.some((a) => !isPublicAddress(a.address))) {
        return callback(new DestinationRefused(`${hostname} resolves to an address that is not public`));
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };

/** What one POST got: the HTTP status (0 for no answer) and, when it failed, why. */
export interface PostResult {
  status: number;
  error: string | null;
}

export interface Poster {
  /**
   * POSTs `body` to `url` over `account`'s own connections: accounts never share a
   * connection pool, so accounts whose webhooks point at one origin cannot take each other's.
   */
  post(url: string, body: string, headers: Record<string, string>, account?: string): Promise<PostResult>;
  close(): void;
}

/**
 * Accounts whose connection pools are kept at once; past it, the least recently used pool is
 * closed (its attempts in flight end first) and made again when its account next delivers.
 */
const MAX_ACCOUNT_POOLS = 1_024;

/**
 * The poster: an outbound client per account (a keep-alive pool per receiver: a busy one is posted
 * to many times a second), the public-only lookup unless private destinations are allowed, the
 * time and size bounds. One Agent for all accounts pooled by origin alone: four accounts whose
 * webhooks pointed at one origin and never answered held all its connections, and a fifth
 * account's events on that origin waited behind them. undici rather than node:http: its client costs about 50 µs of CPU per POST
 * against node:http's 85 (measured side by side on the development machine), and every
 * delivery's CPU is taken from the core's event loop, where purchases wait their turn.
 */
export function createPoster(options: {
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Connections at most of one account to one origin (the worker's bound in flight per account). */
  maxSockets?: number;
  /** The name resolver; tests stand in a DNS server that answers with a private address. */
  resolve?: Resolve;
}): Poster {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const lookup = options.allowPrivate
    ? undefined
    : (publicOnlyLookup(options.resolve ?? (dns.lookup as unknown as Resolve)) as unknown as net.LookupFunction);
  const pools = accountPools(() =>
    outboundClient({
      connections: options.maxSockets ?? DEFAULT_SOCKETS_PER_ACCOUNT,
      // The whole attempt is bounded below; this only makes sure no phase outlives it.
      timeoutMs,
      ...(lookup === undefined ? {} : { lookup }),
    }),
  );

  const deadline = sharedDeadlines(timeoutMs);
  const check = checkedUrls(options.allowPrivate);
  return {
    async post(text, body, headers, account = '') {
      const checked = check(text);
      if (checked.url === undefined) return { status: 0, error: checked.problem };
      const url = checked.url;
      const signal = deadline();
      // The body of the answer is read (and dropped) so the connection serves the next attempt.
      const answer = await pools
        .of(account)
        .send({ url, method: 'POST', headers, body, signal, maxBytes: MAX_ANSWER_BYTES, discard: true });
      if (answer.kind === 'no_answer') return { status: 0, error: failure(answer.error, signal, timeoutMs) };
      // A redirect is not followed: it is an answer other than a 2xx.
      const status = answer.status;
      return { status, error: status >= 200 && status < 300 ? null : `the receiver answered ${status}` };
    },
    close: pools.close,
  };
}

/** As many connections per account and origin as the worker's default in flight per destination. */
const DEFAULT_SOCKETS_PER_ACCOUNT = 16;

/** A client per account, the least recently used closed past MAX_ACCOUNT_POOLS. */
function accountPools(create: () => OutboundClient): { of(account: string): OutboundClient; close(): void } {
  // A Map iterates in insertion order: re-inserted on each use, its first entry is the least recent.
  const pools = new Map<string, OutboundClient>();
  return {
    of(account) {
      let agent = pools.get(account);
      if (agent !== undefined) pools.delete(account);
      else agent = create();
      pools.set(account, agent);
      if (pools.size > MAX_ACCOUNT_POOLS) {
        const [oldest, pool] = pools.entries().next().value as [string, OutboundClient];
        pools.delete(oldest);
        void pool.close();
      }
      return agent;
    },
    close() {
      for (const pool of pools.values()) void pool.destroy();
      pools.clear();
    },
  };
}

/** Webhook URLs whose checks the poster keeps, at most; past it, it starts again. */
const CHECKED_URLS_KEPT = 1_024;

/**
 * checkWebhookUrl before each attempt, remembered per URL: it depends on the text alone, and
 * parsing a URL for every delivery was a tenth of what a delivery allocates. The address
 * dialled is still checked at each connection (the lookup).
 */
function checkedUrls(allowPrivate: boolean): (text: string) => DestinationCheck {
  const kept = new Map<string, DestinationCheck>();
  return (text) => {
    let checked = kept.get(text);
    if (checked === undefined) {
      if (kept.size >= CHECKED_URLS_KEPT) kept.clear();
      checked = checkWebhookUrl(text, allowPrivate);
      kept.set(text, checked);
    }
    return checked;
  };
}

/** How much later than its own bound an attempt may be cut off, so that attempts share deadlines. */
const DEADLINE_SHARING_MS = 100;

/**
 * Deadlines shared by the attempts that start within DEADLINE_SHARING_MS of each other: one
 * signal and one timer for all of them, aborting `timeoutMs` plus DEADLINE_SHARING_MS after the
 * first started, so each attempt has at least `timeoutMs` and at most DEADLINE_SHARING_MS more.
 * An `AbortSignal.timeout` per attempt (a signal, a timer, their listeners) was about 6% of the
 * core thread's time in a delivery: under load the core delivers hundreds of events a second.
 */
function sharedDeadlines(timeoutMs: number): () => AbortSignal {
  let current: { signal: AbortSignal; openedAt: number } | undefined;
  return () => {
    const now = performance.now();
    if (current === undefined || now - current.openedAt >= DEADLINE_SHARING_MS) {
      const signal = AbortSignal.timeout(timeoutMs + DEADLINE_SHARING_MS);
      // Every attempt of the window listens on it (undici removes each listener when its attempt ends).
      setMaxListeners(0, signal);
      current = { signal, openedAt: now };
    }
    return current.signal;
  };
}

/** Why an attempt got no answer, in words that name no secret. */
function failure(error: unknown, deadline: AbortSignal, timeoutMs: number): string {
  if (
    deadline.aborted ||
    (error as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT' ||
    (error as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  // The lookup's refusal may come wrapped by the connector.
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause)
    if (cause instanceof DestinationRefused) return cause.message;
  return `could not connect (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
}
