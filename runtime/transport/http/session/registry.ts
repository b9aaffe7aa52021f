/**
 * Where a Streamable HTTP endpoint keeps its sessions (2025-11-25 basic/transports, "Session
 * Management"), behind a small interface so that a shared store can stand behind it later.
 * The endpoint owns the policy (idle expiry, the cap, what happens at the cap); a registry
 * only holds sessions by id in least-recently-used order.
 */

/**
 * Sessions by id. Iteration (`keys`, `values`, `entries`, `forEach`) runs least recently
 * used first: {@link SessionRegistry.touch} moves a session to the end.
 */
export interface SessionRegistry<S> extends ReadonlyMap<string, S> {
  /** Adds `session` under `sessionId` as the most recently used. */
  set(sessionId: string, session: S): this;
  /** Removes `sessionId`; false when it was not there. */
  delete(sessionId: string): boolean;
  /** Marks `sessionId` as used now (no effect when unknown). */
  touch(sessionId: string): void;
}

/** The in-memory {@link SessionRegistry}: a `Map` kept in least-recently-used order. */
export class MemorySessionRegistry<S> extends Map<string, S> implements SessionRegistry<S> {
  touch(sessionId: string): void {
    const session = super.get(sessionId);
    if (session === undefined) return;
    super.delete(sessionId);
    super.set(sessionId, session);
  }
}
