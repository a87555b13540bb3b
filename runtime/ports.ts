/**
 * A port that another process holds is found before anything is opened: the start fails at
 * once with an error that names the variable (PORT, CORE_PORT, ...), not after the store was
 * opened and migrated, and not with a bare EADDRINUSE that names nothing the operator set.
 */
import net from 'node:net';
import { ConfigError } from './env-schema.js';

/** The variables that set an address, for the message. */
export interface AddressVariables {
  host: string;
  port: string;
}

/**
 * Resolves when `host:port` can be bound, by binding it for a moment; throws a ConfigError
 * naming the variable otherwise. Port 0 (any free port) always can. A process that takes the
 * port between this check and the real bind is still reported by bindError().
 */
export async function checkPortFree(names: AddressVariables, host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, () => resolve());
    });
  } catch (error) {
    throw bindError(names, host, port, error);
  } finally {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

/** The ConfigError for a failed bind of `host:port`, naming the variable at fault; other errors pass through. */
export function bindError(names: AddressVariables, host: string, port: number, error: unknown): unknown {
  const text =
    error instanceof Error ? `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}` : String(error);
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (/EADDRINUSE/.test(text))
    return new ConfigError(
      names.port,
      `${where} is already in use by another process; stop it or set ${names.port} to a free port.`,
    );
  if (/EACCES/.test(text))
    return new ConfigError(
      names.port,
      `${where} cannot be bound by this user (ports below 1024 need privileges); set ${names.port} to 1024 or above.`,
    );
  if (/EADDRNOTAVAIL|ENOTFOUND|EAI_AGAIN/.test(text))
    return new ConfigError(names.host, `${host} is not an address of this machine.`);
  return error;
}

/** One listener a process will open, for checkDistinctPorts. */
export interface PlannedListener {
  names: AddressVariables;
  host: string;
  port: number;
}

/** Whether two bind addresses can clash: the same one, or either is a wildcard (every interface). */
function hostsOverlap(a: string, b: string): boolean {
  const wildcard = (host: string) => host === '' || host === '0.0.0.0' || host === '::';
  return a === b || wildcard(a) || wildcard(b);
}

/**
 * Throws a ConfigError when two of the listeners one process opens are set to the same port
 * on overlapping interfaces (PORT=DASHBOARD_PORT, say). checkPortFree cannot see it, since it
 * probes one port at a time; and found only at the second bind, it would come after the store
 * had been opened, worded as if another process held the port. Port 0 never clashes.
 */
export function checkDistinctPorts(listeners: readonly PlannedListener[]): void {
  listeners.forEach((first, index) => {
    for (const second of listeners.slice(index + 1)) {
      if (first.port === 0 || first.port !== second.port || !hostsOverlap(first.host, second.host)) continue;
      throw new ConfigError(
        second.names.port,
        `is ${second.port}, the same port as ${first.names.port}; each part of the service needs its own port. ` +
          `Set ${second.names.port} or ${first.names.port} to another one.`,
      );
    }
  });
}
