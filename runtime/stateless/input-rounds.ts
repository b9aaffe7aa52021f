/**
 * The client side of one multi round-trip round (draft `basic/patterns/mrtr.mdx`): answering the
 * embedded requests of an `input_required` result. ./mrtr.ts's runInputRounds imports this
 * module on the first round that has embedded requests, so a client that never gets one does
 * not load it (a bundler puts it in a chunk of its own).
 */
import { ErrorCode, RpcError, validationIssues } from '../jsonrpc/errors.js';
import type { Params, RequestId } from '../jsonrpc/message.js';
import { hasCapability, type RequestContext } from '../engine/peer.js';
import { type ProtocolTable, missingParamCapability } from '../protocol/table.js';
import { ownValue, setOwn } from '../jsonrpc/own.js';

/** One embedded input request could not be fulfilled locally (undeclared capability, no handler, invalid request or answer). */
export class InputRequestError extends RpcError {
  constructor(
    readonly method: string,
    readonly key: string,
    readonly inputMethod: string,
    why: string,
  ) {
    super(
      ErrorCode.InternalError,
      `${method}: cannot answer input request ${JSON.stringify(key)} (${inputMethod}): ${why}`,
      { method, key, inputMethod },
    );
    this.name = 'InputRequestError';
  }
}

/** What {@link answerInputRequests} reads: runInputRounds' options, `method` the request the input belongs to. */
export interface AnswerOptions {
  table: ProtocolTable;
  method: string;
  handlers: Readonly<Record<string, ((params: Params | undefined, ctx: RequestContext) => unknown) | undefined>>;
  capabilities: Record<string, unknown>;
  signal?: AbortSignal;
}

/**
 * Answers embedded requests with the client's handlers (`o.handlers`), one after another in key
 * order, and resolves with the responses keyed alike: the step of an `input_required` round, also
 * used for the `inputRequests` of a task of the tasks extension (`o.method` is the request they
 * belong to, named in errors). Each request's method must be an embedded request of `o.table`
 * whose capability, and the sub-capability its params need (e.g. `elicitation.url`),
 * `o.capabilities` declares.
 * @throws InputRequestError (-32603) naming the key and why when one cannot be answered (not an
 * embedded request, undeclared capability, no handler, invalid params or answer); or the
 * handler's own error.
 */
export async function answerInputRequests(
  o: AnswerOptions,
  requests: Record<string, { method: string; params?: Params }>,
): Promise<Record<string, Record<string, unknown>>> {
  const method = o.method;
  const out: Record<string, Record<string, unknown>> = {};
  for (const key of Object.keys(requests)) {
    const r = requests[key];
    const m = typeof r?.method === 'string' ? r.method : '?';
    const fail = (why: string) => new InputRequestError(method, key, m, why);
    const e = ownValue(o.table.requests.serverToClient, m);
    if (!e?.embedded) throw fail('not an input request of this revision');
    if (e.capability && !hasCapability(o.capabilities, e.capability))
      throw fail(`the client did not declare capability ${e.capability.join('.')}`);
    const sub = e.capability ? missingParamCapability(m, r.params, o.capabilities) : undefined;
    if (sub) throw fail(`the client did not declare capability ${sub.join('.')}`);
    const handler = ownValue(o.handlers, m);
    if (!handler) throw fail('no handler registered');
    if (r.params === undefined ? e.paramsRequired : e.params && !e.params(r.params)) {
      throw fail(
        `invalid params: ${validationIssues(e.params?.errors).map((i) => `${i.path || '/'} ${i.message}`)[0]}`,
      );
    }
    const answer = await handler(r.params, embeddedContext(key, m, r.params, o.signal));
    if (typeof answer !== 'object' || answer === null || (e.result && !e.result(answer)))
      throw fail('the handler returned an invalid result');
    // the server chose the key: `__proto__` is a key like any other, not the prototype
    setOwn(out, key, answer as Record<string, unknown>);
  }
  return out;
}

/** The RequestContext a client handler sees for an embedded request: `requestId` is its key. */
function embeddedContext(
  key: RequestId,
  method: string,
  params: Params | undefined,
  signal: AbortSignal | undefined,
): RequestContext {
  const meta = params?._meta;
  return {
    requestId: key,
    method,
    signal: signal ?? new AbortController().signal,
    meta: typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : undefined,
    info: undefined,
    sendProgress: () => Promise.resolve(),
    sendNotification: () => Promise.resolve(),
    sendRequest: () =>
      Promise.reject(new RpcError(ErrorCode.InvalidRequest, 'an input request cannot send requests of its own')),
    // a client answering an embedded request has no log channel to the server
    log: () => Promise.resolve(false),
  };
}
