/** Bench servers tell the harness where they listen with one JSON line on stdout. */
import type { AddressInfo } from 'node:net';

export function announce(server: { address(): AddressInfo | string | null }): void {
  const address = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
}

export function announcePort(port: number): void {
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}
