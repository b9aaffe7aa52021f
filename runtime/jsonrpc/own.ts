/**
 * Own-property rules for data keyed by what a peer sends: method names, tool and prompt names,
 * resource URIs, task and session ids, argument and header names. Such a key may name an
 * `Object.prototype` member (`constructor`, `toString`, `__proto__`, `hasOwnProperty`, …), so a
 * lookup in a plain object must see own properties only, an object built from peer keys must
 * get them as plain data (a `"__proto__"` key from `JSON.parse` is an own property; assigning it
 * would change the prototype instead), and an error message must describe a peer value without
 * calling anything on it (`String(v)` runs a peer object's `toString`/`valueOf` members, and
 * throws when they are not functions).
 *
 * Tables read on every message are built once with a null prototype ({@link lookupTable}), so
 * the read stays one property access; other lookups use {@link ownValue}.
 */

/**
 * The value of `record`'s own property `key`, or undefined when `record` is absent or the
 * property is only inherited (`ownValue({}, 'toString')` is undefined).
 */
export function ownValue<T>(record: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return record != null && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * A frozen copy of `entries` without a prototype: `table[key]` is then undefined for every key
 * that is not one of `entries`' own keys, whatever the key names. For constant tables looked up
 * by peer-supplied keys on a hot path.
 */
export function lookupTable<T>(entries: Readonly<Record<string, T>>): Readonly<Record<string, T>> {
  const table = Object.create(null) as Record<string, T>;
  for (const key of Object.keys(entries)) setOwn(table, key, entries[key]);
  return Object.freeze(table);
}

/**
 * Sets `target[key] = value` as an own, enumerable, writable data property, also when `key` is
 * `"__proto__"` (where an assignment would replace `target`'s prototype). Returns `target`.
 */
export function setOwn<T extends object>(target: T, key: string, value: unknown): T {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string, unknown>)[key] = value;
  return target;
}

/**
 * `{ ...source, [key]: value }` (a new object: `source`'s own enumerable properties, in order,
 * then `key`), made without that spread: V8 (Node 20) takes a slow path when a literal adds a
 * property after spreading a non-empty object (~1 µs, where this takes ~60 ns). A `"__proto__"`
 * key stays a plain property, as in the spread. `source` undefined: `{ [key]: value }`.
 */
export function withOwn<T extends object>(source: T | undefined, key: string, value: unknown): T {
  // Object.assign sets; only an own `__proto__` would then act differently from the spread
  const out =
    source === undefined ? {} : Object.hasOwn(source, '__proto__') ? { ...source } : Object.assign({}, source);
  return setOwn(out as T, key, value);
}

/** Longest description {@link describeValue} returns, in characters (an ellipsis marks a cut). */
export const DESCRIBE_MAX = 80;

/**
 * A short, safe description of a value a peer sent, for error messages: a string in single
 * quotes, a number, boolean or null as JSON writes it, an object or array as (capped) JSON.
 * Never converts the value with its own `toString`/`valueOf` members, and never throws. At most
 * `max` characters of the value's text (default {@link DESCRIBE_MAX}).
 */
export function describeValue(value: unknown, max = DESCRIBE_MAX): string {
  const cap = (text: string) => (text.length > max ? `${text.slice(0, max)}…` : text);
  switch (typeof value) {
    case 'string':
      return `'${cap(value)}'`;
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'undefined':
      return 'undefined';
    case 'bigint':
      return `${cap(value.toString())}n`;
    case 'symbol':
    case 'function':
      return `a ${typeof value}`;
  }
  if (value === null) return 'null';
  try {
    // JSON values (what a peer can send) have no functions, so nothing of theirs runs here
    const text = JSON.stringify(value);
    if (typeof text === 'string') return cap(text);
  } catch {
    // cyclic, or a getter or toJSON that throws: fall through to the kind of value
  }
  return Array.isArray(value) ? 'an array' : 'an object';
}
