/**
 * One-time values a deployment must see once only, whichever process sees them: the `jti` of a
 * DPoP proof (RFC 9449 §11.1: the server keeps the identifiers of the proofs it accepted for as
 * long as they would be accepted, and refuses one seen again). A store each process has alone
 * lets a proof captured at one process be replayed at another; share one store (Redis:
 * `RedisStores.replay` of @mcpgen/runtime/stores/redis) between the processes behind one
 * endpoint. No `node:` import.
 */

/** The one-time values of a deployment (see the module docs). */
export interface ReplayStore {
  /**
   * Records `key` until `expiresAt` (ms since the epoch). Resolves true when it was not recorded
   * (the first use), false when it was and has not expired (a replay). Rejects when the store
   * cannot be reached: the caller then cannot tell a replay and must not accept the value.
   */
  claim(key: string, expiresAt: number): Promise<boolean>;
}

/** Thrown by {@link MemoryReplayStore.claim} when it holds `maxEntries` values none of which expired. */
export class ReplayStoreFullError extends Error {
  constructor(readonly maxEntries: number) {
    super(`replay store full (${maxEntries} values not expired yet)`);
    this.name = 'ReplayStoreFullError';
  }
}

/**
 * A {@link ReplayStore} in this process's memory: enough for one process, not for several.
 * Holds at most `maxEntries` (default 100 000) unexpired values; past that it refuses to claim
 * more (rejects with {@link ReplayStoreFullError}, which the token check answers with 503)
 * rather than forget one that could still be replayed.
 */
export class MemoryReplayStore implements ReplayStore {
  /** key → expiry (ms), in claim order (close to expiry order: the check's window is the same for all). */
  readonly #seen = new Map<string, number>();
  readonly #max: number;

  constructor(options: { maxEntries?: number } = {}) {
    this.#max = Math.max(1, options.maxEntries ?? 100_000);
  }

  /** Values held (expired ones not swept yet included). */
  get size(): number {
    return this.#seen.size;
  }

  async claim(key: string, expiresAt: number): Promise<boolean> {
    const now = Date.now();
    const until = this.#seen.get(key);
    if (until !== undefined && until > now) return false;
    this.#sweep(now);
    if (this.#seen.size >= this.#max) this.#sweepAll(now);
    if (this.#seen.size >= this.#max) throw new ReplayStoreFullError(this.#max);
    this.#seen.delete(key);
    this.#seen.set(key, expiresAt);
    return true;
  }

  /** Drops expired values from the oldest claims on, up to the first that has not expired. */
  #sweep(now: number): void {
    for (const [key, until] of this.#seen) {
      if (until > now) return;
      this.#seen.delete(key);
    }
  }

  /** Drops every expired value (a full store, whose claims' expiries were not in order). */
  #sweepAll(now: number): void {
    for (const [key, until] of this.#seen) if (until <= now) this.#seen.delete(key);
  }
}
