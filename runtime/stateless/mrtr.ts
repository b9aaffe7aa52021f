/**
 * Multi round-trip requests (draft `basic/patterns/mrtr.mdx`) and result decoding by
 * `resultType` (draft `basic/index.mdx`, ResultType).
 *
 * Server side: a handler of `tools/call`, `prompts/get` or `resources/read` returns
 * {@link inputRequired}`({ inputRequests?, requestState? })` instead of its result; the client
 * fulfils the embedded requests and retries with `inputResponses` (keyed like `inputRequests`)
 * and the exact `requestState`. `RequestStateSealer` (request-state.ts) protects `requestState` with
 * HMAC-SHA256 under a per-server secret; sealed for a request (`seal(ctx, data)`), it is bound by
 * default to the originating request's method and target (tool name, prompt name, resource URI),
 * the principal when one is known, the server's audience and an expiry (mrtr page, Server
 * Requirements 5), and refused with -32602 on any other request.
 *
 * Client side: {@link runInputRounds} is the retry loop `ClientSession.request` uses for
 * stateless revisions: every result is decoded by `resultType` (absent → `"complete"`, unknown →
 * InvalidResultError), each `input_required` round is answered by the client's handlers for
 * `sampling/createMessage`, `elicitation/create`, `roots/list` (only those whose capability the
 * client declared), and the request is sent again with a new JSON-RPC id. After `maxRounds`
 * input-required results (default 10) it gives up with {@link MaxInputRoundsError}.
 */
import { ErrorCode, InvalidResultError, RequestAbortedError, RpcError, validationIssues } from '../jsonrpc/errors.js';
import { lazy } from '../jsonrpc/lazy.js';
import type { Params } from '../jsonrpc/message.js';
import { hasCapability, type RequestContext } from '../engine/peer.js';
import { type MethodEntry, type ProtocolTable, errorCodeOf, missingParamCapability } from '../protocol/table.js';
import { describeValue, ownValue } from '../jsonrpc/own.js';

/** One embedded server→client request: `{ method, params? }` (ElicitRequest, CreateMessageRequest, ListRootsRequest). */
export interface InputRequest {
  method: string;
  params?: Params;
}
/** `InputRequests`: server-assigned key → embedded request. */
export type InputRequests = Record<string, InputRequest>;
/** `InputResponses`: the same keys → the client's result for each request. */
export type InputResponses = Record<string, Record<string, unknown>>;

/** `InputRequiredResult` (`resultType: "input_required"`): at least one of the two fields is present. */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests?: InputRequests;
  requestState?: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The `resultType` values this runtime understands; any other is an invalid result. */
export const RESULT_TYPES: readonly string[] = ['complete', 'input_required'];

/** Default number of `input_required` rounds a client answers before giving up (case 016). */
export const DEFAULT_MAX_INPUT_ROUNDS = 10;

/**
 * Builds an InputRequiredResult. Throws TypeError when both `inputRequests` and `requestState`
 * are absent (the mrtr page: servers MUST include at least one of them) or `inputRequests` is
 * empty with no state. `R` is the revision's generated InputRequiredResult type, inferred from
 * the handler's declared result; the server checks the embedded requests against the table's
 * schemas before the result leaves (see ServerSession).
 */
export function inputRequired<R = InputRequiredResult>(fields: {
  inputRequests?: InputRequests;
  requestState?: string;
}): R {
  const hasRequests = fields.inputRequests !== undefined && Object.keys(fields.inputRequests).length > 0;
  if (!hasRequests && fields.requestState === undefined) {
    throw new TypeError('an InputRequiredResult needs inputRequests or requestState');
  }
  const out: InputRequiredResult = { resultType: 'input_required' };
  if (hasRequests) out.inputRequests = fields.inputRequests;
  if (fields.requestState !== undefined) out.requestState = fields.requestState;
  return out as R;
}

/** Shorthands for the three embedded request kinds (params as the draft schema defines them). */
export const inputRequest = {
  elicit: (params: Params): InputRequest => ({ method: 'elicitation/create', params }),
  sample: (params: Params): InputRequest => ({ method: 'sampling/createMessage', params }),
  roots: (): InputRequest => ({ method: 'roots/list' }),
};

/** What a retried request carries: `inputResponses` (may be empty) and `requestState` (may be absent). */
export function readInput(params: Params | undefined): {
  inputResponses: InputResponses;
  requestState: string | undefined;
} {
  const r = params?.inputResponses;
  const s = params?.requestState;
  return {
    inputResponses: typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as InputResponses) : {},
    requestState: typeof s === 'string' ? s : undefined,
  };
}

/**
 * Server-side check of a handler's InputRequiredResult (mrtr page, Server Requirements;
 * Supported Requests). Returns the error to send instead, or undefined when it may go out:
 * -32603 when the method does not support input_required, both fields are missing, or an
 * embedded request is not an embedded server→client request of the table with valid params;
 * -32021 (`data.requiredCapabilities`) when it needs a capability the request's
 * `_meta["io.modelcontextprotocol/clientCapabilities"]` does not declare.
 */
export function checkInputRequired(
  table: ProtocolTable,
  entry: MethodEntry | undefined,
  result: Record<string, unknown>,
  clientCapabilities: Record<string, unknown> | undefined,
): RpcError | undefined {
  const method = entry?.method ?? '?';
  if (!entry?.inputRequired)
    return new RpcError(ErrorCode.InternalError, `${method} cannot be answered with input_required`);
  const requests = result.inputRequests;
  if (requests === undefined && typeof result.requestState !== 'string') {
    return new RpcError(ErrorCode.InternalError, `${method}: input_required without inputRequests or requestState`);
  }
  const missing: Record<string, unknown> = {};
  for (const [key, r] of Object.entries((requests ?? {}) as Record<string, InputRequest>)) {
    const e = typeof r?.method === 'string' ? ownValue(table.requests.serverToClient, r.method) : undefined;
    if (!e?.embedded)
      return new RpcError(
        ErrorCode.InternalError,
        `${method}: input request ${key} has method ${describeValue(r?.method)}, not an embedded request`,
      );
    if (e.params && r.params !== undefined && !e.params(r.params))
      return new RpcError(ErrorCode.InternalError, `${method}: input request ${key} has invalid params`);
    if (e.capability && !hasCapability(clientCapabilities, e.capability)) missing[e.capability[0]] = {};
    else if (e.capability) {
      // a URL elicitation, or sampling with tools, needs its sub-capability too: { elicitation: { url: {} } }
      const sub = missingParamCapability(r.method, r.params, clientCapabilities);
      if (sub) missing[sub[0]] = { ...(missing[sub[0]] as Record<string, unknown> | undefined), [sub[1]]: {} };
    }
  }
  if (Object.keys(missing).length) return missingCapabilityError(missing, table);
  return undefined;
}

/**
 * MissingRequiredClientCapability with `data.requiredCapabilities` (draft basic/index, `_meta`),
 * its code that of `table`'s revision (`MISSING_REQUIRED_CLIENT_CAPABILITY`, -32021 in the
 * stateless revisions); without a table, -32021.
 */
export function missingCapabilityError(
  requiredCapabilities: Record<string, unknown>,
  table?: Pick<ProtocolTable, 'revision' | 'errorCodes'>,
): RpcError {
  const code = table
    ? errorCodeOf(table, 'MISSING_REQUIRED_CLIENT_CAPABILITY')
    : ErrorCode.MissingRequiredClientCapability;
  return new RpcError(code, `Missing required client capability: ${Object.keys(requiredCapabilities).join(', ')}`, {
    requiredCapabilities,
  });
}

/** The table of the session serving `ctx` (a `ServerSession`'s `table`), if it has one. */
function sessionTable(ctx: object): ProtocolTable | undefined {
  const session = (ctx as { session?: unknown }).session;
  const table = typeof session === 'object' && session !== null ? (session as { table?: unknown }).table : undefined;
  return typeof table === 'object' && table !== null && typeof (table as ProtocolTable).errorCodes === 'object'
    ? (table as ProtocolTable)
    : undefined;
}

/** The client capabilities a stateless request declared in `_meta` (undefined when absent). */
export function clientCapabilitiesOf(ctx: Pick<RequestContext, 'meta'>): Record<string, unknown> | undefined {
  const c = ctx.meta?.['io.modelcontextprotocol/clientCapabilities'];
  return typeof c === 'object' && c !== null ? (c as Record<string, unknown>) : undefined;
}

/**
 * For a server handler: throws MissingRequiredClientCapability (the code of the serving
 * session's table, `ctx.session.table`) unless the request's client capabilities declare every
 * top-level capability named in `required` (e.g. `{ elicitation: {} }`).
 */
export function requireClientCapabilities(ctx: Pick<RequestContext, 'meta'>, required: Record<string, unknown>): void {
  const caps = clientCapabilitiesOf(ctx);
  const missing = Object.fromEntries(Object.entries(required).filter(([k]) => !hasCapability(caps, [k])));
  if (Object.keys(missing).length) throw missingCapabilityError(missing, sessionTable(ctx));
}

/** The client answered `input_required` `rounds` times for `method` and gave up (case 016). */
export class MaxInputRoundsError extends RpcError {
  constructor(
    readonly method: string,
    readonly rounds: number,
  ) {
    super(
      ErrorCode.InternalError,
      `${method}: the server still asked for input after ${rounds} rounds (maxInputRounds ${rounds}); giving up`,
      { method, rounds },
    );
    this.name = 'MaxInputRoundsError';
  }
}

/** Decoded result: the final one, a request for input, or one of a `resultType` an extension defines (`passThrough`). */
export type Decoded =
  | { kind: 'complete'; result: Record<string, unknown> }
  | { kind: 'input_required'; result: InputRequiredResult }
  | { kind: 'extension'; result: Record<string, unknown> };

/** A result decodeResult refuses: `message` about the field at `path`. */
const badResult = (method: string, message: string, path = '/resultType'): InvalidResultError =>
  new InvalidResultError(method, [{ path, message }]);

/**
 * Decodes one result of a stateless revision by `resultType`: absent → `"complete"` (filled in);
 * `"input_required"` only for methods that support it and with `inputRequests` (an object) or
 * `requestState` (a string); a `resultType` that `passThrough` accepts (one an extension the
 * client declared defines, e.g. the tasks extension's `"task"`) → as it is, unvalidated;
 * anything else → InvalidResultError. `validate` checks complete results against the method's
 * result schema (`entry.complete`, the complete type alone, when the entry has it).
 */
export function decodeResult(
  entry: MethodEntry,
  result: Record<string, unknown>,
  validate = true,
  passThrough?: (resultType: string) => boolean,
): Decoded {
  const method = entry.method;
  const type = result.resultType === undefined ? 'complete' : result.resultType;
  if (typeof type !== 'string' || !RESULT_TYPES.includes(type)) {
    if (typeof type === 'string' && passThrough?.(type)) return { kind: 'extension', result };
    throw badResult(method, `unknown resultType ${JSON.stringify(type)}`);
  }
  if (type === 'input_required') {
    if (!entry.inputRequired) throw badResult(method, `${method} cannot be answered with input_required`);
    const { inputRequests, requestState } = result;
    const okRequests =
      inputRequests === undefined ||
      (typeof inputRequests === 'object' && inputRequests !== null && !Array.isArray(inputRequests));
    if (!okRequests) throw badResult(method, 'must be an object', '/inputRequests');
    if (requestState !== undefined && typeof requestState !== 'string')
      throw badResult(method, 'must be a string', '/requestState');
    if (inputRequests === undefined && requestState === undefined)
      throw badResult(method, 'input_required without inputRequests or requestState', '');
    return { kind: 'input_required', result: result as InputRequiredResult };
  }
  const out = result.resultType === undefined ? { resultType: 'complete', ...result } : result;
  // (the complete result's own type where the method's results may also be InputRequiredResults)
  const check = entry.complete ?? entry.result;
  if (validate && check && !check(out)) throw new InvalidResultError(method, validationIssues(check.errors));
  return { kind: 'complete', result: out };
}

/** A client handler of an embedded request. */
export type InputHandler = (params: Params | undefined, ctx: RequestContext) => unknown;

/** Options of {@link runInputRounds}: the request, the revision's table, the handlers of embedded requests and the round bound. */
export interface InputRoundsOptions {
  table: ProtocolTable;
  entry: MethodEntry;
  params: Params;
  /** The raw result of the first attempt, when the caller sent it already (the loop then starts by decoding it). */
  first?: Record<string, unknown>;
  /** Sends one attempt (a new JSON-RPC request each call) and resolves with its raw result. */
  send: (params: Params) => Promise<Record<string, unknown>>;
  /** The client's handlers by method (sampling/createMessage, elicitation/create, roots/list). */
  handlers: Readonly<Record<string, InputHandler | undefined>>;
  /** The capabilities the client declares; an embedded request needing another one is refused. */
  capabilities: Record<string, unknown>;
  /** Input-required rounds answered before MaxInputRoundsError (default 10). */
  maxRounds?: number;
  validate?: boolean;
  signal?: AbortSignal;
  /** `resultType` values of extensions the client declared: such a result ends the loop as it is (see {@link decodeResult}). */
  passThrough?: (resultType: string) => boolean;
}

/** ./input-rounds.ts (answering embedded requests), imported by the first round that has some (a failed import is tried again by the next). */
const inputRounds = lazy(() => import('./input-rounds.js'));

/**
 * Runs one request to completion through any number of `input_required` rounds (up to
 * `maxRounds`). Each retry carries the original params plus `inputResponses` (only when the
 * round had `inputRequests`) and `requestState` (only when the round had one, byte for byte);
 * nothing from a round leaks into another request. Embedded requests are answered one after
 * another in key order, with `signal` as their context's signal; the time they take (a user
 * answering a form) counts against no request timeout, each attempt has its own. Resolves
 * `{ result, rounds }` (`rounds` = input-required results seen). Rejects with
 * InvalidResultError, InputRequestError (./input-rounds.ts, imported by the first round with embedded requests), MaxInputRoundsError, RequestAbortedError (`signal`
 * fired between rounds: no retry is sent), or `send`'s error.
 */
export async function runInputRounds(
  o: InputRoundsOptions,
): Promise<{ result: Record<string, unknown>; rounds: number }> {
  const max = o.maxRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
  const { method } = o.entry;
  // the params of every retry: the caller's without inputResponses and requestState, made at
  // the first input_required (most calls end in one round and need none)
  let base: Params | undefined;
  let attempt: Params = o.params;
  for (let rounds = 0; ; rounds++) {
    const raw = rounds === 0 && o.first !== undefined ? o.first : await o.send(attempt);
    const decoded = decodeResult(o.entry, raw, o.validate, o.passThrough);
    if (decoded.kind !== 'input_required') return { result: decoded.result, rounds };
    if (rounds + 1 > max) throw new MaxInputRoundsError(method, max);
    const { inputRequests, requestState } = decoded.result;
    if (base === undefined) {
      base = { ...o.params };
      delete base.inputResponses;
      delete base.requestState;
    }
    attempt = { ...base };
    if (inputRequests !== undefined)
      attempt.inputResponses = await (await inputRounds.load()).answerInputRequests({ ...o, method }, inputRequests);
    if (requestState !== undefined) attempt.requestState = requestState;
    if (o.signal?.aborted) throw new RequestAbortedError(method, o.signal.reason);
  }
}
