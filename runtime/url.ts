/**
 * The one check of a URL a process is told to call: the core's address (gateway, CLI) and
 * an upstream's (VTpass). It returns a problem sentence rather than throwing, so that each
 * caller raises its own kind of error (a ConfigError naming the variable, the CLI's usage
 * error naming the flag) around the same rules.
 */

/** What a URL must look like to be accepted. */
export interface UrlRules {
  /** The schemes accepted, with their colon, for example ['http:', 'https:']. */
  schemes: readonly string[];
  /**
   * Plain http:// only to this machine (a local fake or a sidecar): set for addresses that
   * receive secrets with every call, so that they never cross a network in the clear.
   */
  plainHttpOnlyToLoopback?: boolean;
  /** Refuse a user name or password in the URL: credentials belong in their own variables. */
  noCredentials?: boolean;
  /** An address to show in the "not a URL" sentence, for example http://127.0.0.1:50051. */
  example?: string;
}

/** A URL that passed its rules, or why it did not (a sentence that follows the name of what was checked). */
export type UrlCheck = { url: URL; problem?: undefined } | { url?: undefined; problem: string };

/** Host names that always mean this machine. */
const LOOPBACK_NAMES = new Set(['localhost', '[::1]', '::1']);

/**
 * True when `hostname` (as URL.hostname writes it, IPv6 in brackets or not) names this machine:
 * `localhost`, anything in 127.0.0.0/8, or ::1.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return LOOPBACK_NAMES.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Checks `text` against `rules`. */
export function checkUrl(text: string, rules: UrlRules): UrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      problem: `must be a URL${
        rules.example === undefined ? '' : ` such as ${rules.example}`
      }; got ${JSON.stringify(text)}.`,
    };
  }
  if (!rules.schemes.includes(url.protocol)) {
    const names = rules.schemes.map((scheme) => `${scheme}//`);
    return { problem: `must start with ${names.join(' or ')}; got ${JSON.stringify(text)}.` };
  }
  if (rules.plainHttpOnlyToLoopback && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return { problem: 'must be an https:// URL (http:// only to localhost), since our keys travel with every call.' };
  }
  if (rules.noCredentials && (url.username !== '' || url.password !== ''))
    return { problem: 'must not carry a user name or password.' };
  return { url };
}

/** A base URL as callers join paths to it: the parsed form without trailing slashes. */
export function baseUrlText(url: URL): string {
  return url.href.replace(/\/+$/, '');
}

/**
 * An incoming request's target as a URL, for every server of ours (the gateway, web/door.ts). It
 * is appended to a fixed origin rather than resolved against one, so that targets like
 * "//other.host/api/v1", "//@" or "/\\" stay paths (that match no route or base path) instead of
 * naming another host or failing to parse. Undefined when it cannot be read at all.
 */
export function requestUrl(target: string | undefined): URL | undefined {
  if (target === undefined || !target.startsWith('/')) return undefined;
  try {
    return new URL(`http://request.invalid${target}`);
  } catch {
    return undefined;
  }
}
