/**
 * Request metadata headers of Streamable HTTP in the stateless revisions (draft
 * basic/transports/streamable-http, "Request Metadata"): the body fields a client mirrors into
 * headers and a server checks against the body.
 *
 * - `MCP-Protocol-Version`: `params._meta["io.modelcontextprotocol/protocolVersion"]`.
 * - `Mcp-Method`: `method`, on every request.
 * - `Mcp-Name`: `params.name` (`tools/call`, `prompts/get`), `params.uri` (`resources/read`) or
 *   `params.taskId` (`tasks/get`, `tasks/update`, `tasks/cancel` of the tasks extension, SEP-2663).
 * - `Mcp-Param-{Name}`: a `tools/call` argument whose property in the tool's `inputSchema`
 *   carries `"x-mcp-header": "{Name}"` ("Custom Headers from Tool Parameters").
 *
 * Values outside visible ASCII plus inner spaces (and values that look like the sentinel) travel
 * as `=?base64?{UTF-8 as Base64}?=` ("Value Encoding").
 */
import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { describeValue, lookupTable } from '../../../jsonrpc/own.js';
import { fromBase64, toBase64, utf8Bytes } from '../../../codec/bytes.js';

type Obj = Record<string, unknown>;

/** The `_meta` key of a stateless request's protocol version (2026-07-28 basic/index). */
export const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
/**
 * Methods whose requests carry `Mcp-Name`, and the params field mirrored (`taskId`: SEP-2663,
 * Routing Headers). No prototype: any other method, `toString` or `__proto__` included, has none.
 */
export const NAME_FIELD: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = lookupTable({
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
});

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const SAFE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Stateless, so one serves every decode (fatal: bad UTF-8 makes the value malformed). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Encodes a header value, using the Base64 sentinel when the plain form is not safe. */
export function encodeHeaderValue(value: string): string {
  if (SAFE.test(value) && !SENTINEL.test(value)) return value;
  return `=?base64?${toBase64(utf8Bytes(value))}?=`;
}

/**
 * Decodes a header value (sentinel form or plain). Returns undefined when it contains
 * characters a header may not carry or the Base64 inside the sentinel is malformed.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!/^[\t\x20-\x7e]*$/.test(value)) return undefined;
  const m = SENTINEL.exec(value);
  if (!m) return value;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(m[1]) || m[1].length % 4 !== 0) return undefined;
  try {
    return utf8.decode(fromBase64(m[1]));
  } catch {
    return undefined;
  }
}

/** One `x-mcp-header` annotation: the header suffix and the property path in the arguments. */
export interface ParamHeader {
  /** `{Name}` of `Mcp-Param-{Name}`, as the schema spells it. */
  name: string;
  /** Chain of `properties` keys from the arguments object to the value. */
  path: string[];
  type: 'string' | 'integer' | 'boolean';
}

function countAnnotations(schema: unknown): number {
  if (Array.isArray(schema)) return schema.reduce((n: number, s) => n + countAnnotations(s), 0);
  if (typeof schema !== 'object' || schema === null) return 0;
  let n = Object.hasOwn(schema, 'x-mcp-header') ? 1 : 0;
  for (const v of Object.values(schema)) n += countAnnotations(v);
  return n;
}

/**
 * The `x-mcp-header` annotations of an `inputSchema`, reached through `properties` chains
 * only. Throws TypeError naming the reason when an annotation breaks a rule of the Schema
 * Extension section (not a token, duplicate, non-primitive type, reached another way).
 */
export function paramHeaders(inputSchema: unknown): ParamHeader[] {
  const out: ParamHeader[] = [];
  const walk = (schema: unknown, path: string[]): void => {
    const props = (schema as Obj | undefined)?.properties;
    if (typeof props !== 'object' || props === null) return;
    for (const [key, sub] of Object.entries(props as Obj)) {
      if (typeof sub !== 'object' || sub === null) continue;
      const s = sub as Obj;
      if (Object.hasOwn(s, 'x-mcp-header')) {
        const name = s['x-mcp-header'];
        if (typeof name !== 'string' || !TOKEN.test(name))
          throw new TypeError(`x-mcp-header of ${[...path, key].join('.')} is not a header token`);
        if (s.type !== 'string' && s.type !== 'integer' && s.type !== 'boolean') {
          throw new TypeError(
            `x-mcp-header ${name} is on a property of type ${JSON.stringify(s.type)} (string, integer or boolean only)`,
          );
        }
        if (out.some((h) => h.name.toLowerCase() === name.toLowerCase()))
          throw new TypeError(`x-mcp-header ${name} is not unique`);
        out.push({ name, path: [...path, key], type: s.type });
      }
      walk(s, [...path, key]);
    }
  };
  walk(inputSchema, []);
  if (countAnnotations(inputSchema) !== out.length)
    throw new TypeError('x-mcp-header is only allowed on properties reached through properties keys');
  return out;
}

/** The argument at `path`, through own properties only (an inherited `__proto__` or `constructor` is absent). */
function valueAt(args: unknown, path: string[]): unknown {
  let v: unknown = args;
  for (const k of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, k)) return undefined;
    v = (v as Obj)[k];
  }
  return v;
}

/**
 * The header text of an argument value: a string as it is, a finite number or a boolean as
 * JSON writes it. Undefined for anything else (absent, null, objects, arrays: no header is
 * sent, and a header present for such a body value does not match it).
 */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') return JSON.stringify(v);
  return undefined;
}

const NO_PARAM_HEADERS: readonly ParamHeader[] = [];

/**
 * The metadata headers of one outbound request (names as the page spells them). `tools`
 * gives the annotations of a tool by name (from `tools/list`); without it no `Mcp-Param-*`.
 */
export function requestHeaders(
  message: Obj,
  tools?: (name: string) => ParamHeader[] | undefined,
): Record<string, string> {
  const h: Record<string, string> = {};
  const params = (message.params ?? {}) as Obj;
  const version = (params._meta as Obj | undefined)?.[PROTOCOL_VERSION_META];
  if (typeof version === 'string') h['MCP-Protocol-Version'] = version;
  if (typeof message.method !== 'string') return h;
  h['Mcp-Method'] = encodeHeaderValue(message.method);
  const field = NAME_FIELD[message.method];
  if (field && typeof params[field] === 'string') h['Mcp-Name'] = encodeHeaderValue(params[field]);
  if (message.method === 'tools/call' && typeof params.name === 'string') {
    for (const p of tools?.(params.name) ?? NO_PARAM_HEADERS) {
      const text = textOf(valueAt(params.arguments, p.path));
      if (text !== undefined) h[`Mcp-Param-${p.name}`] = encodeHeaderValue(text);
    }
  }
  return h;
}

const mismatch = (message: string): RpcError => new RpcError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`);

/**
 * Server Validation of the standard and custom headers of one request (`headers` lower-case).
 * Returns the -32020 HeaderMismatch error to answer with (HTTP 400), or undefined when they
 * agree with the body. The protocol version is compared as sent; whether it is supported is
 * the caller's question. `tool` gives the annotations of the called tool.
 */
export function checkRequestHeaders(
  message: Obj,
  headers: Readonly<Record<string, string | undefined>>,
  tool?: ParamHeader[],
): RpcError | undefined {
  const params = (message.params ?? {}) as Obj;
  const version = (params._meta as Obj | undefined)?.[PROTOCOL_VERSION_META];
  const hv = headers['mcp-protocol-version'];
  if (hv === undefined) return mismatch('MCP-Protocol-Version header is missing');
  if (hv !== version)
    return mismatch(`MCP-Protocol-Version header value '${hv}' does not match body value ${describeValue(version)}`);
  const method = message.method as string;
  const hm = headers['mcp-method'] === undefined ? undefined : decodeHeaderValue(headers['mcp-method']);
  if (hm === undefined) return mismatch('Mcp-Method header is missing or malformed');
  if (hm !== method) return mismatch(`Mcp-Method header value '${hm}' does not match body value '${method}'`);
  const field = NAME_FIELD[method];
  if (field) {
    const raw = headers['mcp-name'];
    const hn = raw === undefined ? undefined : decodeHeaderValue(raw);
    if (hn === undefined) return mismatch('Mcp-Name header is missing or malformed');
    const body = Object.hasOwn(params, field) ? params[field] : undefined;
    if (hn !== body) return mismatch(`Mcp-Name header value '${hn}' does not match body value ${describeValue(body)}`);
  }
  for (const p of tool ?? []) {
    const body = valueAt(params.arguments, p.path);
    const raw = headers[`mcp-param-${p.name.toLowerCase()}`];
    if (raw === undefined) {
      if (body === undefined || body === null) continue;
      return mismatch(`Mcp-Param-${p.name} header is missing`);
    }
    const text = decodeHeaderValue(raw);
    if (text === undefined) return mismatch(`Mcp-Param-${p.name} header contains invalid characters`);
    if (body === undefined || body === null)
      return mismatch(`Mcp-Param-${p.name} header is present but the argument is not`);
    const same =
      p.type === 'integer' && typeof body === 'number'
        ? text.trim() !== '' && Number(text) === body
        : text === textOf(body);
    if (!same)
      return mismatch(`Mcp-Param-${p.name} header value '${text}' does not match body value ${describeValue(body)}`);
  }
  return undefined;
}
