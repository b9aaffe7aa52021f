/**
 * Session records shared by the processes of one deployment (2025-11-25 basic/transports,
 * "Session Management"): what a process needs to continue a session that another process
 * initialized. The HTTP endpoint keeps its live session objects itself (a `SessionRegistry`);
 * a {@link SessionStore} holds only these records, bounded in number and expiring when idle.
 */

/** What `initialize` settled, enough for any process to serve the session's later requests. */
export interface SessionRecord {
  /** The negotiated protocol version (the `initialize` result's `protocolVersion`). */
  protocolVersion: string;
  /** The client's `capabilities` from its `initialize` params. */
  capabilities: Record<string, unknown>;
  /** The client's `clientInfo` from its `initialize` params, when it sent one. */
  clientInfo?: Record<string, unknown>;
  /** When the session began, ms since the epoch. */
  createdAt: number;
}

/**
 * Session records by session id. A record expires once no call touched it for `idleMs`; the
 * number of records is capped at `maxSessions`, a new record evicting the least recently used.
 * Methods reject (e.g. a store that cannot reach its server) rather than guess: the HTTP
 * endpoint answers such a failure with 503.
 */
export interface SessionStore {
  /**
   * Adds `record` under `sessionId` as the most recently used. Resolves the ids of the sessions
   * evicted to stay within the cap (empty when none), which have ended for every process.
   */
  create(sessionId: string, record: SessionRecord): Promise<string[]>;
  /** The record of `sessionId`, marked as used now; undefined when unknown, ended or expired. */
  touch(sessionId: string): Promise<SessionRecord | undefined>;
  /** Removes `sessionId` (DELETE, or a failed start); resolves false when it was not there. */
  delete(sessionId: string): Promise<boolean>;
  /** How many live records there are now. */
  size(): Promise<number>;
  /** Releases the store's resources (timers, connections). Optional. */
  close?(): Promise<void>;
}

/** Bounds of a session store. */
export interface SessionStoreOptions {
  /** A record untouched this long, ms, expires. 0 turns expiry off. Default 1 800 000 (30 minutes). */
  idleMs?: number;
  /** Most records at once; a new one evicts the least recently used. Default 10 000. */
  maxSessions?: number;
  /** Clock in ms (tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * The in-memory {@link SessionStore}, for one process (or tests): a `Map` in least recently
 * used order, expired records dropped whenever it is used.
 */
export class MemorySessionStore implements SessionStore {
  private readonly records = new Map<string, { record: SessionRecord; at: number }>();
  private readonly idleMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(options: SessionStoreOptions = {}) {
    this.idleMs = Math.max(0, options.idleMs ?? 30 * 60 * 1000);
    this.maxSessions = Math.max(1, options.maxSessions ?? 10_000);
    this.now = options.now ?? Date.now;
  }

  async create(sessionId: string, record: SessionRecord): Promise<string[]> {
    const now = this.now();
    this.expire(now);
    const evicted: string[] = [];
    this.records.delete(sessionId);
    while (this.records.size >= this.maxSessions) {
      const oldest = this.records.keys().next().value as string;
      this.records.delete(oldest);
      evicted.push(oldest);
    }
    this.records.set(sessionId, { record, at: now });
    return evicted;
  }

  async touch(sessionId: string): Promise<SessionRecord | undefined> {
    const now = this.now();
    this.expire(now);
    const entry = this.records.get(sessionId);
    if (!entry) return undefined;
    this.records.delete(sessionId);
    entry.at = now;
    this.records.set(sessionId, entry);
    return entry.record;
  }

  async delete(sessionId: string): Promise<boolean> {
    return this.records.delete(sessionId);
  }

  async size(): Promise<number> {
    this.expire(this.now());
    return this.records.size;
  }

  /** Drops expired records: least recently used first, so the scan stops at the first live one. */
  private expire(now: number): void {
    if (this.idleMs === 0) return;
    for (const [id, entry] of this.records) {
      if (now - entry.at < this.idleMs) break;
      this.records.delete(id);
    }
  }
}
