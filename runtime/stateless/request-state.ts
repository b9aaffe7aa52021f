/**
 * Sealed `requestState` of multi round-trip requests (draft `basic/patterns/mrtr.mdx`, Server
 * Requirements 4–5): {@link RequestStateSealer} protects the state a server hands the client
 * with HMAC-SHA256 under a per-server secret, bound to the originating request (method, target,
 * principal), the server's audience and an expiry; {@link InvalidRequestStateError} (-32602)
 * refuses it on any other request.
 *
 * @module
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  concatBytes,
  equalBytes,
  fromBase64Url,
  randomBytes,
  toBase64Url,
  toHex,
  utf8Bytes,
  utf8Text,
} from '../codec/bytes.js';
import type { RequestContext } from '../engine/peer.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/message.js';

/** Why a `requestState` was refused. */
export type RequestStateFault =
  | 'malformed'
  | 'too_large'
  | 'tampered'
  | 'expired'
  | 'method'
  | 'request'
  | 'principal'
  | 'audience'
  | 'binding';

/**
 * A `requestState` failed verification: JSON-RPC -32602 (Invalid params: the state is one of the
 * request's params), `data.reason` says why (mrtr page, Server Requirements 4–5: "MUST reject
 * state that fails verification").
 */
export class InvalidRequestStateError extends RpcError {
  constructor(
    readonly reason: RequestStateFault,
    method: string,
  ) {
    super(ErrorCode.InvalidParams, `Invalid requestState for ${method}: ${REASONS[reason]}`, { reason });
    this.name = 'InvalidRequestStateError';
  }
}
const REASONS: Record<RequestStateFault, string> = {
  malformed: 'not a request state issued by this server',
  too_large: 'longer than this server accepts',
  tampered: 'integrity check failed',
  expired: 'expired',
  method: 'issued for another method',
  request: 'issued for another request',
  principal: 'issued to another principal',
  audience: 'issued by another server',
  binding: 'issued for another request or principal',
};

/** Default longest `requestState` accepted or issued, in characters of its base64url text (64 KiB). */
export const DEFAULT_MAX_REQUEST_STATE_LENGTH = 65_536;
/** Shortest secret accepted, bytes (the HMAC-SHA256 output size; shorter keys weaken the MAC). */
export const MIN_REQUEST_STATE_SECRET_BYTES = 32;

/**
 * What identifies a request for {@link RequestStateSealer}: a handler's RequestContext (its
 * `method` and `params`) or any object with those fields.
 */
export type RequestIdentity = Pick<RequestContext, 'method'> & {
  readonly params?: Params;
  readonly info?: RequestContext['info'];
  readonly meta?: RequestContext['meta'];
};

/**
 * The target of a request: what, besides the method, names what it acts on. `params.name` for
 * `tools/call` and `prompts/get`, `params.uri` for `resources/read` (draft server/tools,
 * server/prompts, server/resources); for any other method the first of `name`, `uri` that is a
 * string; undefined when there is none.
 */
export function requestTarget(method: string, params: Params | undefined): string | undefined {
  if (!params) return undefined;
  const pick = (k: string) =>
    Object.hasOwn(params, k) && typeof params[k] === 'string' ? (params[k] as string) : undefined;
  if (method === 'tools/call' || method === 'prompts/get') return pick('name');
  if (method === 'resources/read') return pick('uri');
  return pick('name') ?? pick('uri');
}

/** Options of {@link RequestStateSealer}: the key and the lifetime of sealed request state. */
export interface RequestStateSealerOptions {
  /**
   * HMAC-SHA256 key, at least 32 bytes. Default: 32 random bytes, so state dies with the process
   * and only this process accepts it: several processes serving one endpoint (behind a load
   * balancer, or restarted between rounds) MUST share one secret (`mcpgen serve`:
   * `MCPGEN_REQUEST_STATE_SECRET` or `--request-state-secret-file`). Never a constant default.
   */
  secret?: string | Uint8Array;
  /** Earlier secrets still accepted when verifying (key rotation); states are sealed with `secret` only. */
  previousSecrets?: readonly (string | Uint8Array)[];
  /** Lifetime of sealed state, ms (default 300000, 5 minutes). */
  ttlMs?: number;
  /** Clock in ms since the epoch (default Date.now). */
  now?: () => number;
  /** Longest `requestState` accepted (and issued), characters (default 65536). */
  maxLength?: number;
  /**
   * The identity of this server (e.g. its public URL or service name), sealed into every state and
   * required on receipt: servers sharing a secret do not accept each other's states. Default none.
   */
  audience?: string;
  /**
   * The authenticated principal of a request (e.g. the subject of its access token), sealed into
   * states sealed for a request and required on receipt (mrtr page, Server Requirements 5). Default:
   * none known (the runtime authenticates nobody); undefined for a request: no principal is bound.
   */
  principal?: (request: RequestIdentity) => string | undefined;
}

const KEY_ID_BYTES = 6;
const MAC_BYTES = 32;

/**
 * Seals and verifies `requestState` (mrtr page, Server Requirements 4–5). The token is base64url
 * of `keyId (6 bytes) ‖ HMAC-SHA256(key, payload) ‖ payload`, payload the JSON `{ m: method,
 * t?: target, p?: principal, a?: audience, e: expiresAt (ms since epoch), b?: binding, d: data }`;
 * `keyId` is derived from the key (not secret) and picks the key among `secret` and
 * `previousSecrets`. Integrity only: the client can read `data`, so keep secrets out of it.
 *
 * Seal for a request (`seal(ctx, data)`, `verifyRequestState(state, ctx)` or `open(ctx)`): the
 * state is bound by default to the method, the request's target ({@link requestTarget}: the tool
 * or prompt name, the resource URI), the principal (option `principal`), the audience and an
 * expiry, so a state issued by one tool is refused on another tool's round. The method-name form
 * `seal(method, data, { binding })` binds the method, the audience, the expiry and `binding` only
 * (no target, no principal): prefer the request form; a state sealed for a request is never
 * accepted by the method-name form of `verifyRequestState`.
 * MACs are compared in constant time; a state longer than `maxLength` is refused before decoding.
 */
export class RequestStateSealer {
  readonly #key: Uint8Array;
  readonly #keyId: Uint8Array;
  readonly #keys = new Map<string, Uint8Array>();
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #maxLength: number;
  readonly #audience: string | undefined;
  readonly #principal: ((request: RequestIdentity) => string | undefined) | undefined;

  constructor(options: RequestStateSealerOptions = {}) {
    const key = (s: string | Uint8Array): Uint8Array => {
      const k = typeof s === 'string' ? utf8Bytes(s) : Uint8Array.from(s);
      if (k.length === 0) throw new TypeError('requestState secret must not be empty');
      if (k.length < MIN_REQUEST_STATE_SECRET_BYTES)
        throw new TypeError(
          `requestState secret must have at least ${MIN_REQUEST_STATE_SECRET_BYTES} bytes, not ${k.length}`,
        );
      return k;
    };
    this.#key = options.secret === undefined ? randomBytes(32) : key(options.secret);
    this.#keyId = keyIdOf(this.#key);
    for (const k of [this.#key, ...(options.previousSecrets ?? []).map(key)]) {
      const id = toHex(keyIdOf(k));
      if (!this.#keys.has(id)) this.#keys.set(id, k);
    }
    this.#ttlMs = options.ttlMs ?? 300_000;
    if (!(this.#ttlMs > 0)) throw new TypeError('requestState ttlMs must be a positive number of ms');
    this.#now = options.now ?? Date.now;
    this.#maxLength = options.maxLength ?? DEFAULT_MAX_REQUEST_STATE_LENGTH;
    this.#audience = options.audience;
    this.#principal = options.principal;
  }

  /**
   * Seals `data` (any JSON value) for `request`: a RequestContext (bound to its method, target,
   * principal) or a method name (bound to the method alone). `ttlMs` overrides the lifetime (ms);
   * `binding` adds a caller-chosen string (e.g. a digest of the salient arguments). Throws
   * TypeError when the token would exceed `maxLength`.
   */
  seal(request: string | RequestIdentity, data: unknown, options: { ttlMs?: number; binding?: string } = {}): string {
    const payload: Record<string, unknown> = { m: typeof request === 'string' ? request : request.method };
    if (typeof request !== 'string') {
      const target = requestTarget(request.method, request.params);
      if (target !== undefined) payload.t = target;
      const principal = this.#principal?.(request);
      if (principal !== undefined) payload.p = principal;
    }
    if (this.#audience !== undefined) payload.a = this.#audience;
    payload.e = this.#now() + (options.ttlMs ?? this.#ttlMs);
    if (options.binding !== undefined) payload.b = options.binding;
    payload.d = data ?? null;
    const body = utf8Bytes(JSON.stringify(payload));
    const token = toBase64Url(concatBytes(this.#keyId, mac(this.#key, body), body));
    if (token.length > this.#maxLength)
      throw new TypeError(`sealed requestState has ${token.length} characters, more than maxLength ${this.#maxLength}`);
    return token;
  }

  /**
   * Returns the data sealed into `state`. Throws {@link InvalidRequestStateError} (-32602) when
   * it is longer than `maxLength` (`too_large`), not base64url of a token of a known key
   * (`malformed`, `tampered`), has lapsed (`expired`), was sealed by a server of another
   * `audience` (`audience`), for another method (`method`), for a request with another target
   * (`request`), for another principal (`principal`) or another `binding` (`binding`). With a
   * method name for `request`, only the method, audience, expiry and binding are checked.
   */
  verifyRequestState<T = unknown>(
    state: string,
    request: string | RequestIdentity,
    options: { binding?: string } = {},
  ): T {
    const method = typeof request === 'string' ? request : request.method;
    const fault = (reason: RequestStateFault) => new InvalidRequestStateError(reason, method);
    if (typeof state !== 'string') throw fault('malformed');
    if (state.length > this.#maxLength) throw fault('too_large');
    if (!/^[A-Za-z0-9_-]+$/.test(state)) throw fault('malformed');
    let raw: Uint8Array;
    try {
      raw = fromBase64Url(state);
    } catch {
      throw fault('malformed');
    }
    if (raw.length <= KEY_ID_BYTES + MAC_BYTES) throw fault('malformed');
    const key = this.#keys.get(toHex(raw.subarray(0, KEY_ID_BYTES)));
    const body = raw.subarray(KEY_ID_BYTES + MAC_BYTES);
    // an unknown key id still costs one MAC, so the answer does not tell key ids apart by time
    const expected = mac(key ?? this.#key, body);
    if (!equalBytes(raw.subarray(KEY_ID_BYTES, KEY_ID_BYTES + MAC_BYTES), expected) || !key) throw fault('tampered');
    let payload: { m?: unknown; t?: unknown; p?: unknown; a?: unknown; e?: unknown; b?: unknown; d?: unknown };
    try {
      payload = JSON.parse(utf8Text(body));
    } catch {
      throw fault('malformed');
    }
    if (typeof payload !== 'object' || payload === null) throw fault('malformed');
    if (typeof payload.e !== 'number' || this.#now() >= payload.e) throw fault('expired');
    if (payload.a !== this.#audience) throw fault('audience');
    if (payload.m !== method) throw fault('method');
    if (typeof request !== 'string') {
      if (payload.t !== requestTarget(request.method, request.params)) throw fault('request');
      if (payload.p !== this.#principal?.(request)) throw fault('principal');
    } else if (payload.t !== undefined || payload.p !== undefined) {
      // a state sealed for a request is only ever verified against a request
      throw fault('request');
    }
    if (payload.b !== options.binding) throw fault('binding');
    return payload.d as T;
  }

  /**
   * The data of the `requestState` a request carries (`request.params.requestState`), verified
   * against that request as {@link verifyRequestState} does; undefined when the request carries
   * none. A `requestState` that is not a string is `malformed`.
   */
  open<T = unknown>(request: RequestIdentity, options: { binding?: string } = {}): T | undefined {
    const params = request.params;
    if (!params || !Object.hasOwn(params, 'requestState') || params.requestState === undefined) return undefined;
    return this.verifyRequestState<T>(params.requestState as string, request, options);
  }
}

type NativeHmac = (algorithm: 'sha256', key: Uint8Array) => { update(data: Uint8Array): { digest(): Uint8Array } };
/**
 * node:crypto's `createHmac` where the platform lends it without an import
 * (`process.getBuiltinModule`: Node ≥ 20.16, Bun, Deno), so that bundles for browsers and
 * workers never name `node:crypto`; undefined elsewhere.
 */
const nativeHmac: NativeHmac | undefined = (() => {
  try {
    const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
    return typeof get === 'function'
      ? (get('node:crypto') as { createHmac?: NativeHmac } | undefined)?.createHmac
      : undefined;
  } catch {
    return undefined;
  }
})();
/** HMAC-SHA256 (RFC 2104), synchronous: native where there is one, else @noble/hashes (the same bytes). */
const mac = (key: Uint8Array, body: Uint8Array): Uint8Array =>
  nativeHmac ? nativeHmac('sha256', key).update(body).digest() : hmac(sha256, key, body);
/** A key's id: the first bytes of a MAC of a fixed label (reveals nothing of the key). */
const keyIdOf = (key: Uint8Array): Uint8Array =>
  mac(key, utf8Bytes('mcpgen requestState key id')).subarray(0, KEY_ID_BYTES);
