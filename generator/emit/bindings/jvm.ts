/**
 * What the two JVM binding emitters (../java, ../kotlin) share: the package and artifact names
 * of a revision, member names in camel case, and the tables of types and `McpJson` decoders,
 * whose names the Java and Kotlin `McpJson` helpers have in common. The languages differ in the
 * JSON value type, string literals, number literals and how a declaration's decoder is named.
 */
import { pascal } from '../naming.js';
import type { DecoderTable, RefTy, TypeTable } from './view.js';
import type { Decl } from '../shape.js';

/** Package of a revision: `dev.mcpgen.bindings.mcp20251125`, `dev.mcpgen.bindings.mcpdraft`. */
export function jvmPackageName(revision: string): string {
  return `dev.mcpgen.bindings.mcp${revision.replace(/[^A-Za-z0-9]/g, '').toLowerCase()}`;
}

/** Maven artifact (Gradle project) name of a revision: `mcp-types-2025-11-25`. */
export function jvmArtifactName(revision: string): string {
  return `mcp-types-${revision.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}`;
}

/** `listChanged`, `_meta`, `io.modelcontextprotocol/logLevel` → `listChanged`, `meta`, `ioModelcontextprotocolLogLevel`. */
export function camel(s: string): string {
  const p = pascal(s);
  return p.charAt(0).toLowerCase() + p.slice(1);
}

/** The boxed JVM types (`String`, `Long`, `Double`, `Boolean`, `List<…>`, `Map<String, …>`). */
export function jvmTypes(json: string, ref: (t: RefTy, decl: Decl) => string): TypeTable {
  return {
    ref,
    string: 'String',
    integer: 'Long',
    number: 'Double',
    boolean: 'Boolean',
    json,
    array: (items) => `List<${items}>`,
    map: (values) => `Map<String, ${values}>`,
  };
}

/** What a JVM language says in its `McpJson` decoders. */
export interface McpJsonWords {
  /** A string literal. */
  quote(s: string): string;
  /** The literal of a constant. */
  constant(v: string | number | boolean): string;
  /** A `Double?` literal of a bound (`null` when absent). */
  bound(v: number | undefined): string;
  /** The decoder of a declaration. */
  ref(t: RefTy, decl: Decl): string;
}

/** The `McpJson` decoder expressions (`McpJson.STRING`, `McpJson.list(…)`, …). */
export function mcpJsonDecoders(words: McpJsonWords): DecoderTable {
  const list = (values: readonly string[]) => values.map(words.quote).join(', ');
  return {
    ref: words.ref,
    string: 'McpJson.STRING',
    oneOf: (values) => `McpJson.oneOf(${list(values)})`,
    integer: 'McpJson.INTEGER',
    number: 'McpJson.NUMBER',
    range: (base, _kind, min, max) => `McpJson.range(${base}, ${words.bound(min)}, ${words.bound(max)})`,
    boolean: 'McpJson.BOOLEAN',
    any: 'McpJson.ANY',
    constant: (v) => `McpJson.constant(${words.constant(v)})`,
    prims: (kinds) => `McpJson.prims(${list(kinds)})`,
    list: (items, _ty, maxItems) =>
      maxItems !== undefined ? `McpJson.list(${items}, ${maxItems})` : `McpJson.list(${items})`,
    map: (values) => `McpJson.map(${values})`,
  };
}
