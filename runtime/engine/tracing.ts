/**
 * OpenTelemetry spans of JSON-RPC requests, both sides, through `@opentelemetry/api` alone: a
 * no-op unless the application installs an OpenTelemetry SDK (a tracer provider, a propagator;
 * a context manager to nest spans across `await`).
 *
 * - A request sent gets a span of kind CLIENT, child of the active context; the configured
 *   propagator writes its context (W3C `traceparent`, `tracestate`, `baggage`) into the
 *   request's `params._meta`, where the draft and 2026-07-28 revisions reserve those keys
 *   (`basic/index.mdx`, "OpenTelemetry trace context") and the official SDKs carry them. Keys
 *   the caller put in `_meta` itself are kept. With no SDK nothing is added.
 * - A request received gets a span of kind SERVER whose parent is the context its
 *   `params._meta` carries, so one call is one trace across processes whatever the transport
 *   (stdio, Streamable HTTP, stateless HTTP); the handler runs with that span active, so its
 *   own spans and the requests it sends are its children.
 *
 * Names and attributes follow the OpenTelemetry semantic conventions for MCP: span name
 * `{mcp.method.name} {target}` (target: the tool or prompt name), `mcp.method.name`,
 * `jsonrpc.request.id` (a string), `mcp.protocol.version`, `mcp.session.id` (HTTP sessions),
 * `gen_ai.tool.name` with `gen_ai.operation.name` `execute_tool`, `gen_ai.prompt.name`,
 * `mcp.resource.uri`. An error response sets `error.type` and `rpc.response.status_code` to
 * its JSON-RPC code and the span status to ERROR with its message; a tool result with
 * `isError: true` sets `error.type` `tool_error`; other failures (timeout, closed connection,
 * cancellation) set `error.type` to the error's name.
 */
import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  ProxyTracerProvider,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { isObject, type JSONRPCRequest } from '../jsonrpc/message.js';
import type { MessageInfo } from '../jsonrpc/transport.js';

type Meta = Record<string, unknown>;

const TRACER_NAME = '@mcpgen/runtime';

const setter: TextMapSetter<Meta> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};
const getter: TextMapGetter<Meta> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const v = Object.hasOwn(carrier, key) ? carrier[key] : undefined;
    return typeof v === 'string' ? v : undefined;
  },
};

/** The tracer of the global provider, fetched again when the global provider is replaced. */
let cached: { provider: TracerProvider; tracer: Tracer } | undefined;
function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (cached?.provider !== provider) cached = { provider, tracer: provider.getTracer(TRACER_NAME) };
  return cached.tracer;
}

/** The provider the API gives while no SDK is installed. */
const NO_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Where `@opentelemetry/api` 1.x keeps every global an application registers (tracer provider,
 * propagator, context manager): a property of `globalThis` that exists only once something was
 * registered.
 */
const API_GLOBALS = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether a request may have a span to record or a context to carry: false until an SDK or a
 * propagator was registered with the OpenTelemetry API, decided then by one property read (the
 * engine calls the span functions only when it is true). Once something was registered, false
 * again while neither a tracer provider nor a propagator is set (no SDK installed).
 */
export function tracing(): boolean {
  if ((globalThis as Record<symbol, unknown>)[API_GLOBALS] === undefined) return false;
  const provider = trace.getTracerProvider();
  return !(
    provider instanceof ProxyTracerProvider &&
    provider.getDelegate() === NO_PROVIDER &&
    propagation.fields().length === 0
  );
}

/** The span's name and attributes for a request (semantic conventions for MCP). */
function describe(
  method: string,
  id: unknown,
  params: unknown,
  protocolVersion: string | undefined,
  sessionId: string | undefined,
): { name: string; attributes: Attributes } {
  const attributes: Attributes = { 'mcp.method.name': method };
  let name = method;
  if (typeof id === 'string' || typeof id === 'number') attributes['jsonrpc.request.id'] = String(id);
  if (protocolVersion !== undefined) attributes['mcp.protocol.version'] = protocolVersion;
  if (sessionId !== undefined) attributes['mcp.session.id'] = sessionId;
  if (isObject(params)) {
    const target = Object.hasOwn(params, 'name') ? params.name : undefined;
    if (typeof target === 'string') {
      if (method === 'tools/call') {
        attributes['gen_ai.tool.name'] = target;
        attributes['gen_ai.operation.name'] = 'execute_tool';
        name = `${method} ${target}`;
      } else if (method === 'prompts/get') {
        attributes['gen_ai.prompt.name'] = target;
        name = `${method} ${target}`;
      }
    }
    const uri = Object.hasOwn(params, 'uri') ? params.uri : undefined;
    if (typeof uri === 'string' && method.startsWith('resources/')) attributes['mcp.resource.uri'] = uri;
  }
  return { name, attributes };
}

/**
 * Starts the client span of an outbound request, once {@link tracing} said there may be one.
 * Returns the span when it records (undefined otherwise: nothing to end) and the params to send:
 * a copy of `params` whose `_meta` also has the propagated trace context, or `params` itself
 * when the propagator wrote nothing (no SDK).
 */
export function startClientSpan<P extends Meta | undefined>(
  method: string,
  id: unknown,
  params: P,
  protocolVersion: string | undefined,
): { span: Span | undefined; params: P } {
  const { name, attributes } = describe(method, id, params, protocolVersion, undefined);
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes });
  const carrier: Meta = {};
  // a span with no valid context (no SDK) has no trace context to give; baggage still may
  const active = context.active();
  propagation.inject(isSpanContextValid(span.spanContext()) ? trace.setSpan(active, span) : active, carrier, setter);
  const recording = span.isRecording() ? span : undefined;
  if (Object.keys(carrier).length === 0) return { span: recording, params };
  const meta = params?._meta;
  // the caller's own keys win (a caller that sets traceparent itself keeps it)
  return { span: recording, params: { ...params, _meta: { ...carrier, ...(isObject(meta) ? meta : {}) } } as P };
}

/**
 * Starts the server span of inbound request `req`, once {@link tracing} said there may be one:
 * a child of the trace context its `params._meta` carries; `info` (the transport's facts: request
 * id, protocol version, session id) before `req`'s id and `protocolVersion` (the served table's). Returns the span when it records, and
 * the context to run the handler in (undefined when there is no valid span context: no SDK and
 * no incoming trace).
 */
export function startServerSpan(
  req: JSONRPCRequest,
  info: MessageInfo | undefined,
  protocolVersion: string | undefined,
): { span: Span | undefined; context: Context | undefined } {
  const { method, params } = req;
  const active = context.active();
  const meta = isObject(params) ? params._meta : undefined;
  const parent = isObject(meta) ? propagation.extract(active, meta, getter) : active;
  const { name, attributes } = describe(
    method,
    info?.requestId ?? req.id,
    params,
    info?.protocolVersion ?? protocolVersion,
    info?.sessionId,
  );
  const span = tracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return {
    span: span.isRecording() ? span : undefined,
    context: isSpanContextValid(span.spanContext()) ? trace.setSpan(parent, span) : undefined,
  };
}

/**
 * Ends a span with the outcome of its request: `error` a JSON-RPC error object or a thrown
 * error (RpcError and its kind: `code`, `message`), else `result` (a tool result with
 * `isError: true` is an error of type `tool_error`).
 */
export function endSpan(span: Span, error?: unknown, result?: unknown): void {
  if (error !== undefined) {
    const e =
      isObject(error) || error instanceof Error ? (error as { code?: unknown; message?: unknown; name?: unknown }) : {};
    const message = typeof e.message === 'string' ? e.message : String(error);
    if (typeof e.code === 'number') {
      span.setAttribute('error.type', String(e.code));
      span.setAttribute('rpc.response.status_code', String(e.code));
    } else span.setAttribute('error.type', typeof e.name === 'string' ? e.name : '_OTHER');
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  } else if (isObject(result) && result.isError === true) {
    span.setAttribute('error.type', 'tool_error');
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** Records the server span of a request refused before its handler ran (unknown method, invalid params). */
export function traceRefusal(
  req: JSONRPCRequest,
  info: MessageInfo | undefined,
  protocolVersion: string | undefined,
  error: unknown,
): void {
  if (!tracing()) return;
  const { span } = startServerSpan(req, info, protocolVersion);
  if (span) endSpan(span, error);
}

/** `fn(...args)` run with `ctx` active. */
export function withContext<A extends unknown[], T>(ctx: Context, fn: (...args: A) => T, ...args: A): T {
  return context.with(ctx, fn, undefined, ...args);
}
