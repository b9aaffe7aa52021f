/**
 * The stateless form of `ServerFeatures`' handler tables (./server-features.ts), for sessions
 * of a stateless revision (2026-07-28, draft): `resultType: "complete"` on every result, the
 * caching fields (`ttlMs`, `cacheScope`) on list results and `resources/read`, an unknown
 * resource answered -32602 (draft server/resources "Error Handling", SEP-2164); and the swap
 * of a table made without a stateless table for its stateless form ({@link statelessHandlers}).
 *
 * @module
 */
import type { RequestContext, RequestHandler } from '../engine/peer.js';
import { isThenable } from '../engine/dispatch.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { RESOURCE_NOT_FOUND } from './resources.js';
import type { Obj } from './tools.js';

/** The handlers of `handlers()` without a stateless table, each with the way to its stateless form. */
const STATELESS_TWIN = new WeakMap<RequestHandler, () => RequestHandler | undefined>();

/** Records, for each handler of `table`, the way to its stateless form (`twin(method)`). */
export function rememberStatelessTwins(
  table: Record<string, RequestHandler>,
  twin: (method: string) => RequestHandler | undefined,
): void {
  for (const method of Object.keys(table)) STATELESS_TWIN.set(table[method]!, () => twin(method));
}

/**
 * `handlers` for a session of a stateless revision (2026-07-28, draft): every handler that
 * came from a `ServerFeatures`' `handlers()` without a stateless table (so its results
 * lack `resultType` and the caching fields) replaced by its `handlers({ table })` form; any
 * other handler kept. The same object when nothing is replaced (or `handlers` is undefined).
 * The generated `Server` of a stateless revision applies it, so `features.handlers()` works
 * there without `{ table }`.
 */
export function statelessHandlers<H extends Readonly<Record<string, unknown>> | undefined>(handlers: H): H {
  if (!handlers) return handlers;
  let out: Record<string, unknown> | undefined;
  for (const [method, h] of Object.entries(handlers)) {
    const twin = typeof h === 'function' ? STATELESS_TWIN.get(h as RequestHandler)?.() : undefined;
    if (twin) (out ??= { ...handlers })[method] = twin;
  }
  return (out ? Object.freeze(out) : handlers) as H;
}

/** draft server/resources "Error Handling" (SEP-2164): an unknown resource is -32602; any other error as it is. */
function notFoundAsInvalidParams(e: unknown): unknown {
  return e instanceof RpcError && e.code === RESOURCE_NOT_FOUND
    ? new RpcError(ErrorCode.InvalidParams, e.message, e.data)
    : e;
}

/** The methods whose results carry the caching fields. */
const CACHED = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'resources/read']);

/**
 * `handlers` in their stateless form: each result with `resultType: "complete"` and, for the
 * list methods and `resources/read`, `cache`'s fields where the handler set none (`ttlMs` in
 * ms, `cacheScope`); an unknown resource (-32002) answered -32602 with the same message and data.
 */
export function statelessForm(
  handlers: Record<string, RequestHandler>,
  cache: { ttlMs: number; cacheScope: 'public' | 'private' } | undefined,
): Record<string, RequestHandler> {
  return Object.fromEntries(
    Object.entries(handlers).map(([method, h]) => {
      const finish = (r: Obj): Obj => {
        const out: Obj = { resultType: 'complete', ...r };
        if (cache && CACHED.has(method)) {
          out.ttlMs ??= cache.ttlMs;
          out.cacheScope ??= cache.cacheScope;
        }
        return out;
      };
      // as the handler it wraps: a plain value when it gave one, else a promise (one `then`, no
      // async function); a throw rejects the promise the call returns, as from an async function
      const form = (p: Obj, ctx: RequestContext): unknown => {
        let r: unknown;
        try {
          r = h(p, ctx);
        } catch (e) {
          return Promise.reject(notFoundAsInvalidParams(e));
        }
        return isThenable(r)
          ? Promise.resolve(r).then(
              (v) => finish(v as Obj),
              (e: unknown) => {
                throw notFoundAsInvalidParams(e);
              },
            )
          : finish(r as Obj);
      };
      return [method, form];
    }),
  );
}
