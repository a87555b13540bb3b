/**
 * A value read from the store and kept for a few seconds: the purchase path reads route
 * tables, plan codes and cost rules from memory, not from the store. One read at a time (the
 * callers of a stale value wait for the same read); `reload()` reads at once, for the core
 * that has just changed the value. Another core's change is in force here within `freshMs`.
 */
export interface KeptFresh<T> {
  /** The value, read again first when it is older than `freshMs`. */
  get(): Promise<T>;
  /** Reads the value now. */
  reload(): Promise<T>;
}

export function keptFresh<T>(options: { read: () => Promise<T>; freshMs: number; clock: () => Date }): KeptFresh<T> {
  let value: T | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<T> | undefined;

  async function reload(): Promise<T> {
    const at = options.clock().getTime();
    const read = await options.read();
    value = read;
    readAt = at;
    return read;
  }

  return {
    async get() {
      if (value !== undefined && options.clock().getTime() - readAt < options.freshMs) return value;
      reading ??= reload().finally(() => {
        reading = undefined;
      });
      return reading;
    },
    reload,
  };
}
