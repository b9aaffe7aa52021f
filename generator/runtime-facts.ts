/**
 * What the runtime (runtime/) needs to know of a revision beyond its methods, derived from the
 * model, and what it cannot do without: a revision `generate` accepts is one the runtime can
 * serve end to end, client and server, or `generate` refuses it naming the facts it lacks
 * ({@link runtimeGaps}). Pure: no I/O.
 *
 * The facts, each derived from the schema (never from a list of known revisions):
 * - error codes a revision gives by an error type and not by a constant
 *   ({@link errorCodesOfErrorTypes}: `UnsupportedProtocolVersionError` whose `error.code` is
 *   `typeof INVALID_PARAMS` gives `UNSUPPORTED_PROTOCOL_VERSION: -32602`);
 * - whether results carry `resultType` ({@link resultTypeFact}: the `Result` type has the member,
 *   so a result without one is answered as `complete`, handshake revisions included);
 * - where `server/discover` answers with the server's Implementation ({@link discoverServerInfo}:
 *   a `serverInfo` member of `DiscoverResult`, or `_meta["io.modelcontextprotocol/serverInfo"]`).
 */
import type { JsonSchema, ProtocolModel } from './model.js';

/** The key prefix of the stateless revisions' `_meta` members (the runtime's `META`, runtime/session/lifecycle/strategy.ts). */
const META = 'io.modelcontextprotocol/';

type Defs = Readonly<Record<string, { schema: JsonSchema } | JsonSchema>>;

const schemaOf = (defs: Defs, name: string): JsonSchema | undefined => {
  if (!Object.hasOwn(defs, name)) return undefined;
  const d = defs[name] as { schema?: unknown };
  return (typeof d.schema === 'object' && d.schema !== null ? d.schema : d) as JsonSchema;
};

const refName = (s: unknown): string | undefined => {
  const r = (s as JsonSchema | undefined)?.$ref;
  return typeof r === 'string' && r.startsWith('#/$defs/') ? r.slice('#/$defs/'.length) : undefined;
};

/** Follows `$ref`s to the schema object they name (at most 32 hops). */
function deref(defs: Defs, s: unknown): JsonSchema | undefined {
  let cur = s as JsonSchema | undefined;
  for (let i = 0; cur && i < 32; i++) {
    const n = refName(cur);
    if (n === undefined) return cur;
    cur = schemaOf(defs, n);
  }
  return cur;
}

/**
 * Every schema of member `name` of `s`: its own `properties`, and those of its `allOf` parts
 * (references followed), in that order. Empty when none defines it.
 */
function membersOf(defs: Defs, s: unknown, name: string, depth = 0): JsonSchema[] {
  const node = deref(defs, s);
  if (!node || depth > 16) return [];
  const props = node.properties as Record<string, JsonSchema> | undefined;
  const own = props && Object.hasOwn(props, name) ? [props[name]] : [];
  return [...own, ...((node.allOf as unknown[] | undefined) ?? []).flatMap((p) => membersOf(defs, p, name, depth + 1))];
}

/** The first schema of member `name` of `s` ({@link membersOf}), if any. */
const memberOf = (defs: Defs, s: unknown, name: string): JsonSchema | undefined => membersOf(defs, s, name)[0];

/** The constant integer code of an error object schema (`code: { const: -32602 }`), if it has one. */
function constCode(defs: Defs, errorObject: unknown): number | undefined {
  for (const member of membersOf(defs, errorObject, 'code')) {
    const code = deref(defs, member);
    if (typeof code?.const === 'number' && Number.isInteger(code.const)) return code.const;
  }
  return undefined;
}

/** `UnsupportedProtocolVersionError` → `UNSUPPORTED_PROTOCOL_VERSION`, `URLElicitationRequiredError` → `URL_ELICITATION_REQUIRED`. */
export function errorConstantName(typeName: string): string {
  return typeName
    .replace(/Error$/, '')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase();
}

/**
 * The error codes a revision defines by an error type (`XxxError` whose error object, or whose
 * JSON-RPC `error` member, has a constant `code`) under the constant name of that type
 * ({@link errorConstantName}), for the types whose name no exported constant has already (as
 * `XXX` or `XXX_ERROR`: `InternalError` is `INTERNAL_ERROR`). E.g. the 2026-05-14 draft answers
 * an unsupported protocol version with `UnsupportedProtocolVersionError`, code `typeof
 * INVALID_PARAMS`, and exports no `UNSUPPORTED_PROTOCOL_VERSION`: this gives
 * `{ UNSUPPORTED_PROTOCOL_VERSION: -32602 }`. Sorted by name.
 */
export function errorCodesOfErrorTypes(defs: Defs, exported: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of Object.keys(defs).sort()) {
    if (!/^[A-Z][A-Za-z0-9]*Error$/.test(name) || name === 'Error') continue;
    const constant = errorConstantName(name);
    if (Object.hasOwn(exported, constant) || Object.hasOwn(exported, `${constant}_ERROR`)) continue;
    const schema = schemaOf(defs, name);
    const code = constCode(defs, memberOf(defs, schema, 'error') ?? schema);
    if (code !== undefined) out[constant] = code;
  }
  return out;
}

/** Whether the revision's results carry `resultType` (its `Result` type has the member). */
export function resultTypeFact(model: ProtocolModel): boolean {
  return memberOf(model.types, schemaOf(model.types, 'Result'), 'resultType') !== undefined;
}

/**
 * Where `server/discover` gives the server's Implementation: `result` when `DiscoverResult` has a
 * `serverInfo` member (the 2026-05-14 draft), else `_meta` (`_meta["io.modelcontextprotocol/serverInfo"]`,
 * 2026-07-28). Undefined when the revision has no `DiscoverResult`.
 */
export function discoverServerInfo(model: ProtocolModel): 'result' | '_meta' | undefined {
  const result = schemaOf(model.types, 'DiscoverResult');
  if (!result) return undefined;
  return memberOf(model.types, result, 'serverInfo') ? 'result' : '_meta';
}

/**
 * What the runtime needs of `model` and does not find, one sentence each (empty: the runtime can
 * serve the revision, client and server):
 * - a lifecycle: `initialize` and `notifications/initialized` (handshake) or `server/discover`
 *   (stateless);
 * - stateless: the request `_meta` members the runtime sends and checks (protocol version,
 *   client capabilities) and the code of an unsupported protocol version
 *   (`UNSUPPORTED_PROTOCOL_VERSION`, a constant or an `UnsupportedProtocolVersionError` type);
 *   with input-required results, the code of a missing client capability
 *   (`MISSING_REQUIRED_CLIENT_CAPABILITY`);
 * - results with `resultType`: a `ResultType` that admits `complete`.
 */
export function runtimeGaps(model: ProtocolModel): string[] {
  const gaps: string[] = [];
  const has = (list: ReadonlyArray<{ direction: string; method: string }>, method: string) =>
    list.some((r) => r.direction === 'clientToServer' && r.method === method);
  const code = (name: string, type: string) => {
    if (!Object.hasOwn(model.errorCodes, name))
      gaps.push(`error code ${name} (neither an exported constant nor a ${type} type with a constant code)`);
  };
  if (model.lifecycle === 'handshake') {
    if (!has(model.notifications, 'notifications/initialized'))
      gaps.push('the notifications/initialized notification of the handshake (the revision has initialize)');
  } else {
    if (!has(model.requests, 'server/discover'))
      gaps.push('a lifecycle: neither an initialize request (handshake) nor a server/discover request (stateless)');
    const meta = schemaOf(model.types, 'RequestMetaObject');
    for (const key of ['protocolVersion', 'clientCapabilities']) {
      if (!memberOf(model.types, meta, `${META}${key}`))
        gaps.push(`the request _meta member "${META}${key}" (RequestMetaObject) that stateless requests carry`);
    }
    code('UNSUPPORTED_PROTOCOL_VERSION', 'UnsupportedProtocolVersionError');
    if (model.requests.some((r) => r.inputRequired))
      code('MISSING_REQUIRED_CLIENT_CAPABILITY', 'MissingRequiredClientCapabilityError');
  }
  if (resultTypeFact(model)) {
    const t = deref(model.types, memberOf(model.types, schemaOf(model.types, 'Result'), 'resultType'));
    if (Array.isArray(t?.enum) && !t.enum.includes('complete'))
      gaps.push(`a resultType "complete" (ResultType is ${t.enum.map((v) => JSON.stringify(v)).join(' | ')})`);
  }
  return gaps;
}
