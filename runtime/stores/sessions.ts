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
  /**
   * The id of the session's standalone (GET) stream, the same on every process: its events are
   * stored on that one stream, and a `Last-Event-ID` of it resumes on any process.
   */
  standaloneStreamId?: string;
  /**
   * The principal that initialized the session on a protected endpoint (`principalId` of
   * runtime/auth/principal.ts: issuer and subject of its token). Every process serves the
   * session to that principal alone; absent when the endpoint checks no tokens.
   */
  owner?: string;
}

/**
 * The store is full of busy sessions: a new one is refused (the HTTP endpoint answers 503
 * with `Retry-After: ceil(retryAfterMs / 1000)`) rather than cutting work under way.
 */
export class SessionLimitError extends Error {
  constructor(
    readonly maxSessions: number,
    /** When trying again may succeed, ms (a busy mark lapses, or a session ends). */
    readonly retryAfterMs: number,
  ) {
    super(`session limit (${maxSessions}) reached and every session is busy`);
    this.name = 'SessionLimitError';
  }
}

/**
 * Session records by session id. A record expires once it was idle for `idleMs`: untouched, and
 * no process marked it busy ({@link SessionStore.markBusy}) meanwhile (a session's idle time
 * starts at its last touch or when its last busy mark was cleared, whichever is later); the
 * number of records is capped at `maxSessions`, a new record evicting the least recently used
 * idle one (used: touched or busy): a session marked busy is never evicted or expired, and
 * when every one is busy a new record is refused with {@link SessionLimitError}
 * (the cap of the endpoint's own memory behaves the same way). Methods reject (e.g. a store
 * that cannot reach its server) rather than guess: the HTTP endpoint answers such a failure
 * with 503.
 */
export interface SessionStore {
  /**
   * Adds `record` under `sessionId` as the most recently used. Resolves the ids of the sessions
   * evicted to stay within the cap (empty when none), which have ended for every process.
   * @throws SessionLimitError when the cap is reached and no session is idle.
   */
  create(sessionId: string, record: SessionRecord): Promise<string[]>;
  /**
   * Makes room for one more record before a session starts (the HTTP endpoint calls it on
   * `initialize`, so that a refusal is a 503 rather than a failed handshake): evicts the least
   * recently used idle records as `create` would and resolves their ids.
   * @throws SessionLimitError when the cap is reached and no session is idle.
   */
  makeRoom(): Promise<string[]>;
  /**
   * This process has work under way for `sessionId` (`busy`: a request awaiting its response,
   * a body being read, an open stream connection, a send queued), or no longer (`!busy`). A
   * session some process marked busy is not evicted and does not expire; when its last mark is
   * cleared it counts as used then. Fire and forget: the Redis store sends
   * the mark at once (in order with its other commands), renews it on its heartbeat and lets
   * it lapse `livenessMs` after a process stopped renewing it (it died); a failure goes to
   * `onError`.
   */
  markBusy(sessionId: string, busy: boolean): void;
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
  /** A record idle this long (untouched, and not marked busy), ms, expires. 0 turns expiry off. Default 1 800 000 (30 minutes). */
  idleMs?: number;
  /** Most records at once; a new one evicts the least recently used idle one. Default 10 000. */
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

  /** Busy marks by session: how many endpoints marked it. */
  private readonly busy = new Map<string, number>();

  async create(sessionId: string, record: SessionRecord): Promise<string[]> {
    const had = this.records.get(sessionId);
    this.records.delete(sessionId);
    let evicted: string[];
    try {
      evicted = this.room();
    } catch (e) {
      if (had) this.records.set(sessionId, had);
      throw e;
    }
    this.records.set(sessionId, { record, at: this.now() });
    return evicted;
  }

  async makeRoom(): Promise<string[]> {
    return this.room();
  }

  markBusy(sessionId: string, busy: boolean): void {
    const n = (this.busy.get(sessionId) ?? 0) + (busy ? 1 : -1);
    if (n > 0) this.busy.set(sessionId, n);
    else if (this.busy.delete(sessionId)) {
      // its work ended: it was in use until now, its idle time starts now
      const entry = this.records.get(sessionId);
      if (!entry) return;
      this.records.delete(sessionId);
      entry.at = this.now();
      this.records.set(sessionId, entry);
    }
  }

  /** Evicts least recently used idle records until one more fits; their ids. */
  private room(): string[] {
    this.expire(this.now());
    const need = this.records.size - this.maxSessions + 1;
    if (need <= 0) return [];
    const evicted: string[] = [];
    for (const id of this.records.keys()) {
      if (evicted.length === need) break;
      if (!this.busy.has(id)) evicted.push(id);
    }
    if (evicted.length < need) throw new SessionLimitError(this.maxSessions, 1000);
    for (const id of evicted) this.records.delete(id);
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
    this.busy.delete(sessionId);
    return this.records.delete(sessionId);
  }

  async size(): Promise<number> {
    this.expire(this.now());
    return this.records.size;
  }

  /**
   * Drops expired records: least recently used first, so the scan stops at the first live one;
   * a busy record is not idle, so it does not expire (its time starts when its work ends).
   */
  private expire(now: number): void {
    if (this.idleMs === 0) return;
    for (const [id, entry] of this.records) {
      if (now - entry.at < this.idleMs) break;
      if (!this.busy.has(id)) this.records.delete(id);
    }
  }
}
