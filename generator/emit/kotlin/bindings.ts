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
import { MCPGEN_VERSION, preamble } from '../common.js';
import { quoted, snake, uniqueNames } from '../naming.js';
import {
  buildShape,
  resolveAlias,
  type Decl,
  type Field,
  type Shape,
  type StructDecl,
  type Ty,
  type UnionDecl,
} from '../shape.js';
import { templateFolder } from '../template.js';
import { camel, jvmArtifactName, jvmPackageName, jvmTypes, mcpJsonDecoders } from '../bindings/jvm.js';
import {
  CONSTANT_MAP_NAMES,
  declNames,
  decoderExpr,
  describeTy,
  errorCodeNames,
  methodMaps,
  revisionLiterals,
  storedField,
  typeExpr,
  unionMembership,
  writerExpr,
  type DecoderTable,
  type ResultTags,
  type TypeTable,
  type WriterTable,
} from '../bindings/view.js';

/** The Kotlin and kotlinx.serialization versions the build file names (the ones the tests compile with). */
export const KOTLIN_VERSION = '2.1.21';
export const KOTLINX_SERIALIZATION_VERSION = '1.8.1';

/** Package of a revision: `dev.mcpgen.bindings.mcp20251125`. */
export const kotlinPackageName: (revision: string) => string = jvmPackageName;

/** Gradle project name of a revision: `mcp-types-2025-11-25`. */
export const kotlinProjectName: (revision: string) => string = jvmArtifactName;

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

class KotlinEmitter {
  readonly shape: Shape;
  readonly names: Map<string, string>;
  readonly wrappers: Map<string, Map<number, string>>;
  readonly memberOf: Map<string, string[]>;

  readonly types: TypeTable = jvmTypes('JsonElement', (t) => this.ktName(t.name));

  /** Decoder expressions of type `Decode<ktType(t)>`. */
  readonly decoders: DecoderTable = mcpJsonDecoders({
    quote: kq,
    constant: (v) => this.constLiteral(v),
    bound: doubleLiteral,
    ref: (t, d) => (d.kind === 'alias' ? `::decode${this.ktName(t.name)}` : `${this.ktName(t.name)}::decode`),
  });

  /** Expressions writing a non-null value as a JsonElement. */
  readonly writers: WriterTable = {
    ref: (e) => `${e}.writeJson()`,
    string: (e) => `McpJson.str(${e})`,
    integer: (e) => `McpJson.num(${e})`,
    number: (e) => `McpJson.num(${e})`,
    boolean: (e) => `McpJson.bool(${e})`,
    array: (e, x, inner) => `McpJson.arr(${e}) { ${x} -> ${inner} }`,
    map: (e, x, inner) => `McpJson.obj(${e}) { ${x} -> ${inner} }`,
  };

  constructor(readonly model: ProtocolModel) {
    this.shape = buildShape(model);
    this.names = declNames(this.shape, TAKEN_TYPE_NAMES);
    ({ wrappers: this.wrappers, memberOf: this.memberOf } = unionMembership(
      this.shape,
      (name) => this.ktName(name),
      (_union, i) => `Variant${i + 1}`,
    ));
  }

  ktName(name: string): string {
    return this.names.get(name) ?? name;
  }

  decl(name: string): Decl | undefined {
    return this.shape.byName.get(name);
  }

  ktType(t: Ty): string {
    return typeExpr(this.types, this.shape, t);
  }

  /** A decoder expression of type `Decode<ktType(t)>`. */
  dec(t: Ty): string {
    return decoderExpr(this.decoders, this.shape, t);
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
  write(t: Ty, e: string): string {
    return writerExpr(this.writers, this.shape, t, e);
  }

  constLiteral(v: string | number | boolean): string {
    if (typeof v === 'string') return kq(v);
    if (typeof v === 'boolean') return String(v);
    return Number.isInteger(v) ? `${v}L` : String(v);
  }

  stored(f: Field): boolean {
    return storedField(f);
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
    return describeTy(t, (x) => this.ktType(x));
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

  mcpView(): object {
    const m = this.model;
    const resultDecoder = (resultType: string, alts: readonly string[], tags: ResultTags | null) => {
      if (!alts.length) return this.dec({ k: 'ref', name: resultType });
      const all = [resultType, ...alts];
      const decoders = all.map((t) => this.dec({ k: 'ref', name: t })).join(', ');
      return tags
        ? `{ v, p -> McpJson.byResultType<McpMessage>(v, p, ${kq(all.join(' or '))}, ${kq(tags.member)}, arrayOf(${tags.values.map(kq).join(', ')}), ${decoders}) }`
        : `{ v, p -> McpJson.first<McpMessage>(v, p, ${kq(all.join(' or '))}, ${decoders}) }`;
    };
    const { requestMaps, notificationMaps } = methodMaps(m, this.shape, {
      quote: kq,
      typeName: (name) => this.ktName(name),
      names: CONSTANT_MAP_NAMES,
      paramsDecoder: (t) => (t === null ? 'null' : `{ v, p -> ${this.call(t, 'v', 'p')} }`),
      resultDecoder,
    });
    return {
      ...this.header(),
      revision: m.revision,
      protocolVersion: m.protocolVersion,
      literals: revisionLiterals(m, kq),
      errorCodes: errorCodeNames(m).map((c) => ({
        name: snake(c).toUpperCase(),
        quoted: kq(c),
        code: m.errorCodes[c],
      })),
      requestMaps,
      notificationMaps,
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
