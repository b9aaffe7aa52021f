/**
 * Result caching of stateless revisions (draft `server/utilities/caching.mdx`).
 *
 * Server side: {@link applyCacheHints} puts `ttlMs` (ms, ≥ 0) and `cacheScope` on complete
 * results of the cacheable methods ({@link CACHEABLE_METHODS}) when the handler left them out,
 * from a default and per-method overrides; `input_required` results never carry them.
 *
 * Client side: {@link ResultCache} keeps complete results with a positive `ttlMs`, keyed by the
 * method and the params without `_meta` (keys sorted), fresh while `now < received + ttlMs`.
 * Requests carrying `inputResponses` or `requestState`, and results of requests that went
 * through `input_required` rounds, are never stored. A list_changed notification drops the
 * matching list entries; `notifications/resources/updated` drops `resources/read` of its URI.
 * One client is one authorization context, so `private` results are kept like `public` ones.
 */
import type { Params } from '../jsonrpc/message.js';
import { lookupTable, ownValue } from '../jsonrpc/own.js';

/** Methods whose complete results carry caching hints. */
export const CACHEABLE_METHODS: readonly string[] = [
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
];

/** Who may share a cached result: `public` (any client), `private` (this client only). */
export type CacheScope = 'public' | 'private';
/** Caching hints of one result: `ttlMs` in ms (≥ 0), `cacheScope`. */
export interface CacheHint {
  ttlMs: number;
  cacheScope: CacheScope;
}
/** Server policy: a default hint and overrides per method (e.g. `{ 'resources/read': { ttlMs: 0, cacheScope: 'private' } }`). */
export interface CachePolicy {
  default?: CacheHint;
  methods?: Partial<Record<string, CacheHint>>;
}

/** Default server hint: immediately stale, private (safe for any content). */
export const DEFAULT_CACHE_HINT: CacheHint = { ttlMs: 0, cacheScope: 'private' };

/**
 * Returns `result` with the hints of `method` filled in where missing (a copy; the handler's
 * object is not changed). Non-cacheable methods pass through; `input_required` results lose any
 * hints (the caching page: interim results carry none). A negative `ttlMs` becomes 0.
 */
export function applyCacheHints(
  method: string,
  result: Record<string, unknown>,
  policy: CachePolicy | undefined,
): Record<string, unknown> {
  if (result.resultType === 'input_required') {
    if (!('ttlMs' in result) && !('cacheScope' in result)) return result;
    const { ttlMs: _t, cacheScope: _s, ...rest } = result;
    return rest;
  }
  if (!CACHEABLE_METHODS.includes(method)) return result;
  const hint = ownValue(policy?.methods, method) ?? policy?.default ?? DEFAULT_CACHE_HINT;
  const out = { ...result };
  if (typeof out.ttlMs !== 'number' || !Number.isFinite(out.ttlMs)) out.ttlMs = hint.ttlMs;
  if ((out.ttlMs as number) < 0) out.ttlMs = 0;
  out.ttlMs = Math.floor(out.ttlMs as number);
  if (out.cacheScope !== 'public' && out.cacheScope !== 'private') out.cacheScope = hint.cacheScope;
  return out;
}

/** Stable JSON: object keys sorted at every level. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Options of {@link ResultCache}: entry bound and clock (ms). */
export interface ResultCacheOptions {
  /** Most entries kept; the oldest goes first (default 256). */
  maxEntries?: number;
  /** Clock in ms (default Date.now). */
  now?: () => number;
}

interface Entry {
  method: string;
  uri: unknown;
  result: Record<string, unknown>;
  expires: number;
}

/** Which cached methods a server notification makes stale (no prototype: looked up by the notification's method). */
const INVALIDATES: Readonly<Record<string, readonly string[]>> = lookupTable({
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
});

/** The client-side cache of a ClientSession (see the module doc). */
export class ResultCache {
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;
  readonly #now: () => number;
  /** Counters, for diagnostics and tests. */
  readonly stats = { hits: 0, misses: 0, stored: 0, invalidated: 0 };

  constructor(options: ResultCacheOptions = {}) {
    this.#max = options.maxEntries ?? 256;
    this.#now = options.now ?? Date.now;
  }

  /** The cache key of a request, or undefined when it must not be served from cache. */
  key(method: string, params: Params | undefined): string | undefined {
    if (!CACHEABLE_METHODS.includes(method)) return undefined;
    if (params && ('inputResponses' in params || 'requestState' in params)) return undefined;
    const { _meta: _m, ...rest } = params ?? {};
    return `${method} ${stable(rest)}`;
  }

  /** A fresh copy of the cached result, or undefined (counted as a miss). */
  get(key: string): Record<string, unknown> | undefined {
    const e = this.#entries.get(key);
    if (e && this.#now() < e.expires) {
      this.stats.hits++;
      return structuredClone(e.result);
    }
    if (e) this.#entries.delete(key);
    this.stats.misses++;
    return undefined;
  }

  /** Stores a complete result whose `ttlMs` is positive; anything else is ignored. */
  put(key: string, method: string, params: Params | undefined, result: Record<string, unknown>): void {
    const ttl = typeof result.ttlMs === 'number' && Number.isFinite(result.ttlMs) ? result.ttlMs : 0;
    if (ttl <= 0 || (result.resultType !== undefined && result.resultType !== 'complete')) return;
    this.#entries.delete(key);
    this.#entries.set(key, { method, uri: params?.uri, result: structuredClone(result), expires: this.#now() + ttl });
    this.stats.stored++;
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  /** Drops entries of `method` (all when undefined). */
  invalidate(method?: string, uri?: string): void {
    for (const [k, e] of this.#entries) {
      if ((method === undefined || e.method === method) && (uri === undefined || e.uri === uri)) {
        this.#entries.delete(k);
        this.stats.invalidated++;
      }
    }
  }

  /** Applies a server notification: list_changed drops its lists, resources/updated its `resources/read`. */
  onNotification(method: string, params: Params | undefined): void {
    for (const m of INVALIDATES[method] ?? []) this.invalidate(m);
    if (method === 'notifications/resources/updated' && typeof params?.uri === 'string')
      this.invalidate('resources/read', params.uri);
  }

  get size(): number {
    return this.#entries.size;
  }
}
