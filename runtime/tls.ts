/**
 * TLS between the core and its clients. The core serves TLS when it is given a certificate
 * and key (CORE_TLS_CERT, CORE_TLS_KEY); a client dialling an `https://` CORE_URL always
 * speaks TLS and verifies the core's certificate against CORE_TLS_CA (or the system's
 * roots). A client refuses to send its bearer token in plain text to an address that is not
 * this machine unless the operator opted in with CORE_ALLOW_PLAINTEXT=yes: the token (and,
 * through the gateway, partners' secret keys) would cross the network readable.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from './env-schema.js';
import { isLoopbackHost } from './url.js';

/** The opt-in to plain text to another machine, named in every refusal. */
export const ALLOW_PLAINTEXT_VARIABLE = 'CORE_ALLOW_PLAINTEXT';

/** A PEM file named by `variable`, read at start; a ConfigError naming the variable if it cannot be. */
export function readPem(variable: string, file: string): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (error) {
    throw new ConfigError(variable, `cannot read ${file}: ${(error as Error).message}.`);
  }
  if (!pem.includes('-----BEGIN '))
    throw new ConfigError(variable, `${file} is not a PEM file (no "-----BEGIN" line).`);
  return pem;
}

/**
 * Why a client must not call `url` with a bearer token, or undefined when it may: https is
 * always fine; http only to this machine, or anywhere when the operator opted in.
 * `isLoopback` decides what "this machine" is (tests stand a remote address in for it).
 */
export function plaintextProblem(
  url: URL,
  allowPlaintext: boolean,
  isLoopback: (hostname: string) => boolean = isLoopbackHost,
): string | undefined {
  if (url.protocol !== 'http:' || allowPlaintext || isLoopback(url.hostname)) return undefined;
  return (
    `${url.host} is another machine, and http:// would send the bearer token (and partners' keys) readable ` +
    `across the network. ` +
    `Use https:// (the core serves TLS when given CORE_TLS_CERT and CORE_TLS_KEY), or set ` +
    `${ALLOW_PLAINTEXT_VARIABLE}=yes if this network is private and trusted.`
  );
}
