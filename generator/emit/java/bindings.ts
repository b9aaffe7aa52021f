/**
 * Java bindings from the ProtocolModel: one Maven package per revision (`pom.xml`, package
 * `dev.mcpgen.bindings.mcp<rev digits>`), Java 17, depending on jackson-databind only.
 *
 * - every object type is a final class with getters and setters; required members that are
 *   constants (`type: "text"`, `jsonrpc: "2.0"`) are static constants written from the type and
 *   checked on decode; optional members are `null` when absent; members the schema does not
 *   declare are kept in `getAdditionalProperties()` (or refused where the schema closes the
 *   object); any JSON value is a Jackson `JsonNode`, so an explicit `null` stays a `NullNode`;
 * - every union is a sealed interface, as the official java-sdk models its unions, permitting
 *   its variant classes (a variant that is not an object type is a nested record `VariantN`);
 *   the variants of a tagged union are listed with `@JsonSubTypes` under their tag value;
 *   decoding dispatches on the discriminant (`type`, `method`, the JSON-RPC message kind) or,
 *   without one, takes the variant that decodes with the fewest undeclared members;
 * - decoders validate and throw `DecodeException` naming the path
 *   (`params.content[2].data: required`); `toJson()` decodes what it wrote and throws
 *   `EncodeException` where the value would not decode; an `ObjectMapper` reads and writes
 *   every message through them (`@JsonDeserialize`/`@JsonSerialize`);
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
  type DecoderTable,
  type ResultTags,
  type TypeTable,
} from '../bindings/view.js';

/** The jackson-databind version the package file names (the one the tests build against). */
export const JACKSON_VERSION = '2.14.0';

/** Package of a revision: `dev.mcpgen.bindings.mcp20251125`, `dev.mcpgen.bindings.mcpdraft`. */
export const javaPackageName: (revision: string) => string = jvmPackageName;

/** Maven artifact of a revision: `mcp-types-2025-11-25`. */
export const javaArtifactId: (revision: string) => string = jvmArtifactName;

const KEYWORDS = new Set(
  'abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while true false null var yield record sealed permits'.split(
    ' ',
  ),
);

/**
 * Type names the generated files use unqualified (java.lang, the imports, the package's own
 * classes): a schema type with one of these names gets a `_` appended.
 */
const TAKEN_TYPE_NAMES = new Set(
  'Object String Long Integer Double Boolean Number Override Record Class Math Iterable SafeVarargs FunctionalInterface IllegalStateException IllegalArgumentException RuntimeException ArithmeticException Set List Map LinkedHashMap ArrayList Collections Iterator JsonNode ObjectNode ArrayNode JsonSubTypes JsonSerialize JsonDeserialize McpJson McpMessage DecodeException EncodeException Mcp'.split(
    ' ',
  ),
);

/** A javadoc block: `*\/`, backslashes and HTML-special characters escaped, lines indented. */
function javadoc(lines: readonly string[], indent = ''): string {
  if (!lines.length) return '';
  const esc = lines.map((l) =>
    l
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/\\/g, '&#92;')
      .replace(/\*\//g, '*&#47;')
      .replace(/@(?!see |deprecated)/g, '&#64;'),
  );
  return [`${indent}/**`, ...esc.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)), `${indent} */`].join('\n');
}

/** A double literal for a bound: `0d`, `1.5d`. */
const doubleLiteral = (v: number | undefined): string => (v === undefined ? 'null' : `${v}d`);

class JavaEmitter {
  readonly shape: Shape;
  /** Java name of each declaration. */
  readonly names: Map<string, string>;
  /** Union → index of a variant that is not an object type → nested record name. */
  readonly wrappers: Map<string, Map<number, string>>;
  /** Struct → the unions it is a variant of (by Java name, sorted). */
  readonly memberOf: Map<string, string[]>;

  /** The Java type of a value (boxed: a member may be absent). */
  readonly types: TypeTable = jvmTypes('JsonNode', (t, d) =>
    d.kind === 'alias' ? this.javaType(d.ty) : this.javaName(t.name),
  );

  /** Decoder expressions of type `McpJson.Decoder<javaType(t)>`. */
  readonly decoders: DecoderTable = mcpJsonDecoders({
    quote: quoted,
    constant: (v) => this.constLiteral(v),
    bound: doubleLiteral,
    ref: (t) => `${this.javaName(t.name)}::decode`,
  });

  constructor(readonly model: ProtocolModel) {
    this.shape = buildShape(model);
    this.names = declNames(this.shape, TAKEN_TYPE_NAMES);
    ({ wrappers: this.wrappers, memberOf: this.memberOf } = unionMembership(
      this.shape,
      (name) => this.javaName(name),
      (_union, i) => `Variant${i + 1}`,
    ));
  }

  javaName(name: string): string {
    return this.names.get(name) ?? name;
  }

  /** The Java type of a value (boxed: a member may be absent). */
  javaType(t: Ty): string {
    return typeExpr(this.types, this.shape, t);
  }

  /** A decoder expression of type `McpJson.Decoder<javaType(t)>`. */
  dec(t: Ty): string {
    return decoderExpr(this.decoders, this.shape, t);
  }

  /** An expression decoding `value` at `path` as `t`. */
  call(t: Ty, value: string, path: string): string {
    return t.k === 'ref'
      ? `${this.javaName(t.name)}.decode(${value}, ${path})`
      : `${this.dec(t)}.decode(${value}, ${path})`;
  }

  /** Whether the spec deprecates a declaration (its doc then has an `@deprecated` line). */
  deprecated(d: Decl): boolean {
    return d.doc.some((l) => l.startsWith('@deprecated'));
  }

  /** Java literal of a constant: `"text"`, `5L`, `1.5d`, `true`. */
  constLiteral(v: string | number | boolean): string {
    if (typeof v === 'string') return quoted(v);
    if (typeof v === 'boolean') return String(v);
    return Number.isInteger(v) ? `${v}L` : `${v}d`;
  }

  /** Required constants are not stored: the class says them. */
  stored(f: Field): boolean {
    return storedField(f);
  }

  /** A plain-language name of a type, for docs. */
  describe(t: Ty): string {
    return describeTy(t, (x) => this.javaType(x));
  }

  structView(d: StructDecl): object {
    const open = d.extra !== 'refuse';
    const javaNames = uniqueNames(
      d.fields.map((f) => camel(f.json)),
      KEYWORDS,
      open ? new Set(['additionalProperties']) : new Set(),
    );
    const constNames = uniqueNames(
      d.fields.map((f) => snake(f.json).toUpperCase()),
      KEYWORDS,
      new Set(['MEMBERS']),
    );
    const membersName = 'MEMBERS';
    const fields = d.fields.map((f, i) => {
      const stored = this.stored(f);
      const type = this.javaType(f.ty);
      const doc = [...f.doc];
      if (doc.length) doc.push('');
      doc.push(
        `JSON member {@code ${f.json}}${stored ? (f.required ? ', required' : ', optional ({@code null}: absent)') : `, always ${f.ty.k === 'const' ? this.constLiteral(f.ty.value).replace(/L$|d$/, '') : ''}`}.`,
      );
      return {
        javaName: javaNames[i],
        getter: `get${pascal(javaNames[i])}${javaNames[i].endsWith('_') ? '_' : ''}`,
        setter: `set${pascal(javaNames[i])}${javaNames[i].endsWith('_') ? '_' : ''}`,
        type,
        key: quoted(f.json),
        decoder: this.dec(f.ty),
        required: f.required,
        stored,
        take: f.required ? 'required' : 'optional',
        constName: constNames[i],
        doc: javadoc(doc, '    '),
        setterDoc: javadoc(
          [
            `Sets {@code ${f.json.replace(/[{}@]/g, '')}}${f.required ? ' (required)' : ' ({@code null}: absent)'}; returns this.`,
          ],
          '    ',
        ),
      };
    });
    const constants = d.fields
      .map((f, i) => ({ f, i }))
      .filter(({ f }) => !this.stored(f))
      .map(({ f, i }) => ({
        constName: constNames[i],
        type: this.javaType(f.ty),
        literal: f.ty.k === 'const' ? this.constLiteral(f.ty.value) : '',
        doc: javadoc([`The value of the JSON member {@code ${f.json.replace(/[{}@]/g, '')}}.`], '    '),
      }));
    const unions = this.memberOf.get(d.name) ?? [];
    return {
      ...this.header(),
      name: this.javaName(d.name),
      deprecated: this.deprecated(d),
      doc: javadoc(d.doc.length ? d.doc : [`The ${d.name} object.`]),
      implements: unions.map((u) => `, ${u}`).join(''),
      membersName,
      known: d.fields.map((f) => quoted(f.json)).join(', '),
      constants,
      fields,
      stored: fields.filter((f) => f.stored),
      open,
      extraType: d.extra === 'refuse' ? '' : this.javaType(d.extra),
      extraDecoder: d.extra === 'refuse' ? '' : this.dec(d.extra),
    };
  }

  unionView(d: UnionDecl): object {
    const name = this.javaName(d.name);
    const wrappers = this.wrappers.get(d.name)!;
    const tag = d.tag;
    const tags = tag.kind === 'const' ? tag.values : tag.kind === 'jsonrpc' ? tag.kinds : [];
    const variants = d.variants.map((v, i) => ({
      javaType: wrappers.has(i) ? `${name}.${wrappers.get(i)}` : this.javaName((v as { name: string }).name),
      tag: tags.length ? quoted(tags[i]) : '',
    }));
    const wrapperViews = d.variants
      .map((v, i) => ({ v, i }))
      .filter(({ i }) => wrappers.has(i))
      .map(({ v, i }) => ({
        number: i + 1,
        wrapper: wrappers.get(i)!,
        what: this.describe(v).replace(/[{}@*/]/g, ''),
        valueType: this.javaType(v),
        valueDecode: this.call(v, 'value', 'path'),
      }));
    const how =
      tag.kind === 'const'
        ? `by its member {@code ${tag.member}}`
        : tag.kind === 'jsonrpc'
          ? 'by its JSON-RPC message kind'
          : 'the variant that decodes with the fewest undeclared members';
    return {
      ...this.header(),
      name,
      deprecated: this.deprecated(d),
      quotedName: quoted(d.name),
      doc: javadoc([`One of: ${variants.map((v) => v.javaType).join(', ')}.`, ...(d.doc.length ? ['', ...d.doc] : [])]),
      permits: variants.map((v) => v.javaType).join(', '),
      subTypes: tag.kind === 'const',
      variants,
      wrappers: wrapperViews,
      tagged: tag.kind !== 'none',
      tagCall:
        tag.kind === 'const'
          ? `McpJson.tag(value, path, ${quoted(tag.member)}, ${tags.map(quoted).join(', ')})`
          : `McpJson.jsonrpcKind(value, path, ${tags.map(quoted).join(', ')})`,
      how,
    };
  }

  aliasView(d: Decl & { kind: 'alias' }): object {
    const target = resolveAlias(this.shape, d.ty);
    return {
      ...this.header(),
      name: this.javaName(d.name),
      deprecated: this.deprecated(d),
      doc: javadoc([
        `${d.name}: ${this.describe(target)} ({@code ${this.javaType(d.ty)}}).`,
        ...(d.doc.length ? ['', ...d.doc] : []),
      ]),
      javaType: this.javaType(d.ty),
      decodeCall: this.call(d.ty, 'value', 'path'),
    };
  }

  header() {
    return { preamble: preamble(this.model), package: javaPackageName(this.model.revision) };
  }

  mcpView(): object {
    const m = this.model;
    const resultDecoder = (resultType: string, alts: readonly string[], tags: ResultTags | null) => {
      if (!alts.length) return `${this.javaName(resultType)}::decode`;
      const all = [resultType, ...alts];
      const decoders = all.map((t) => `${this.javaName(t)}::decode`).join(', ');
      return tags
        ? `(v, p) -> McpJson.<Object>byResultType(v, p, ${quoted(all.join(' or '))}, ${quoted(tags.member)}, new String[] {${tags.values.map(quoted).join(', ')}}, ${decoders})`
        : `(v, p) -> McpJson.<Object>first(v, p, ${quoted(all.join(' or '))}, ${decoders})`;
    };
    const { requestMaps, notificationMaps } = methodMaps(m, this.shape, {
      quote: quoted,
      typeName: (name) => this.javaName(name),
      names: CONSTANT_MAP_NAMES,
      paramsDecoder: (t) => (t === null ? 'null' : this.dec(t)),
      resultDecoder,
    });
    return {
      ...this.header(),
      revision: m.revision,
      protocolVersion: m.protocolVersion,
      literals: revisionLiterals(m, quoted),
      errorCodes: errorCodeNames(m).map((c) => ({
        name: snake(c).toUpperCase(),
        quoted: quoted(c),
        code: m.errorCodes[c],
      })),
      requestMaps,
      notificationMaps,
      decls: this.shape.decls.map((d) => ({ name: this.javaName(d.name), quotedName: quoted(d.name) })),
    };
  }
}

const templates = templateFolder(new URL('./templates/bindings/', import.meta.url));

/** Files of the Java package, relative to generated/<rev>/. */
export function emitJava(model: ProtocolModel): Map<string, string> {
  const e = new JavaEmitter(model);
  const dir = `bindings/java/src/main/java/${javaPackageName(model.revision).replace(/\./g, '/')}`;
  const header = e.header();
  const files = new Map<string, string>();
  files.set(
    'bindings/java/pom.xml',
    templates.render('pom.xml', {
      preambleText: preamble(model, '').trim().replace(/--/g, '- -'),
      groupId: 'dev.mcpgen.bindings',
      artifactId: javaArtifactId(model.revision),
      mcpgenVersion: MCPGEN_VERSION,
      revision: model.revision,
      jacksonVersion: JACKSON_VERSION,
    }),
  );
  for (const file of ['McpJson', 'McpMessage', 'DecodeException', 'EncodeException'])
    files.set(`${dir}/${file}.java`, templates.render(`${file}.java`, header));
  files.set(`${dir}/Mcp.java`, templates.render('Mcp.java', e.mcpView()));
  for (const d of e.shape.decls) {
    const view = d.kind === 'struct' ? e.structView(d) : d.kind === 'union' ? e.unionView(d) : e.aliasView(d);
    files.set(`${dir}/${e.javaName(d.name)}.java`, templates.render(`${d.kind}.java`, view));
  }
  return new Map([...files].sort(([a], [b]) => byCodeUnit(a, b)));
}
