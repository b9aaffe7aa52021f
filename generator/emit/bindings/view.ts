/**
 * The view parts every binding emitter shares (../go, ../python, ../rust, ../java, ../csharp,
 * ../kotlin): what a language writes for each kind of schema type is a table (a `TypeTable`,
 * a `DecoderTable`), walked here once; the method maps, the revision literals and the union
 * membership are built here from a few per-language words.
 *
 * Pure and deterministic: the same shape and tables give the same strings.
 */
import type { ProtocolModel, RequestDef } from '../../model.js';
import { INPUT_REQUIRED_RESULT_TYPE } from '../../overrides.js';
import { resultTypeFact } from '../../runtime-facts.js';
import { byCodeUnit } from '../../util.js';
import { MCPGEN_VERSION } from '../common.js';
import { methodTables, type Decl, type Shape, type StructDecl, type Ty, type UnionDecl } from '../shape.js';

/** A `ref` type with its declaration. */
export type RefTy = Extract<Ty, { k: 'ref' }>;

/**
 * What a language writes as the type of a value of each kind. `ref` gets the declaration the
 * name resolves to; `json` is the type of any JSON value (`null`, `any`, a mix of primitives);
 * a constant takes the type of its value's kind.
 */
export interface TypeTable {
  ref(t: RefTy, decl: Decl): string;
  string: string;
  integer: string;
  number: string;
  boolean: string;
  json: string;
  array(items: string, itemTy: Ty): string;
  map(values: string, valueTy: Ty): string;
}

/** The type a table gives `t` (the schema's declarations from `shape`). */
export function typeExpr(table: TypeTable, shape: Shape, t: Ty): string {
  switch (t.k) {
    case 'ref':
      return table.ref(t, shape.byName.get(t.name)!);
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return table[t.k];
    case 'const':
      return table[constKind(t.value)];
    case 'null':
    case 'any':
    case 'prims':
      return table.json;
    case 'array':
      return table.array(typeExpr(table, shape, t.items), t.items);
    case 'map':
      return table.map(typeExpr(table, shape, t.values), t.values);
  }
}

/** The JSON kind of a constant: `string`, `boolean`, `integer` (a whole number) or `number`. */
export function constKind(v: string | number | boolean): 'string' | 'boolean' | 'integer' | 'number' {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  return Number.isInteger(v) ? 'integer' : 'number';
}

/**
 * What a language writes as the decoder of a value of each kind (a function value or an
 * expression the language calls with the JSON value and its path). A JSON `null` is decoded as
 * the primitive kinds `["null"]`.
 */
export interface DecoderTable {
  ref(t: RefTy, decl: Decl): string;
  string: string;
  /** A string that must be one of `values`. */
  oneOf(values: readonly string[]): string;
  integer: string;
  number: string;
  /** `base` (the integer or number decoder) checked against bounds, at least one of them set. */
  range(base: string, kind: 'integer' | 'number', min: number | undefined, max: number | undefined): string;
  boolean: string;
  any: string;
  constant(value: string | number | boolean): string;
  prims(kinds: readonly string[]): string;
  list(items: string, itemTy: Ty, maxItems: number | undefined): string;
  map(values: string, valueTy: Ty): string;
}

/** The decoder a table gives `t` (the schema's declarations from `shape`). */
export function decoderExpr(table: DecoderTable, shape: Shape, t: Ty): string {
  switch (t.k) {
    case 'ref':
      return table.ref(t, shape.byName.get(t.name)!);
    case 'string':
      return t.enum ? table.oneOf(t.enum) : table.string;
    case 'integer':
    case 'number':
      if (t.min === undefined && t.max === undefined) return table[t.k];
      return table.range(table[t.k], t.k, t.min, t.max);
    case 'boolean':
      return table.boolean;
    case 'null':
      return table.prims(['null']);
    case 'const':
      return table.constant(t.value);
    case 'any':
      return table.any;
    case 'prims':
      return table.prims(t.kinds);
    case 'array':
      return table.list(decoderExpr(table, shape, t.items), t.items, t.maxItems);
    case 'map':
      return table.map(decoderExpr(table, shape, t.values), t.values);
  }
}

/** A plain-language name of a type, for docs: `TextContent`, `a list of a String`, `a JSON string or null`. */
export function describeTy(t: Ty, scalar: (t: Ty) => string): string {
  if (t.k === 'ref') return t.name;
  if (t.k === 'array') return `a list of ${describeTy(t.items, scalar)}`;
  if (t.k === 'map') return `a map of ${describeTy(t.values, scalar)}`;
  if (t.k === 'prims') return `a JSON ${t.kinds.join(' or ')}`;
  return `a ${scalar(t)}`;
}

/** Whether `t` names an object type of the shape. */
export function isStructRef(shape: Shape, t: Ty): t is RefTy {
  return t.k === 'ref' && shape.byName.get(t.name)?.kind === 'struct';
}

/** The declared type of a message's `params` member, if it has one. */
export function paramsTy(shape: Shape, messageType: string): Ty | null {
  const d = shape.byName.get(messageType);
  if (d?.kind !== 'struct') return null;
  const f = d.fields.find((x) => x.json === 'params');
  return f ? f.ty : null;
}

/** Whether a member is stored (a required constant is not: the type says it). */
export function storedField(f: StructDecl['fields'][number]): boolean {
  return !(f.required && f.ty.k === 'const');
}

/**
 * The language name of every declaration: the schema's name, with `_` appended where the
 * generated files already use it unqualified (`taken`).
 */
export function declNames(shape: Shape, taken: ReadonlySet<string>): Map<string, string> {
  return new Map(shape.decls.map((d) => [d.name, taken.has(d.name) ? `${d.name}_` : d.name]));
}

/**
 * Which unions each object type is a variant of (`memberOf`: struct → union names in the
 * language, sorted), and a wrapper class name for each variant of a union that is not an
 * object type (`wrappers`: union → variant index → name given by `wrapperName`).
 */
export function unionMembership(
  shape: Shape,
  langName: (name: string) => string,
  wrapperName: (union: UnionDecl, index: number) => string,
): { wrappers: Map<string, Map<number, string>>; memberOf: Map<string, string[]> } {
  const wrappers = new Map<string, Map<number, string>>();
  const memberOf = new Map<string, string[]>();
  for (const d of shape.decls) {
    if (d.kind !== 'union') continue;
    const m = new Map<number, string>();
    d.variants.forEach((v, i) => {
      if (isStructRef(shape, v)) {
        const list = memberOf.get(v.name) ?? [];
        if (!list.includes(langName(d.name))) list.push(langName(d.name));
        memberOf.set(v.name, list);
      } else m.set(i, wrapperName(d, i));
    });
    wrappers.set(d.name, m);
  }
  for (const list of memberOf.values()) list.sort(byCodeUnit);
  return { wrappers, memberOf };
}

/** The revision's constants as literals of the language (`quote` writes a string literal). */
export function revisionLiterals(model: ProtocolModel, quote: (s: string) => string) {
  return {
    revision: quote(model.revision),
    protocolVersion: quote(model.protocolVersion),
    jsonrpcVersion: quote(String(model.constants.JSONRPC_VERSION ?? '2.0')),
    lifecycle: quote(model.lifecycle),
    mcpgenVersion: quote(MCPGEN_VERSION),
  };
}

/** The revision's JSON-RPC error codes, sorted by name. */
export function errorCodeNames(model: ProtocolModel): string[] {
  return Object.keys(model.errorCodes).sort(byCodeUnit);
}

/** What a language says in its method maps. */
export interface MethodMapWords {
  /** A string literal. */
  quote(s: string): string;
  /** The language name of a request or notification type. */
  typeName(schemaName: string): string;
  /** The map names: client requests, server requests, client notifications, server notifications. */
  names: readonly [string, string, string, string];
  /** Their docs, in the same order (default: `The requests a client sends`, …). */
  docs?: readonly [string, string, string, string];
  /** The decoder of a message's params (`t`: the declared type of its `params` member, if any). */
  paramsDecoder(t: Ty | null): string;
  /**
   * The decoder of the result of a request: the result type and the others it may answer with,
   * and when there are others, how they are told apart (null: by best match).
   */
  resultDecoder(resultType: string, alts: readonly string[], tags: ResultTags | null): string;
}

/**
 * How a result that may be of several types names its type: the value of `member` in a result
 * of `[resultType, ...altResultTypes][i]` is `values[i]`.
 */
export interface ResultTags {
  member: string;
  values: string[];
}

/**
 * The `resultType` each result type of `r` carries, when every one has the member (2026-07-28,
 * draft: basic/index, ResultType): its constant where the schema gives one, else `"complete"`
 * for the request's own result type and `"input_required"` for InputRequiredResult. Null when
 * `r` has no other result types or one of them has no such value (2025-11-25's CreateTaskResult):
 * those are decoded by best match. A decoder takes the type the member names and refuses the
 * result where that type refuses it; a result with another `resultType` (an extension's, such as
 * the tasks extension's `"task"`) or none is decoded by best match. (Best match alone let any
 * object with a string `resultType` through as an InputRequiredResult, whose other members are
 * all optional: `{ "resultType": "complete", "content": [{ "type": "txt" }] }` among them.)
 */
export function resultTags(
  model: ProtocolModel,
  shape: Shape,
  r: Pick<RequestDef, 'resultType' | 'altResultTypes'>,
): ResultTags | null {
  if (!r.altResultTypes.length) return null;
  const member = 'resultType';
  const values: string[] = [];
  for (const t of [r.resultType, ...r.altResultTypes]) {
    const d = shape.byName.get(t);
    const f = d?.kind === 'struct' ? d.fields.find((x) => x.json === member) : undefined;
    if (!f) return null;
    const value =
      f.ty.k === 'const' && typeof f.ty.value === 'string'
        ? f.ty.value
        : !resultTypeFact(model)
          ? undefined
          : t === r.resultType
            ? 'complete'
            : t === INPUT_REQUIRED_RESULT_TYPE
              ? 'input_required'
              : undefined;
    if (value === undefined || values.includes(value)) return null;
    values.push(value);
  }
  return { member, values };
}

const DEFAULT_MAP_DOCS = [
  'The requests a client sends',
  'The requests a server sends',
  'The notifications a client sends',
  'The notifications a server sends',
] as const;

/**
 * The four method maps of a revision (client and server requests, client and server
 * notifications), each entry with its method, direction, type names, params and result
 * decoders, capability path and whether params are required, as literals of the language
 * (`paramsRequired` and the `has…`/`one…` flags are booleans for the templates to test).
 */
export function methodMaps(model: ProtocolModel, shape: Shape, words: MethodMapWords) {
  const { requests, notifications } = methodTables(model);
  const q = words.quote;
  const docs = words.docs ?? DEFAULT_MAP_DOCS;
  const params = (messageType: string) => words.paramsDecoder(paramsTy(shape, messageType));
  const requestMap = (i: number, direction: string) => ({
    name: words.names[i],
    doc: docs[i],
    requests: requests
      .filter((r) => r.direction === direction)
      .map((r) => ({
        method: q(r.method),
        direction: q(r.direction),
        requestType: words.typeName(r.requestType),
        requestTypeName: q(r.requestType),
        resultTypeName: q(r.resultType),
        altResultTypes: r.altResultTypes.map(q).join(', '),
        capability: (r.capability ?? []).map(q).join(', '),
        hasCapability: r.capability !== undefined && r.capability !== null,
        oneCapability: r.capability?.length === 1,
        oneAltResult: r.altResultTypes.length === 1,
        paramsRequired: r.paramsRequired,
        paramsDecoder: params(r.requestType),
        resultDecoder: words.resultDecoder(r.resultType, r.altResultTypes, resultTags(model, shape, r)),
      })),
  });
  const notificationMap = (i: number, direction: string) => ({
    name: words.names[i],
    doc: docs[i],
    notifications: notifications
      .filter((n) => n.direction === direction)
      .map((n) => ({
        method: q(n.method),
        direction: q(n.direction),
        notificationType: words.typeName(n.notificationType),
        notificationTypeName: q(n.notificationType),
        paramsRequired: n.paramsRequired,
        paramsDecoder: params(n.notificationType),
      })),
  });
  return {
    requestMaps: [requestMap(0, 'clientToServer'), requestMap(1, 'serverToClient')],
    notificationMaps: [notificationMap(2, 'clientToServer'), notificationMap(3, 'serverToClient')],
    hasAltResults: requests.some((r) => r.altResultTypes.length > 0),
    /** Whether a result is decoded by its `resultType` (`resultTags`). */
    hasResultTags: requests.some((r) => resultTags(model, shape, r) !== null),
  };
}

/** The map names in constant case (Java, Kotlin, Rust, Python). */
export const CONSTANT_MAP_NAMES = [
  'CLIENT_REQUESTS',
  'SERVER_REQUESTS',
  'CLIENT_NOTIFICATIONS',
  'SERVER_NOTIFICATIONS',
] as const;

/** The map names in Pascal case (C#, Go). */
export const PASCAL_MAP_NAMES = [
  'ClientRequests',
  'ServerRequests',
  'ClientNotifications',
  'ServerNotifications',
] as const;

/**
 * What a language writes to turn a value of each kind into a JSON value (`e`: the expression
 * of the value). Aliases are followed; any JSON value (`null`, `any`, mixed primitives) is
 * written as it is; a constant is written as its value's kind; a list or map element is bound
 * to `x<depth>` and written by `inner`.
 */
export interface WriterTable {
  ref(e: string): string;
  string(e: string): string;
  integer(e: string): string;
  number(e: string): string;
  boolean(e: string): string;
  array(e: string, x: string, inner: string, itemTy: Ty): string;
  map(e: string, x: string, inner: string, valueTy: Ty): string;
}

/** The expression a table gives for writing `e`, a value of type `t`, as JSON. */
export function writerExpr(table: WriterTable, shape: Shape, t: Ty, e: string, depth = 0): string {
  switch (t.k) {
    case 'ref': {
      const d = shape.byName.get(t.name)!;
      return d.kind === 'alias' ? writerExpr(table, shape, d.ty, e, depth) : table.ref(e);
    }
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return table[t.k](e);
    case 'const':
      return table[constKind(t.value)](e);
    case 'null':
    case 'any':
    case 'prims':
      return e;
    case 'array': {
      const x = `x${depth}`;
      return table.array(e, x, writerExpr(table, shape, t.items, x, depth + 1), t.items);
    }
    case 'map': {
      const x = `x${depth}`;
      return table.map(e, x, writerExpr(table, shape, t.values, x, depth + 1), t.values);
    }
  }
}
