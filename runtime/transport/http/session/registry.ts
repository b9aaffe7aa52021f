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

/** A place in the recency list: an entry, or the list's own head (`key` undefined). */
interface Link<S> {
  key: string | undefined;
  value: S | undefined;
  /** Used before this one (the head's: the most recently used). */
  prev: Link<S>;
  /** Used after this one (the head's: the least recently used). */
  next: Link<S>;
}

/**
 * The in-memory {@link SessionRegistry}: a `Map` from id to an entry of a doubly linked list in
 * least-recently-used order. {@link touch}, called on every request, moves an entry to the end by
 * relinking it: nothing is allocated, where deleting and setting a `Map` key again appends a
 * new entry to the Map's table each time and makes it rebuild its table every few requests (in
 * the old generation, once the Map is there: garbage only a full collection reclaims).
 */
export class MemorySessionRegistry<S> implements SessionRegistry<S> {
  readonly #entries = new Map<string, Link<S>>();
  readonly #head: Link<S>;

  constructor() {
    const head = { key: undefined, value: undefined } as Link<S>;
    head.prev = head.next = head;
    this.#head = head;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(sessionId: string): S | undefined {
    return this.#entries.get(sessionId)?.value;
  }

  has(sessionId: string): boolean {
    return this.#entries.has(sessionId);
  }

  /** Adds `session` under `sessionId` as the most recently used (replacing one held under it). */
  set(sessionId: string, session: S): this {
    const link = this.#entries.get(sessionId);
    if (link) {
      link.value = session;
      this.#toEnd(link);
      return this;
    }
    const head = this.#head;
    const added: Link<S> = { key: sessionId, value: session, prev: head.prev, next: head };
    head.prev.next = added;
    head.prev = added;
    this.#entries.set(sessionId, added);
    return this;
  }

  delete(sessionId: string): boolean {
    const link = this.#entries.get(sessionId);
    if (!link) return false;
    this.#entries.delete(sessionId);
    link.prev.next = link.next;
    link.next.prev = link.prev;
    return true;
  }

  touch(sessionId: string): void {
    const link = this.#entries.get(sessionId);
    if (link) this.#toEnd(link);
  }

  #toEnd(link: Link<S>): void {
    const head = this.#head;
    if (head.prev === link) return;
    link.prev.next = link.next;
    link.next.prev = link.prev;
    link.prev = head.prev;
    link.next = head;
    head.prev.next = link;
    head.prev = link;
  }

  /**
   * Entries least recently used first, as they were when the iteration began: one deleted since
   * is left out, and one added or touched since is not visited again.
   */
  *entries(): MapIterator<[string, S]> {
    const head = this.#head;
    const links: Array<Link<S>> = [];
    for (let link = head.next; link !== head; link = link.next) links.push(link);
    for (const link of links) if (this.#entries.get(link.key!) === link) yield [link.key!, link.value!];
  }

  *keys(): MapIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<S> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[string, S]> {
    return this.entries();
  }

  forEach(callback: (value: S, key: string, map: ReadonlyMap<string, S>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  get [Symbol.toStringTag](): string {
    return 'MemorySessionRegistry';
  }
}
