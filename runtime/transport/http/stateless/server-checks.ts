/**
 * The checks of a stateless endpoint (./server.ts) before a request reaches the engine, in the
 * order they run: the head (Host, Origin, method, Accept, Content-Type, Content-Length:
 * ../io/guard.ts), the token, then, once the body is parsed, its shape, the `_meta` protocol
 * version, the request metadata headers (./headers.ts), whether the version is served (400,
 * UNSUPPORTED_PROTOCOL_VERSION with `data: { supported, requested }`, draft basic/versioning)
 * and the client capabilities. Each failed check is a {@link Refusal}: the status and JSON-RPC error the
 * module doc of ./server.ts lists.
 */
import type { Authorizer } from '../../../auth/types.js';
import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { answerId, isObject } from '../../../jsonrpc/message.js';
import { ownValue } from '../../../jsonrpc/own.js';
import type { AuthInfo, JSONRPCMessage, MessageInfo } from '../../../jsonrpc/transport.js';
import { protocolVersions } from '../../../protocol/versions.js';
import type { ResponseSink } from '../io/exchange.js';
import { type HttpRefusal, RequestGuard } from '../io/guard.js';
import { JSON_HEADERS } from '../io/node.js';
import { tooDeepOr } from '../../../codec/json-depth.js';
import { type Authorized, authorizedBy } from '../io/types.js';
import { decodeBody, shapeProblem } from '../session/server-routing.js';
import { checkRequestHeaders, PROTOCOL_VERSION_META, type ParamHeader, paramHeaders } from './headers.js';
import type { StatelessHttpOptions } from './server-options.js';
import { errorJson } from './server-transport.js';

type Id = string | number | bigint;
type Obj = Record<string, unknown>;
type Headers = Readonly<Record<string, string | undefined>>;

/** Why a request is refused before it reaches the engine: status, JSON-RPC error, extra headers. */
export interface Refusal {
  status: number;
  id: Id | null;
  error: RpcError;
  headers?: Record<string, string>;
}
export const refuse = (status: number, id: Id | null, error: RpcError, headers?: Record<string, string>): Refusal => ({
  status,
  id,
  error,
  headers,
});

/** A body that is not UTF-8 JSON, and why, as the -32700 answer says it (the same words as the session endpoint's). */
export class ParseFailed {
  constructor(readonly reason: string) {}
}
const EMPTY: Obj = {};
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

/** The checks of one endpoint, made from its options (see the module doc). */
export class StatelessChecks {
  /** The protocol versions served. */
  readonly versions: readonly string[];
  /** The served revision's code for an unsupported version. */
  readonly unsupported: number;
  /** Host, Origin, method, Accept, Content-Type and Content-Length, before the body. */
  readonly guard: RequestGuard;
  readonly #schemas = new WeakMap<object, ParamHeader[] | Error>();

  constructor(private readonly options: StatelessHttpOptions) {
    this.versions = options.supportedVersions ?? protocolVersions(options.tables ?? []);
    // the first table naming one: -32022 in 2026-07-28, -32602 in the 2026-05-14 draft; without tables, 2026-07-28's
    this.unsupported =
      (options.tables ?? [])
        .map((t) => ownValue(t.errorCodes, 'UNSUPPORTED_PROTOCOL_VERSION'))
        .find((c) => typeof c === 'number') ?? ErrorCode.UnsupportedProtocolVersion;
    this.guard = new RequestGuard(options, { serves: (m) => m === 'POST', allow: 'POST' });
  }

  /** The head checks' refusal, if any. */
  head(method: string, h: Headers, localPort: number | undefined): Refusal | undefined {
    const r = this.guard.check(method, h, localPort);
    return r && asRefusal(r);
  }

  /** The refusal of a body that went over the limit or did not arrive in time. */
  body(failure: Parameters<RequestGuard['bodyRefusal']>[0]): Refusal {
    return asRefusal(this.guard.bodyRefusal(failure));
  }

  /**
   * The token check of an endpoint that has one (`authorize` set: the caller asks only then):
   * the principal or the refusal. A front that checked the token already (the dual-era front)
   * left its verdict on the request (`front`, see ../io/types.ts AUTHORIZED): taken as it is,
   * one check per request.
   */
  async authorized(
    method: string,
    headers: Headers,
    url: string | undefined,
    front: Authorized | undefined,
  ): Promise<AuthInfo | Refusal> {
    const authorize = this.options.authorize as Authorizer;
    const checked = authorizedBy(authorize, front);
    if (checked) return checked;
    const verdict = await authorize({ method: method.toUpperCase(), headers, url });
    if ('auth' in verdict) return verdict.auth;
    const r = verdict.refusal;
    return refuse(r.status, null, new RpcError(r.code, r.message), r.headers);
  }

  /**
   * Decodes and parses the body (integer ids beyond 2^53 exact); a {@link ParseFailed} when it
   * is not UTF-8 JSON ("body is not JSON") or nests deeper than the bound ("JSON nested deeper
   * than 512 levels", not parsed).
   */
  parse(body: Uint8Array): unknown {
    try {
      return decodeBody(body);
    } catch (e) {
      return new ParseFailed(tooDeepOr(e, 'body is not JSON'));
    }
  }

  /**
   * The checks after the body was parsed. Returns the refusal, or the MessageInfo to deliver
   * the message with (`protocolVersion` set for requests).
   */
  message(message: unknown, headers: Headers): Refusal | MessageInfo {
    if (message instanceof ParseFailed)
      return refuse(400, null, new RpcError(ErrorCode.ParseError, `Parse error: ${message.reason}`));
    const problem =
      shapeProblem(message) ?? ((message as Obj).method === undefined ? 'clients send no responses' : undefined);
    // a malformed notification is accepted and ignored, never 4xx'd (field case 004): 202
    if (problem && isObject(message) && message.method !== undefined && !('id' in message))
      return refuse(202, null, new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${problem}`));
    // the request's id when it can be read (JSON-RPC 2.0 §5), else none
    if (problem)
      return refuse(
        400,
        answerId(message) ?? null,
        new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${problem}`),
      );
    const msg = message as JSONRPCMessage;
    const id = (msg.id as Id | undefined) ?? null;
    if (id === null) return { headers };
    // by-position params: a valid JSON-RPC request that MCP cannot take, -32602 (as stdio answers it)
    if (Array.isArray(msg.params))
      return refuse(400, id, new RpcError(ErrorCode.InvalidParams, 'Invalid params: params must be an object'));
    const params = (msg.params ?? EMPTY) as Obj;
    const meta = params._meta as Obj | undefined;
    const version = meta?.[PROTOCOL_VERSION_META];
    const { versions, unsupported } = this;
    // (an initialize carrying the modern `_meta` is just an unknown method: 404 -32601)
    if (msg.method === 'initialize' && typeof version !== 'string') {
      // versioning, Backward Compatibility: name the supported versions to a legacy client
      return refuse(
        400,
        id,
        new RpcError(
          unsupported,
          `Unsupported protocol version: this endpoint serves ${versions.join(', ')} (no initialize)`,
          { supported: [...versions], requested: params.protocolVersion },
        ),
      );
    }
    if (typeof version !== 'string') {
      // a version the header requests and the endpoint does not serve is answered -32022 (the
      // transport page's MUST), even when `_meta` lacks the version
      const requested = version === undefined ? headers['mcp-protocol-version'] : undefined;
      return refuse(
        400,
        id,
        requested !== undefined && !versions.includes(requested)
          ? this.#unsupportedVersion(requested)
          : new RpcError(ErrorCode.InvalidParams, `Invalid params: missing _meta["${PROTOCOL_VERSION_META}"]`),
      );
    }
    const tool = msg.method === 'tools/call' ? this.#toolHeaders(params.name) : undefined;
    const mismatch = checkRequestHeaders(msg, headers, tool);
    if (mismatch) return refuse(400, id, mismatch);
    // the version before the capabilities (draft basic/versioning): the shape of `_meta` is that
    // of a version served, and a client of another version learns the supported ones (case 011 B h:
    // a header that does not match the body is a HeaderMismatch first)
    if (!versions.includes(version)) return refuse(400, id, this.#unsupportedVersion(version));
    const capabilities = meta![CLIENT_CAPABILITIES_META];
    if (typeof capabilities !== 'object' || capabilities === null) {
      return refuse(
        400,
        id,
        new RpcError(ErrorCode.InvalidParams, `Invalid params: missing _meta["${CLIENT_CAPABILITIES_META}"]`),
      );
    }
    return { headers, protocolVersion: version };
  }

  /** UnsupportedProtocolVersion (-32022, or the draft table's code) naming the versions served. */
  #unsupportedVersion(requested: string): RpcError {
    return new RpcError(this.unsupported, 'Unsupported protocol version', { supported: [...this.versions], requested });
  }

  /** The annotations of a tool's schema (cached per schema object); an invalid schema has none checked. */
  #toolHeaders(name: unknown): ParamHeader[] | undefined {
    const { toolSchema, onError } = this.options;
    if (typeof name !== 'string' || !toolSchema) return undefined;
    const schema = toolSchema(name);
    if (typeof schema !== 'object' || schema === null) return undefined;
    let got = this.#schemas.get(schema);
    if (!got) {
      try {
        got = paramHeaders(schema);
      } catch (e) {
        got = e as Error;
        onError?.(new Error(`tool ${name}: ${got.message}`));
      }
      this.#schemas.set(schema, got);
    }
    return got instanceof Error ? undefined : got;
  }
}

function asRefusal(r: HttpRefusal): Refusal {
  const message = r.status === 405 ? `${r.message} (this endpoint takes POST only)` : r.message;
  return refuse(r.status, null, new RpcError(r.code, message), r.headers);
}

export const isRefusal = (x: Refusal | MessageInfo): x is Refusal => 'error' in x;

/** Answers `r` on `sink` as a JSON-RPC error response. */
export function failSink(sink: ResponseSink, r: Refusal): void {
  // 202: a malformed notification, accepted with no body (field case 004)
  if (r.status === 202) return sink.respond(202, {});
  sink.respond(r.status, r.headers ? { ...JSON_HEADERS, ...r.headers } : JSON_HEADERS, errorJson(r.id, r.error));
}
