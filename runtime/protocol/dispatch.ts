/**
 * Dispatch of inbound requests through a generated method table: validate params → handler →
 * validate result. Unknown method → -32601, invalid params → -32602 (data: the validation
 * errors), a result that fails its schema or a handler that throws anything but an RpcError
 * → -32603 with a generic message (no stack trace reaches the peer). JSON-RPC 2.0 §5.1.
 */
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { MethodEntry, RequestShape, ValidationError } from './table.js';

/** A request handler: params in, result (or a promise of it) out; `ctx` is the engine's context. */
export type Handler<P = unknown, R = unknown, C = unknown> = (params: P, ctx: C) => R | Promise<R>;

/** Handler table over a method map: one handler per method, exhaustive (the compiler checks). */
export type Handlers<M extends Record<string, RequestShape>, C = unknown> = {
  [K in keyof M]: Handler<M[K]['params'], M[K]['result'] | M[K]['alt'], C>;
};

/** The dispatch function a dispatcher returns. Throws RpcError. */
export type Dispatch<C = unknown> = (method: string, params: unknown, ctx: C) => Promise<unknown>;

/** Options of {@link createDispatcher}: which checks run around each handler. */
export interface DispatcherOptions {
  /** Validate handler results against the method's result schema (default true). */
  validateResults?: boolean;
  /** Called with the real failure behind a -32603 (handler throw or invalid result). */
  onInternalError?: (method: string, error: unknown) => void;
}

/** Short, stable description of validation errors: `/path: message` joined by `; `. */
export function describeErrors(errors: readonly ValidationError[] | null | undefined): string {
  if (!errors?.length) return 'invalid';
  return errors.map((e) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}`).join('; ');
}

/**
 * Builds a dispatcher over `entries` (one direction of a generated table) and `handlers`.
 * A method without a handler answers -32601 like an unknown one.
 */
export function createDispatcher<C>(
  entries: Readonly<Record<string, MethodEntry>>,
  handlers: Readonly<Record<string, Handler<never, unknown, C> | undefined>>,
  options: DispatcherOptions = {},
): Dispatch<C> {
  const validateResults = options.validateResults ?? true;
  return async (method, params, ctx) => {
    const entry = Object.hasOwn(entries, method) ? entries[method] : undefined;
    const handler = entry && Object.hasOwn(handlers, method) ? handlers[method] : undefined;
    if (!entry || typeof handler !== 'function') {
      throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    if (params === undefined ? entry.paramsRequired : entry.params && !entry.params(params)) {
      const errors =
        params === undefined
          ? [{ instancePath: '', keyword: 'required', message: 'params are required' }]
          : entry.params!.errors;
      throw new RpcError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${describeErrors(errors)}`, {
        errors,
      });
    }
    let result: unknown;
    try {
      result = await (handler as Handler<unknown, unknown, C>)(params, ctx);
    } catch (e) {
      if (e instanceof RpcError) throw e;
      options.onInternalError?.(method, e);
      throw new RpcError(ErrorCode.InternalError, 'Internal error');
    }
    if (validateResults && entry.result && !entry.result(result)) {
      options.onInternalError?.(
        method,
        new Error(`result of ${method} does not match its schema: ${describeErrors(entry.result.errors)}`),
      );
      throw new RpcError(ErrorCode.InternalError, 'Internal error');
    }
    return result;
  };
}
