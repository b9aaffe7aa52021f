/**
 * Multi round-trip requests (draft `basic/patterns/mrtr.mdx`) and result decoding by
 * `resultType` (draft `basic/index.mdx`, ResultType).
 *
 * Server side: a handler of `tools/call`, `prompts/get` or `resources/read` returns
 * {@link inputRequired}`({ inputRequests?, requestState? })` instead of its result; the client
 * fulfils the embedded requests and retries with `inputResponses` (keyed like `inputRequests`)
 * and the exact `requestState`. {@link RequestStateSealer} protects `requestState` with
 * HMAC-SHA256 under a per-server secret, binding it to the method (and optionally a caller
 * chosen string such as the principal or a digest of the salient params) and to an expiry.
 *
 * Client side: {@link runInputRounds} is the retry loop `ClientSession.request` uses for
 * stateless revisions: every result is decoded by `resultType` (absent → `"complete"`, unknown →
 * InvalidResultError), each `input_required` round is answered by the client's handlers for
 * `sampling/createMessage`, `elicitation/create`, `roots/list` (only those whose capability the
 * client declared), and the request is sent again with a new JSON-RPC id. After `maxRounds`
 * input-required results (default 10) it gives up with {@link MaxInputRoundsError}.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode, InvalidResultError, RequestAbortedError, RpcError, validationIssues } from '../jsonrpc/errors.js';
import type { Params, RequestId } from '../jsonrpc/message.js';
import { hasCapability, type RequestContext } from '../engine/peer.js';
import type { MethodEntry, ProtocolTable } from '../protocol/table.js';

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
export function inputRequired<R = InputRequiredResult>(fields: { inputRequests?: InputRequests; requestState?: string }): R {
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
export function readInput(params: Params | undefined): { inputResponses: InputResponses; requestState: string | undefined } {
  const r = params?.inputResponses;
  const s = params?.requestState;
  return {
    inputResponses: typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as InputResponses) : {},
    requestState: typeof s === 'string' ? s : undefined,
  };
}

/** Why a `requestState` was refused. */
export type RequestStateFault = 'malformed' | 'tampered' | 'expired' | 'method' | 'binding';

/** A `requestState` failed verification: JSON-RPC -32602 (Invalid params), `data.reason` says why. */
export class InvalidRequestStateError extends RpcError {
  constructor(readonly reason: RequestStateFault, method: string) {
    super(ErrorCode.InvalidParams, `Invalid requestState for ${method}: ${REASONS[reason]}`, { reason });
    this.name = 'InvalidRequestStateError';
  }
}
const REASONS: Record<RequestStateFault, string> = {
  malformed: 'not a request state issued by this server',
  tampered: 'integrity check failed',
  expired: 'expired',
  method: 'issued for another method',
  binding: 'issued for another request or principal',
};

export interface RequestStateSealerOptions {
  /** HMAC key (≥ 32 bytes recommended). Default: 32 random bytes, so state dies with the process; share one across instances behind a load balancer. */
  secret?: string | Uint8Array;
  /** Lifetime of sealed state, ms (default 300000, 5 minutes). */
  ttlMs?: number;
  /** Clock in ms since the epoch (default Date.now). */
  now?: () => number;
}

/**
 * Seals and verifies `requestState` (mrtr page, Server Requirements 4–5). The token is
 * base64url of `HMAC-SHA256(secret, payload) ‖ payload`, payload the JSON
 * `{ m: method, e: expiresAt (ms since epoch), b?: binding, d: data }`. Integrity only: the
 * client can read `data`, so keep secrets out of it.
 */
export class RequestStateSealer {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: RequestStateSealerOptions = {}) {
    this.#key = options.secret === undefined ? randomBytes(32) : Buffer.from(options.secret);
    if (this.#key.length === 0) throw new TypeError('requestState secret must not be empty');
    this.#ttlMs = options.ttlMs ?? 300_000;
    this.#now = options.now ?? Date.now;
  }

  /** Seals `data` (any JSON value) for `method`; `ttlMs` overrides the default lifetime (ms). */
  seal(method: string, data: unknown, options: { ttlMs?: number; binding?: string } = {}): string {
    const payload: Record<string, unknown> = { m: method, e: this.#now() + (options.ttlMs ?? this.#ttlMs), d: data ?? null };
    if (options.binding !== undefined) payload.b = options.binding;
    const body = Buffer.from(JSON.stringify(payload), 'utf8');
    return Buffer.concat([this.#mac(body), body]).toString('base64url');
  }

  /**
   * Returns the data sealed into `state`. Throws {@link InvalidRequestStateError} (-32602) when
   * it is not base64url of a token of this secret (`malformed`, `tampered`), has lapsed
   * (`expired`), was sealed for another method (`method`) or another `binding` (`binding`).
   */
  verifyRequestState<T = unknown>(state: string, method: string, options: { binding?: string } = {}): T {
    if (typeof state !== 'string' || !/^[A-Za-z0-9_-]+$/.test(state)) throw new InvalidRequestStateError('malformed', method);
    const raw = Buffer.from(state, 'base64url');
    if (raw.length <= 32) throw new InvalidRequestStateError('malformed', method);
    const mac = raw.subarray(0, 32);
    const body = raw.subarray(32);
    if (!timingSafeEqual(mac, this.#mac(body))) throw new InvalidRequestStateError('tampered', method);
    let payload: { m?: unknown; e?: unknown; b?: unknown; d?: unknown };
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      throw new InvalidRequestStateError('malformed', method);
    }
    if (payload.m !== method) throw new InvalidRequestStateError('method', method);
    if (typeof payload.e !== 'number' || this.#now() >= payload.e) throw new InvalidRequestStateError('expired', method);
    if (payload.b !== options.binding) throw new InvalidRequestStateError('binding', method);
    return payload.d as T;
  }

  #mac(body: Buffer): Buffer {
    return createHmac('sha256', this.#key).update(body).digest();
  }
}

/**
 * Server-side check of a handler's InputRequiredResult (mrtr page, Server Requirements;
 * Supported Requests). Returns the error to send instead, or undefined when it may go out:
 * -32603 when the method does not support input_required, both fields are missing, or an
 * embedded request is not an embedded server→client request of the table with valid params;
 * -32021 (`data.requiredCapabilities`) when it needs a capability the request's
 * `_meta["io.modelcontextprotocol/clientCapabilities"]` does not declare.
 */
export function checkInputRequired(table: ProtocolTable, entry: MethodEntry | undefined, result: Record<string, unknown>, clientCapabilities: Record<string, unknown> | undefined): RpcError | undefined {
  const method = entry?.method ?? '?';
  if (!entry?.inputRequired) return new RpcError(ErrorCode.InternalError, `${method} cannot be answered with input_required`);
  const requests = result.inputRequests;
  if (requests === undefined && typeof result.requestState !== 'string') {
    return new RpcError(ErrorCode.InternalError, `${method}: input_required without inputRequests or requestState`);
  }
  const missing: Record<string, unknown> = {};
  for (const [key, r] of Object.entries((requests ?? {}) as Record<string, InputRequest>)) {
    const e = table.requests.serverToClient[r?.method];
    if (!e?.embedded) return new RpcError(ErrorCode.InternalError, `${method}: input request ${key} has method ${String(r?.method)}, not an embedded request`);
    if (e.params && r.params !== undefined && !e.params(r.params)) return new RpcError(ErrorCode.InternalError, `${method}: input request ${key} has invalid params`);
    if (e.capability && !hasCapability(clientCapabilities, e.capability)) missing[e.capability[0]] = {};
  }
  if (Object.keys(missing).length) return missingCapabilityError(missing);
  return undefined;
}

/** -32021 MissingRequiredClientCapability with `data.requiredCapabilities` (draft basic/index, `_meta`). */
export function missingCapabilityError(requiredCapabilities: Record<string, unknown>): RpcError {
  return new RpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${Object.keys(requiredCapabilities).join(', ')}`, { requiredCapabilities });
}

/** The client capabilities a stateless request declared in `_meta` (undefined when absent). */
export function clientCapabilitiesOf(ctx: Pick<RequestContext, 'meta'>): Record<string, unknown> | undefined {
  const c = ctx.meta?.['io.modelcontextprotocol/clientCapabilities'];
  return typeof c === 'object' && c !== null ? (c as Record<string, unknown>) : undefined;
}

/**
 * For a server handler: throws -32021 unless the request's client capabilities declare every
 * top-level capability named in `required` (e.g. `{ elicitation: {} }`).
 */
export function requireClientCapabilities(ctx: Pick<RequestContext, 'meta'>, required: Record<string, unknown>): void {
  const caps = clientCapabilitiesOf(ctx);
  const missing = Object.fromEntries(Object.entries(required).filter(([k]) => !hasCapability(caps, [k])));
  if (Object.keys(missing).length) throw missingCapabilityError(missing);
}

/** The client answered `input_required` `rounds` times for `method` and gave up (case 016). */
export class MaxInputRoundsError extends RpcError {
  constructor(readonly method: string, readonly rounds: number) {
    super(ErrorCode.InternalError, `${method}: the server still asked for input after ${rounds} rounds (maxInputRounds ${rounds}); giving up`, { method, rounds });
    this.name = 'MaxInputRoundsError';
  }
}

/** One embedded input request could not be fulfilled locally (undeclared capability, no handler, invalid request or answer). */
export class InputRequestError extends RpcError {
  constructor(readonly method: string, readonly key: string, readonly inputMethod: string, why: string) {
    super(ErrorCode.InternalError, `${method}: cannot answer input request ${JSON.stringify(key)} (${inputMethod}): ${why}`, { method, key, inputMethod });
    this.name = 'InputRequestError';
  }
}

/** Decoded result: the final one, or a request for input. */
export type Decoded = { kind: 'complete'; result: Record<string, unknown> } | { kind: 'input_required'; result: InputRequiredResult };

/**
 * Decodes one result of a stateless revision by `resultType`: absent → `"complete"` (filled in);
 * `"input_required"` only for methods that support it and with `inputRequests` (an object) or
 * `requestState` (a string); anything else → InvalidResultError. `validate` checks complete
 * results against the method's result schema.
 */
export function decodeResult(entry: MethodEntry, result: Record<string, unknown>, validate = true): Decoded {
  const method = entry.method;
  const type = result.resultType === undefined ? 'complete' : result.resultType;
  const bad = (message: string, path = '/resultType') => new InvalidResultError(method, [{ path, message }]);
  if (typeof type !== 'string' || !RESULT_TYPES.includes(type)) throw bad(`unknown resultType ${JSON.stringify(type)}`);
  if (type === 'input_required') {
    if (!entry.inputRequired) throw bad(`${method} cannot be answered with input_required`);
    const { inputRequests, requestState } = result;
    const okRequests = inputRequests === undefined || (typeof inputRequests === 'object' && inputRequests !== null && !Array.isArray(inputRequests));
    if (!okRequests) throw bad('must be an object', '/inputRequests');
    if (requestState !== undefined && typeof requestState !== 'string') throw bad('must be a string', '/requestState');
    if (inputRequests === undefined && requestState === undefined) throw bad('input_required without inputRequests or requestState', '');
    return { kind: 'input_required', result: result as InputRequiredResult };
  }
  const out = result.resultType === undefined ? { resultType: 'complete', ...result } : result;
  if (validate && entry.result && !entry.result(out)) throw new InvalidResultError(method, validationIssues(entry.result.errors));
  return { kind: 'complete', result: out };
}

/** A client handler of an embedded request. */
export type InputHandler = (params: Params | undefined, ctx: RequestContext) => unknown;

export interface InputRoundsOptions {
  table: ProtocolTable;
  entry: MethodEntry;
  params: Params;
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
}

/**
 * Runs one request to completion through any number of `input_required` rounds (up to
 * `maxRounds`). Each retry carries the original params plus `inputResponses` (only when the
 * round had `inputRequests`) and `requestState` (only when the round had one, byte for byte);
 * nothing from a round leaks into another request. Embedded requests are answered one after
 * another in key order, with `signal` as their context's signal; the time they take (a user
 * answering a form) counts against no request timeout, each attempt has its own. Resolves
 * `{ result, rounds }` (`rounds` = input-required results seen). Rejects with
 * InvalidResultError, InputRequestError, MaxInputRoundsError, RequestAbortedError (`signal`
 * fired between rounds: no retry is sent), or `send`'s error.
 */
export async function runInputRounds(o: InputRoundsOptions): Promise<{ result: Record<string, unknown>; rounds: number }> {
  const max = o.maxRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
  const { method } = o.entry;
  const base: Params = { ...o.params };
  delete base.inputResponses;
  delete base.requestState;
  let attempt: Params = o.params;
  for (let rounds = 0; ; rounds++) {
    const decoded = decodeResult(o.entry, await o.send(attempt), o.validate);
    if (decoded.kind === 'complete') return { result: decoded.result, rounds };
    if (rounds + 1 > max) throw new MaxInputRoundsError(method, max);
    const { inputRequests, requestState } = decoded.result;
    attempt = { ...base };
    if (inputRequests !== undefined) attempt.inputResponses = await fulfil(o, inputRequests);
    if (requestState !== undefined) attempt.requestState = requestState;
    if (o.signal?.aborted) throw new RequestAbortedError(method, o.signal.reason);
  }
}

async function fulfil(o: InputRoundsOptions, requests: InputRequests): Promise<InputResponses> {
  const method = o.entry.method;
  const out: InputResponses = {};
  for (const key of Object.keys(requests)) {
    const r = requests[key];
    const m = typeof r?.method === 'string' ? r.method : '?';
    const fail = (why: string) => new InputRequestError(method, key, m, why);
    const e = o.table.requests.serverToClient[m];
    if (!e?.embedded) throw fail('not an input request of this revision');
    if (e.capability && !hasCapability(o.capabilities, e.capability)) throw fail(`the client did not declare capability ${e.capability.join('.')}`);
    const handler = o.handlers[m];
    if (!handler) throw fail('no handler registered');
    if (r.params === undefined ? e.paramsRequired : e.params && !e.params(r.params)) {
      throw fail(`invalid params: ${validationIssues(e.params?.errors).map((i) => `${i.path || '/'} ${i.message}`)[0]}`);
    }
    const answer = await handler(r.params, embeddedContext(key, m, r.params, o.signal));
    if (typeof answer !== 'object' || answer === null || (e.result && !e.result(answer))) throw fail('the handler returned an invalid result');
    out[key] = answer as Record<string, unknown>;
  }
  return out;
}

/** The RequestContext a client handler sees for an embedded request: `requestId` is its key. */
function embeddedContext(key: RequestId, method: string, params: Params | undefined, signal: AbortSignal | undefined): RequestContext {
  const meta = params?._meta;
  return {
    requestId: key,
    method,
    signal: signal ?? new AbortController().signal,
    meta: typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : undefined,
    info: undefined,
    sendProgress: () => Promise.resolve(),
    sendNotification: () => Promise.resolve(),
    sendRequest: () => Promise.reject(new RpcError(ErrorCode.InvalidRequest, 'an input request cannot send requests of its own')),
    // a client answering an embedded request has no log channel to the server
    log: () => Promise.resolve(false),
  };
}
