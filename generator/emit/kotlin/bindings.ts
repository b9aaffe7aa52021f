// size: the Kotlin bindings emitter, not yet moved to templates as Go, Python and Rust were
/**
 * Kotlin bindings from the ProtocolModel: one Gradle project per revision (`build.gradle.kts`,
 * package `dev.mcpgen.bindings.mcp<rev digits>`), Kotlin 2.1 on the JVM, depending on
 * kotlinx-serialization-json only.
 *
 * - every object type is a class whose constructor takes the required members first (non-null:
 *   a message without one does not compile) and the optional ones as nullable parameters
 *   defaulting to `null` (absent); constant members (`type: "text"`) are read-only properties
 *   written from the type and checked on decode; members the schema does not declare are kept in
 *   `additionalProperties` (or refused where the schema closes the object); any JSON value is a
 *   `JsonElement`, so an explicit `null` stays `JsonNull`; numbers keep the text they were
 *   written with;
 * - every union is a sealed interface, as the official kotlin-sdk models its unions, implemented
 *   by its variant classes (a variant that is not an object type is a nested `VariantN` class
 *   holding `value`), so a `when` over it is exhaustive; decoding dispatches on the discriminant
 *   (`type`, `method`, the JSON-RPC message kind) or, without one, takes the variant that decodes
 *   with the fewest undeclared members; the types of the schema that are not objects are type
 *   aliases (`RequestId = JsonElement`);
 * - decoders validate and throw `DecodeException` (a `SerializationException`) naming the path;
 *   `toJson()` decodes what it wrote and throws `EncodeException` where the value would not
 *   decode; `@Serializable(with = …)` on every type makes `Json.decodeFromString<T>` and
 *   `Json.encodeToString` go through them;
 * - the method maps (`Mcp.CLIENT_REQUESTS`, `SERVER_REQUESTS`, `CLIENT_NOTIFICATIONS`,
 *   `SERVER_NOTIFICATIONS`), whose `decodeResult` decodes every result a method may answer with,
 *   error codes, protocol version and revision constants.
 */
import type { ProtocolModel } from '../../model.js';
import { byCodeUnit } from '../../util.js';
import { MCPGEN_VERSION, preamble } from '../common.js';
import { pascal, quoted, snake, uniqueNames } from '../naming.js';
import {
  buildShape,
  methodTables,
  resolveAlias,
  type Decl,
  type Field,
  type Shape,
  type StructDecl,
  type Ty,
  type UnionDecl,
} from '../shape.js';
import { templateFolder } from '../template.js';

/** The Kotlin and kotlinx.serialization versions the build file names (the ones the tests compile with). */
export const KOTLIN_VERSION = '2.1.21';
export const KOTLINX_SERIALIZATION_VERSION = '1.8.1';

/** Package of a revision: `dev.mcpgen.bindings.mcp20251125`. */
export function kotlinPackageName(revision: string): string {
  return `dev.mcpgen.bindings.mcp${revision.replace(/[^A-Za-z0-9]/g, '').toLowerCase()}`;
}

/** Gradle project name of a revision: `mcp-types-2025-11-25`. */
export function kotlinProjectName(revision: string): string {
  return `mcp-types-${revision.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}`;
}

const KEYWORDS = new Set(
  'as break class continue do else false for fun if in interface is null object package return super this throw true try typealias typeof val var when while'.split(
    ' ',
  ),
);

/** Names the generated files use unqualified: a schema type with one of these names gets a `_`. */
const TAKEN_TYPE_NAMES = new Set(
  'Any Unit Nothing String Long Int Double Boolean Number List Map Set MutableMap LinkedHashMap ArrayList Math Regex Serializable Deprecated Suppress JsonElement JsonObject JsonArray JsonPrimitive JsonNull JsonDecoder JsonEncoder Json KSerializer SerializationException SerialDescriptor Encoder IllegalStateException IllegalArgumentException McpJson McpMessage McpSerializer Decode DecodeException EncodeException Mcp RequestInfo NotificationInfo'.split(
    ' ',
  ),
);

/** Members every class has: a property with one of these names gets a `_`. */
const MEMBER_NAMES = new Set(
  'additionalProperties undeclaredCount toJson writeJson toString equals hashCode Serializer Companion'.split(' '),
);

/** A KDoc block: `*\/` and `/*` broken up, lines indented. */
function kdoc(lines: readonly string[], indent = ''): string {
  if (!lines.length) return '';
  const esc = lines.map((l) => l.replace(/\*\//g, '*&#47;').replace(/\/\*/g, '/&#42;'));
  return [`${indent}/**`, ...esc.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)), `${indent} */`].join('\n');
}

/** A Kotlin string literal: JSON's escapes, and `$` escaped (string templates). */
const kq = (s: string): string => quoted(s).replace(/\$/g, '\\$');

const doubleLiteral = (v: number | undefined): string =>
  v === undefined ? 'null' : Number.isInteger(v) ? `${v}.0` : String(v);

function camel(s: string): string {
  const p = pascal(s);
  return p.charAt(0).toLowerCase() + p.slice(1);
}

class KotlinEmitter {
  readonly shape: Shape;
  readonly names = new Map<string, string>();
  readonly wrappers = new Map<string, Map<number, string>>();
  readonly memberOf = new Map<string, string[]>();

  constructor(readonly model: ProtocolModel) {
    this.shape = buildShape(model);
    for (const d of this.shape.decls) this.names.set(d.name, TAKEN_TYPE_NAMES.has(d.name) ? `${d.name}_` : d.name);
    for (const d of this.shape.decls) {
      if (d.kind !== 'union') continue;
      const m = new Map<number, string>();
      d.variants.forEach((v, i) => {
        if (this.isStruct(v)) {
          const list = this.memberOf.get(v.name) ?? [];
          if (!list.includes(this.ktName(d.name))) list.push(this.ktName(d.name));
          this.memberOf.set(v.name, list);
        } else m.set(i, `Variant${i + 1}`);
      });
      this.wrappers.set(d.name, m);
    }
    for (const list of this.memberOf.values()) list.sort(byCodeUnit);
  }

  ktName(name: string): string {
    return this.names.get(name) ?? name;
  }

  decl(name: string): Decl | undefined {
    return this.shape.byName.get(name);
  }

  isStruct(t: Ty): t is { k: 'ref'; name: string } {
    return t.k === 'ref' && this.decl(t.name)?.kind === 'struct';
  }

  ktType(t: Ty): string {
    switch (t.k) {
      case 'ref':
        return this.ktName(t.name);
      case 'string':
        return 'String';
      case 'integer':
        return 'Long';
      case 'number':
        return 'Double';
      case 'boolean':
        return 'Boolean';
      case 'const':
        return typeof t.value === 'string'
          ? 'String'
          : typeof t.value === 'boolean'
            ? 'Boolean'
            : Number.isInteger(t.value)
              ? 'Long'
              : 'Double';
      case 'null':
      case 'any':
      case 'prims':
        return 'JsonElement';
      case 'array':
        return `List<${this.ktType(t.items)}>`;
      case 'map':
        return `Map<String, ${this.ktType(t.values)}>`;
    }
  }

  /** A decoder expression of type `Decode<ktType(t)>`. */
  dec(t: Ty): string {
    switch (t.k) {
      case 'ref': {
        const d = this.decl(t.name)!;
        return d.kind === 'alias' ? `::decode${this.ktName(t.name)}` : `${this.ktName(t.name)}::decode`;
      }
      case 'string':
        return t.enum ? `McpJson.oneOf(${t.enum.map(kq).join(', ')})` : 'McpJson.STRING';
      case 'integer':
      case 'number': {
        const base = t.k === 'integer' ? 'McpJson.INTEGER' : 'McpJson.NUMBER';
        if (t.min === undefined && t.max === undefined) return base;
        return `McpJson.range(${base}, ${doubleLiteral(t.min)}, ${doubleLiteral(t.max)})`;
      }
      case 'boolean':
        return 'McpJson.BOOLEAN';
      case 'null':
        return 'McpJson.prims("null")';
      case 'const':
        return `McpJson.constant(${this.constLiteral(t.value)})`;
      case 'any':
        return 'McpJson.ANY';
      case 'prims':
        return `McpJson.prims(${t.kinds.map(kq).join(', ')})`;
      case 'array':
        return t.maxItems !== undefined
          ? `McpJson.list(${this.dec(t.items)}, ${t.maxItems})`
          : `McpJson.list(${this.dec(t.items)})`;
      case 'map':
        return `McpJson.map(${this.dec(t.values)})`;
    }
  }

  call(t: Ty, value: string, path: string): string {
    if (t.k === 'ref') {
      const d = this.decl(t.name)!;
      return d.kind === 'alias'
        ? `decode${this.ktName(t.name)}(${value}, ${path})`
        : `${this.ktName(t.name)}.decode(${value}, ${path})`;
    }
    return `${this.dec(t)}(${value}, ${path})`;
  }

  /** An expression writing the non-null `e` (of ktType(t)) as a JsonElement. */
  write(t: Ty, e: string, depth = 0): string {
    switch (t.k) {
      case 'ref': {
        const d = this.decl(t.name)!;
        if (d.kind === 'alias') return this.write(d.ty, e, depth);
        return `${e}.writeJson()`;
      }
      case 'string':
        return `McpJson.str(${e})`;
      case 'integer':
      case 'number':
        return `McpJson.num(${e})`;
      case 'boolean':
        return `McpJson.bool(${e})`;
      case 'const':
        return typeof t.value === 'string'
          ? `McpJson.str(${e})`
          : typeof t.value === 'boolean'
            ? `McpJson.bool(${e})`
            : `McpJson.num(${e})`;
      case 'null':
      case 'any':
      case 'prims':
        return e;
      case 'array': {
        const x = `x${depth}`;
        return `McpJson.arr(${e}) { ${x} -> ${this.write(t.items, x, depth + 1)} }`;
      }
      case 'map': {
        const x = `x${depth}`;
        return `McpJson.obj(${e}) { ${x} -> ${this.write(t.values, x, depth + 1)} }`;
      }
    }
  }

  constLiteral(v: string | number | boolean): string {
    if (typeof v === 'string') return kq(v);
    if (typeof v === 'boolean') return String(v);
    return Number.isInteger(v) ? `${v}L` : String(v);
  }

  stored(f: Field): boolean {
    return !(f.required && f.ty.k === 'const');
  }

  deprecated(d: Decl): string {
    const line = d.doc.find((l) => l.startsWith('@deprecated'));
    if (line === undefined) return '';
    return kq(line.replace(/^@deprecated\s*/, '') || 'Deprecated by the specification.');
  }

  /** Doc lines without the `@deprecated` line (the annotation says it). */
  docOf(d: Decl, fallback: string): string[] {
    const lines = d.doc.filter((l) => !l.startsWith('@deprecated'));
    return lines.length ? lines : [fallback];
  }

  /** Doc lines after a first line: a blank line, then the doc without `@deprecated` (none when empty). */
  docBody(d: Decl): string[] {
    const lines = d.doc.filter((l) => !l.startsWith('@deprecated'));
    return lines.length ? ['', ...lines] : [];
  }

  describe(t: Ty): string {
    if (t.k === 'ref') return t.name;
    if (t.k === 'array') return `a list of ${this.describe(t.items)}`;
    if (t.k === 'map') return `a map of ${this.describe(t.values)}`;
    if (t.k === 'prims') return `a JSON ${t.kinds.join(' or ')}`;
    return `a ${this.ktType(t)}`;
  }

  structView(d: StructDecl): object {
    const name = this.ktName(d.name);
    const open = d.extra !== 'refuse';
    const props = uniqueNames(
      d.fields.map((f) => camel(f.json)),
      new Set([...KEYWORDS, ...MEMBER_NAMES]),
    );
    const stored = d.fields.map((f, i) => ({ f, i })).filter(({ f }) => this.stored(f));
    const memberDoc = (f: Field, note: string) => kdoc([...f.doc, ...(f.doc.length ? [''] : []), note], '    ');
    const params = [...stored.filter(({ f }) => f.required), ...stored.filter(({ f }) => !f.required)].map(
      ({ f, i }) => ({
        prop: props[i],
        type: f.required ? this.ktType(f.ty) : `${this.ktType(f.ty)}?`,
        required: f.required,
        doc: memberDoc(f, `JSON member \`${f.json}\`, ${f.required ? 'required' : 'optional (`null`: absent)'}.`),
      }),
    );
    let local = 0;
    const decodes = d.fields.map((f, i) => ({
      local: this.stored(f) ? `f${local++}` : '',
      prop: props[i],
      take: f.required ? 'required' : 'optional',
      key: kq(f.json),
      decoder: this.dec(f.ty),
    }));
    return {
      name,
      quotedName: kq(d.name),
      deprecated: this.deprecated(d),
      doc: kdoc(this.docOf(d, `The ${d.name} object.`)),
      implements: (this.memberOf.get(d.name) ?? []).map((u) => `, ${u}`).join(''),
      params,
      constants: d.fields
        .map((f, i) => ({ f, i }))
        .filter(({ f }) => !this.stored(f))
        .map(({ f, i }) => ({
          prop: props[i],
          type: this.ktType(f.ty),
          literal: f.ty.k === 'const' ? this.constLiteral(f.ty.value) : '',
          doc: kdoc(
            [`JSON member \`${f.json}\`, always ${f.ty.k === 'const' ? JSON.stringify(f.ty.value) : ''}.`],
            '    ',
          ),
        })),
      open,
      extraType: d.extra === 'refuse' ? '' : this.ktType(d.extra),
      extraWrite: d.extra === 'refuse' ? '' : this.write(d.extra, 'v'),
      extraDecoder: d.extra === 'refuse' ? '' : this.dec(d.extra),
      fields: d.fields.map((f, i) => ({
        key: kq(f.json),
        prop: props[i],
        required: f.required,
        write: this.stored(f)
          ? this.write(f.ty, f.required ? props[i] : 'it')
          : this.write(f.ty, f.ty.k === 'const' ? this.constLiteral(f.ty.value) : ''),
      })),
      known: d.fields.map((f) => kq(f.json)).join(', '),
      decodes,
      ctorArgs: decodes
        .filter((x) => x.local)
        .map((x) => `${x.prop} = ${x.local}`)
        .join(', '),
    };
  }

  unionView(d: UnionDecl): object {
    const name = this.ktName(d.name);
    const wrappers = this.wrappers.get(d.name)!;
    const tag = d.tag;
    const tags = tag.kind === 'const' ? tag.values : tag.kind === 'jsonrpc' ? tag.kinds : [];
    const variants = d.variants.map((v, i) => ({
      type: wrappers.has(i) ? `${name}.${wrappers.get(i)}` : this.ktName((v as { name: string }).name),
      tag: tags.length ? kq(tags[i]) : '',
    }));
    return {
      name,
      quotedName: kq(d.name),
      deprecated: this.deprecated(d),
      doc: kdoc([`One of: ${variants.map((v) => v.type).join(', ')}.`, ...this.docBody(d)]),
      wrappers: d.variants
        .map((v, i) => ({ v, i }))
        .filter(({ i }) => wrappers.has(i))
        .map(({ v, i }) => ({
          number: i + 1,
          wrapper: wrappers.get(i)!,
          quotedWrapper: kq(`${d.name}.${wrappers.get(i)}`),
          what: this.describe(v).replace(/\*\//g, ''),
          valueType: this.ktType(v),
          valueDecode: this.call(v, 'value', 'path'),
          valueWrite: this.write(v, 'value'),
        })),
      variants,
      tagged: tag.kind !== 'none',
      tagCall:
        tag.kind === 'const'
          ? `McpJson.tag(value, path, ${kq(tag.member)}, ${tags.map(kq).join(', ')})`
          : `McpJson.jsonrpcKind(value, path, ${tags.map(kq).join(', ')})`,
      how:
        tag.kind === 'const'
          ? `by its member \`${tag.member}\``
          : tag.kind === 'jsonrpc'
            ? 'by its JSON-RPC message kind'
            : 'the variant that decodes with the fewest undeclared members',
    };
  }

  aliasView(d: Decl & { kind: 'alias' }): object {
    return {
      name: this.ktName(d.name),
      deprecated: this.deprecated(d),
      doc: kdoc([`${d.name}: ${this.describe(resolveAlias(this.shape, d.ty))}.`, ...this.docBody(d)]),
      type: this.ktType(d.ty),
      decodeCall: this.call(d.ty, 'value', 'path'),
    };
  }

  header() {
    return { preamble: preamble(this.model), package: kotlinPackageName(this.model.revision) };
  }

  paramsTy(messageType: string): Ty | null {
    const d = this.decl(messageType);
    if (d?.kind !== 'struct') return null;
    const f = d.fields.find((x) => x.json === 'params');
    return f ? f.ty : null;
  }

  mcpView(): object {
    const m = this.model;
    const { requests, notifications } = methodTables(m);
    const paramsDecoder = (messageType: string) => {
      const t = this.paramsTy(messageType);
      return t === null ? 'null' : `{ v, p -> ${this.call(t, 'v', 'p')} }`;
    };
    const resultDecoder = (resultType: string, alts: readonly string[]) => {
      if (!alts.length) return this.dec({ k: 'ref', name: resultType });
      const all = [resultType, ...alts];
      return `{ v, p -> McpJson.first<McpMessage>(v, p, ${kq(all.join(' or '))}, ${all.map((t) => this.dec({ k: 'ref', name: t })).join(', ')}) }`;
    };
    const requestMap = (name: string, doc: string, direction: string) => ({
      name,
      doc,
      requests: requests
        .filter((r) => r.direction === direction)
        .map((r) => ({
          method: kq(r.method),
          direction: kq(r.direction),
          requestType: this.ktName(r.requestType),
          requestTypeName: kq(r.requestType),
          resultTypeName: kq(r.resultType),
          altResultTypes: r.altResultTypes.map(kq).join(', '),
          capability: (r.capability ?? []).map(kq).join(', '),
          paramsRequired: String(r.paramsRequired),
          paramsDecoder: paramsDecoder(r.requestType),
          resultDecoder: resultDecoder(r.resultType, r.altResultTypes),
        })),
    });
    const notificationMap = (name: string, doc: string, direction: string) => ({
      name,
      doc,
      notifications: notifications
        .filter((n) => n.direction === direction)
        .map((n) => ({
          method: kq(n.method),
          direction: kq(n.direction),
          notificationType: this.ktName(n.notificationType),
          notificationTypeName: kq(n.notificationType),
          paramsRequired: String(n.paramsRequired),
          paramsDecoder: paramsDecoder(n.notificationType),
        })),
    });
    const codes = Object.keys(m.errorCodes).sort(byCodeUnit);
    return {
      ...this.header(),
      revision: m.revision,
      protocolVersion: m.protocolVersion,
      literals: {
        revision: kq(m.revision),
        protocolVersion: kq(m.protocolVersion),
        jsonrpcVersion: kq(String(m.constants.JSONRPC_VERSION ?? '2.0')),
        lifecycle: kq(m.lifecycle),
        mcpgenVersion: kq(MCPGEN_VERSION),
      },
      errorCodes: codes.map((c) => ({ name: snake(c).toUpperCase(), quoted: kq(c), code: m.errorCodes[c] })),
      requestMaps: [
        requestMap('CLIENT_REQUESTS', 'The requests a client sends', 'clientToServer'),
        requestMap('SERVER_REQUESTS', 'The requests a server sends', 'serverToClient'),
      ],
      notificationMaps: [
        notificationMap('CLIENT_NOTIFICATIONS', 'The notifications a client sends', 'clientToServer'),
        notificationMap('SERVER_NOTIFICATIONS', 'The notifications a server sends', 'serverToClient'),
      ],
      decls: this.shape.decls.map((d) => ({
        quotedName: kq(d.name),
        call: this.call({ k: 'ref', name: d.name }, 'v', 'p'),
      })),
    };
  }

  typesView(): object {
    return {
      ...this.header(),
      decls: this.shape.decls.map((d) => ({
        struct: d.kind === 'struct' ? this.structView(d) : null,
        union: d.kind === 'union' ? this.unionView(d) : null,
        alias: d.kind === 'alias' ? this.aliasView(d) : null,
      })),
    };
  }
}

const templates = templateFolder(new URL('./templates/bindings/', import.meta.url));

/** Files of the Kotlin project, relative to generated/<rev>/. */
export function emitKotlin(model: ProtocolModel): Map<string, string> {
  const e = new KotlinEmitter(model);
  const dir = `bindings/kotlin/src/main/kotlin/${kotlinPackageName(model.revision).replace(/\./g, '/')}`;
  const header = e.header();
  return new Map([
    [
      'bindings/kotlin/build.gradle.kts',
      templates.render('build.gradle.kts', {
        preamble: preamble(model),
        kotlinVersion: KOTLIN_VERSION,
        serializationVersion: KOTLINX_SERIALIZATION_VERSION,
        mcpgenVersion: MCPGEN_VERSION,
        revision: model.revision,
      }),
    ],
    [
      'bindings/kotlin/settings.gradle.kts',
      templates.render('settings.gradle.kts', {
        preamble: preamble(model),
        artifactId: kotlinProjectName(model.revision),
      }),
    ],
    [`${dir}/Mcp.kt`, templates.render('Mcp.kt', e.mcpView())],
    [`${dir}/McpJson.kt`, templates.render('McpJson.kt', header)],
    [`${dir}/Types.kt`, templates.render('Types.kt', e.typesView())],
  ]);
}
