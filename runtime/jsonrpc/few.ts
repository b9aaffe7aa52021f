/**
 * {@link FewMap}: a map for the few entries that are in it at once, usually one (the requests
 * in flight on a connection, the streams of a session), which grows and empties over and over.
 */

/**
 * A map that keeps its lone entry in two fields and makes a `Map` only while it holds more
 * than one. (A `Map` that empties after every use is made again, or shrunk on its last delete,
 * each time; a V8 `Map` also keeps deleted entries until it is rehashed.) Keys compare as in a
 * `Map` (SameValueZero). `values()` gives the lone entry first, then the others in the order
 * they were added.
 */
export class FewMap<K, V> {
  #has = false;
  #key: K | undefined = undefined;
  #value: V | undefined = undefined;
  #more: Map<K, V> | undefined = undefined;

  get size(): number {
    return (this.#has ? 1 : 0) + (this.#more === undefined ? 0 : this.#more.size);
  }

  get(key: K): V | undefined {
    return this.#has && same(key, this.#key) ? this.#value : this.#more?.get(key);
  }

  has(key: K): boolean {
    return (this.#has && same(key, this.#key)) || this.#more?.has(key) === true;
  }

  set(key: K, value: V): this {
    if (this.#has ? same(key, this.#key) : !this.#more?.has(key)) {
      this.#has = true;
      this.#key = key;
      this.#value = value;
    } else (this.#more ??= new Map()).set(key, value);
    return this;
  }

  /** Removes `key`; false when it was not there. */
  delete(key: K): boolean {
    if (this.#has && same(key, this.#key)) {
      this.#has = false;
      this.#key = undefined;
      this.#value = undefined;
      return true;
    }
    const more = this.#more;
    if (more === undefined || !more.delete(key)) return false;
    if (more.size === 0) this.#more = undefined;
    return true;
  }

  *values(): IterableIterator<V> {
    if (this.#has) yield this.#value as V;
    if (this.#more !== undefined) yield* this.#more.values();
  }
}

/** SameValueZero, as `Map` compares keys. */
const same = (a: unknown, b: unknown): boolean => a === b || (Number.isNaN(a) && Number.isNaN(b));

/**
 * A set that keeps its lone value in a field and makes a `Set` only while it holds more than
 * one: {@link FewMap}'s counterpart for the requests a stream owes answers to (one, except in a
 * batch). Values compare as in a `Set` (SameValueZero); iteration gives the lone value first,
 * then the others in the order they were added.
 */
export class FewSet<T> {
  #has = false;
  #one: T | undefined = undefined;
  #more: Set<T> | undefined = undefined;

  get size(): number {
    return (this.#has ? 1 : 0) + (this.#more === undefined ? 0 : this.#more.size);
  }

  has(value: T): boolean {
    return (this.#has && same(value, this.#one)) || this.#more?.has(value) === true;
  }

  add(value: T): this {
    if (this.has(value)) return this;
    if (!this.#has) {
      this.#has = true;
      this.#one = value;
    } else (this.#more ??= new Set()).add(value);
    return this;
  }

  /** Removes `value`; false when it was not there. */
  delete(value: T): boolean {
    if (this.#has && same(value, this.#one)) {
      this.#has = false;
      this.#one = undefined;
      return true;
    }
    const more = this.#more;
    if (more === undefined || !more.delete(value)) return false;
    if (more.size === 0) this.#more = undefined;
    return true;
  }

  clear(): void {
    this.#has = false;
    this.#one = undefined;
    this.#more = undefined;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    if (this.#has) yield this.#one as T;
    if (this.#more !== undefined) yield* this.#more;
  }
}
