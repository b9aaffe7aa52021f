/**
 * The result checks of `ServerFeatures`' handler tables (./server-features.ts): each tool, prompt and resource
 * handler wrapped so that a result the negotiated revision's schema refuses, or a value its
 * method cannot answer with, is logged naming the tool, prompt or resource and answered -32603.
 *
 * @module
 */
import type { Logger } from '../engine/context.js';
import { isThenable } from '../engine/dispatch.js';
import {
  DIRECT_CALL,
  type DirectCall,
  NOT_DIRECT,
  RESULTS_CHECKED,
  type RequestContext,
  type RequestHandler,
} from '../engine/peer.js';
import type { MethodEntry, ProtocolTable } from '../protocol/table.js';
import { ErrorCode, RpcError, validationIssues } from '../jsonrpc/errors.js';
import { requestSubject, SUBJECT_METHODS } from '../protocol/subject.js';
import { HandlerReturnError, isObj, type Obj } from './tools.js';

/**
 * `table` (a `ServerFeatures` handler table) with the results of tools, prompts and resource reads checked against the negotiated
 * revision's result schema (`ctx.table`; none: unchecked). A failing result is logged with its
 * paths and answered -32603 with a message naming the tool, prompt or resource and the deepest
 * failing paths (data `{ errors }`), not the engine's bare "Internal error". The check adds no
 * promise of its own (it runs on the handler's value, or on its settled promise), and the wrapper is flagged
 * {@link RESULTS_CHECKED} so that the engine does not run the same validator again. A handler
 * with a direct form ({@link DIRECT_CALL}: the features' `tools/call`) keeps one, checked alike.
 */
export function checkedHandlers(table: Record<string, RequestHandler>, logger: Logger): Record<string, RequestHandler> {
  for (const method of SUBJECT_METHODS) {
    const subject = (p: Obj) => requestSubject(method, p)!;
    const h = table[method];
    if (!h) continue;
    // the method's row of the last table served (the engine's prepared rows assume the same: a
    // table's rows do not change in place; a request of another table looks its row up)
    let seen: ProtocolTable | undefined;
    let seenEntry: MethodEntry | undefined;
    const check = (p: Obj, served: ProtocolTable | undefined, given: unknown): unknown => {
      const entry =
        served === seen && served !== undefined
          ? seenEntry
          : ((seen = served), (seenEntry = served?.requests?.clientToServer?.[method]));
      // a revision whose results carry resultType (table.resultType): none is `complete`, as the engine answers it
      const r =
        served?.resultType === true && isObj(given) && given.resultType === undefined
          ? { resultType: 'complete', ...given }
          : given;
      if (!entry?.result || !isObj(r) || entry.result(r)) return r;
      const errors = validationIssues(entry.result.errors);
      const [kind, name] = subject(p);
      logger.error?.(`${kind} result fails the protocol schema`, {
        [kind]: name,
        method,
        protocolVersion: served?.protocolVersion,
        errors,
      });
      const depth = (path: string) => path.split('/').length;
      const deepest = Math.max(...errors.map((e) => depth(e.path)));
      const shown = [
        ...new Set(errors.filter((e) => depth(e.path) === deepest).map((e) => `${e.path || '(result)'}: ${e.message}`)),
      ].slice(0, 3);
      const label = `${kind[0].toUpperCase()}${kind.slice(1)} ${name}`;
      throw new RpcError(
        ErrorCode.InternalError,
        `${label} returned a result that is not a valid ${entry.resultTypes?.join(' or ') ?? `${method} result`} of protocol version ${served?.protocolVersion}: ${shown.join('; ')}`,
        { errors },
      );
    };
    // a handler that returned what its method cannot answer with, or whose result its own checks
    // refused (a tool's structuredContent against its outputSchema): -32603, and the log names it
    // too (any other throw the engine logs, naming it the same way)
    const failed = (p: Obj, e: unknown): never => {
      if (e instanceof HandlerReturnError) {
        const [kind, name] = subject(p);
        logger.error?.(`${kind} handler returned a value its method cannot answer with`, {
          [kind]: name,
          method,
          returned: e.returned,
          error: e.message,
        });
      } else if (e instanceof RpcError && e.code === ErrorCode.InternalError) {
        const [kind, name] = subject(p);
        logger.error?.(`${kind} handler failed`, { [kind]: name, method, error: e.message });
      }
      throw e;
    };
    // `call(p, arg)`'s outcome checked against `served` (`ctx.table` when `arg` is the context, read
    // once the outcome is there): a plain value (or throw) when it gave one, else a promise (one
    // `then`, no await hops); a direct form's NOT_DIRECT as it is. No closure in here: a function
    // whose closures capture its parameters allocates their context on every call
    const outcome = (p: Obj, call: (p: Obj, arg: never) => unknown, arg: unknown, ctx?: RequestContext): unknown => {
      let r: unknown;
      try {
        r = call(p, arg as never);
        if (r === NOT_DIRECT) return r;
      } catch (e) {
        return failed(p, e);
      }
      return isThenable(r) ? settled(p, r, arg, ctx) : check(p, ctx ? ctx.table : (arg as ProtocolTable), r);
    };
    const settled = (p: Obj, r: PromiseLike<unknown>, arg: unknown, ctx?: RequestContext) =>
      Promise.resolve(r).then(
        (v) => check(p, ctx ? ctx.table : (arg as ProtocolTable), v),
        (e: unknown) => failed(p, e),
      );
    const checked: RequestHandler = (p: Obj, ctx: RequestContext) => outcome(p, h, ctx, ctx);
    const direct = (h as { [DIRECT_CALL]?: DirectCall })[DIRECT_CALL];
    const checkedDirect: DirectCall | undefined =
      direct && ((p: Obj, served: ProtocolTable) => outcome(p, direct, served));
    table[method] = Object.assign(
      checked,
      checkedDirect ? { [RESULTS_CHECKED]: true, [DIRECT_CALL]: checkedDirect } : { [RESULTS_CHECKED]: true },
    );
  }
  return table;
}
