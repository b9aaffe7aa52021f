/**
 * C# bindings from the ProtocolModel: one project per revision (`<Namespace>.csproj`, namespace
 * `McpGen.Bindings.Mcp<rev>`), C# 7.2, netstandard2.0, depending on Newtonsoft.Json only.
 *
 * - every object type is a sealed class with properties; scalars are nullable (`long?`,
 *   `double?`, `bool?`) so an unset required member is seen, not written as 0; constant members
 *   (`type: "text"`) are get-only properties written from the type and checked on decode;
 *   members the schema does not declare are kept in `AdditionalProperties` (or refused where the
 *   schema closes the object); any JSON value is a `JToken`, so an explicit `null` stays a null
 *   token;
 * - every union is an interface implemented by its variant classes (a variant that is not an
 *   object type is a `<Union>VariantN` class holding `Value`): the official csharp-sdk's
 *   converter-dispatched content blocks, with interfaces because one class is a variant of
 *   several unions; decoding dispatches on the discriminant (`type`, `method`, the JSON-RPC
 *   message kind) or, without one, takes the variant that decodes with the fewest undeclared
 *   members; `Decoders.Decode<Union>` decodes one;
 * - decoders validate and throw `DecodeException` naming the path; `ToJson()` decodes what it
 *   wrote and throws `EncodeException` where the value would not decode; `[JsonConverter]` on
 *   every type makes `JsonConvert` read and write through them (System.Text.Json, which the
 *   official csharp-sdk uses, is no Debian package and NuGet is not reachable from CI, so the
 *   converter is Newtonsoft's);
 * - the method maps (`Mcp.ClientRequests`, `ServerRequests`, `ClientNotifications`,
 *   `ServerNotifications`), whose `DecodeResult` decodes every result a method may answer with,
 *   error codes, protocol version and revision constants.
 */
import type { ProtocolModel } from '../../model.js';
import { byCodeUnit } from '../../util.js';
import { MCPGEN_VERSION, preamble } from '../common.js';
import { pascal, quoted, uniqueNames } from '../naming.js';
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
import {
  PASCAL_MAP_NAMES,
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

/** The Newtonsoft.Json version the project file references (the tests build against Debian's 6.0.8, whose API it keeps). */
export const NEWTONSOFT_VERSION = '13.0.3';

/** Namespace of a revision: `McpGen.Bindings.Mcp20251125`, `McpGen.Bindings.McpDraft`. */
export function csharpNamespace(revision: string): string {
  return `McpGen.Bindings.Mcp${pascal(revision.replace(/[^A-Za-z0-9]+/g, ' '))}`;
}

/** Type names the generated files use unqualified: a schema type with one of these names gets a `_`. */
const TAKEN_TYPE_NAMES = new Set(
  'Object String Exception Type Func Math Array Attribute ObsoleteAttribute Obsolete Convert Console IList List IDictionary Dictionary HashSet ICollection IEnumerable IReadOnlyDictionary ReadOnlyDictionary KeyValuePair DictionaryEntry IConvertible OverflowException ArgumentException InvalidOperationException JToken JObject JArray JValue JTokenType JsonConverter JsonConverterAttribute JsonReader JsonWriter JsonSerializer JsonTextReader JsonReaderException JsonSerializationException Formatting DateParseHandling FloatParseHandling StringReader CultureInfo IMcpMessage McpJson Mcp Decoders DecodeException EncodeException McpConverter RequestInfo NotificationInfo'.split(
    ' ',
  ),
);

/** Members every class has: a property with one of these names gets a `_`. */
const MEMBER_NAMES = new Set(
  'AdditionalProperties UndeclaredCount ToJson WriteJson Decode FromJson ToString Equals GetHashCode GetType MemberwiseClone Finalize ReferenceEquals'.split(
    ' ',
  ),
);

/** XML doc text: `&`, `<`, `>` escaped. */
const xml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A `/// <summary>` block, lines indented. */
function summary(lines: readonly string[], indent: string): string {
  if (!lines.length) return '';
  return [
    `${indent}/// <summary>`,
    ...lines.map((l) => (l ? `${indent}/// ${xml(l)}` : `${indent}///`)),
    `${indent}/// </summary>`,
  ].join('\n');
}

const doubleLiteral = (v: number | undefined): string => (v === undefined ? 'null' : `${v}d`);

class CSharpEmitter {
  readonly shape: Shape;
  readonly names: Map<string, string>;
  /** Union → index of a variant that is not an object type → wrapper class name. */
  readonly wrappers: Map<string, Map<number, string>>;
  /** Struct → the unions it is a variant of (C# names, sorted). */
  readonly memberOf: Map<string, string[]>;

  /** The C# type a decoder gives (value types not nullable). */
  readonly types: TypeTable = {
    ref: (t, d) => (d.kind === 'alias' ? this.csType(d.ty) : this.csName(t.name)),
    string: 'string',
    integer: 'long',
    number: 'double',
    boolean: 'bool',
    json: 'JToken',
    array: (items) => `IList<${items}>`,
    map: (values) => `IDictionary<string, ${values}>`,
  };

  /** Decoder expressions of type `Func<JToken, string, csType(t)>`. */
  readonly decoders: DecoderTable = {
    ref: (t, d) => (d.kind === 'struct' ? `${this.csName(t.name)}.Decode` : `Decoders.Decode${this.csName(t.name)}`),
    string: 'McpJson.String',
    oneOf: (values) => `McpJson.OneOf(${values.map(quoted).join(', ')})`,
    integer: 'McpJson.Integer',
    number: 'McpJson.Number',
    range: (base, kind, min, max) =>
      `McpJson.Range<${kind === 'integer' ? 'long' : 'double'}>(${base}, ${doubleLiteral(min)}, ${doubleLiteral(max)})`,
    boolean: 'McpJson.Boolean',
    any: 'McpJson.Any',
    constant: (v) => `McpJson.Constant(${this.constLiteral(v)})`,
    prims: (kinds) => `McpJson.Prims(${kinds.map(quoted).join(', ')})`,
    list: (items, ty, maxItems) =>
      `McpJson.List<${this.csType(ty)}>(${items}${maxItems !== undefined ? `, ${maxItems}` : ''})`,
    map: (values, ty) => `McpJson.Map<${this.csType(ty)}>(${values})`,
  };

  /** Expressions writing a value as a JToken (a C# null stays null). */
  readonly writers: WriterTable = {
    ref: (e) => `McpJson.FromMessage(${e})`,
    string: (e) => `McpJson.FromString(${e})`,
    integer: (e) => `McpJson.FromInteger(${e})`,
    number: (e) => `McpJson.FromNumber(${e})`,
    boolean: (e) => `McpJson.FromBoolean(${e})`,
    array: (e, x, inner, ty) => `McpJson.FromList<${this.csType(ty)}>(${e}, ${x} => ${inner})`,
    map: (e, x, inner, ty) => `McpJson.FromMap<${this.csType(ty)}>(${e}, ${x} => ${inner})`,
  };

  constructor(readonly model: ProtocolModel) {
    this.shape = buildShape(model);
    this.names = declNames(this.shape, TAKEN_TYPE_NAMES);
    const taken = new Set(this.names.values());
    const wrapperName = (d: UnionDecl, i: number) => {
      let name = `${this.csName(d.name)}Variant${i + 1}`;
      for (let n = 2; taken.has(name); n++) name = `${this.csName(d.name)}Variant${i + 1}_${n}`;
      taken.add(name);
      return name;
    };
    ({ wrappers: this.wrappers, memberOf: this.memberOf } = unionMembership(
      this.shape,
      (name) => this.csName(name),
      wrapperName,
    ));
  }

  csName(name: string): string {
    return this.names.get(name) ?? name;
  }

  /** Whether the C# type of `t` is a value type (made nullable for a property). */
  isValueType(t: Ty): boolean {
    const r = resolveAlias(this.shape, t);
    return (
      r.k === 'integer' || r.k === 'number' || r.k === 'boolean' || (r.k === 'const' && typeof r.value !== 'string')
    );
  }

  /** The C# type a decoder of `t` gives (value types not nullable). */
  csType(t: Ty): string {
    return typeExpr(this.types, this.shape, t);
  }

  /** The type of a property holding `t` (value types nullable: absent or unset is null). */
  propType(t: Ty): string {
    return this.isValueType(t) ? `${this.csType(t)}?` : this.csType(t);
  }

  /** A decoder expression of type `Func<JToken, string, csType(t)>`. */
  dec(t: Ty): string {
    return decoderExpr(this.decoders, this.shape, t);
  }

  /** An expression decoding `value` at `path` as `t`. */
  call(t: Ty, value: string, path: string): string {
    return `${this.dec(t)}(${value}, ${path})`;
  }

  /** An expression writing `e` (of propType / csType of `t`) as a JToken, or null for a C# null. */
  write(t: Ty, e: string): string {
    return writerExpr(this.writers, this.shape, t, e);
  }

  constLiteral(v: string | number | boolean): string {
    if (typeof v === 'string') return quoted(v);
    if (typeof v === 'boolean') return String(v);
    return Number.isInteger(v) ? `${v}L` : `${v}d`;
  }

  stored(f: Field): boolean {
    return storedField(f);
  }

  /** The `[Obsolete]` message of a deprecated declaration (quoted), or '' when it is not. */
  obsolete(d: Decl): string {
    const line = d.doc.find((l) => l.startsWith('@deprecated'));
    if (line === undefined) return '';
    return quoted(line.replace(/^@deprecated\s*/, '') || 'Deprecated by the specification.');
  }

  describe(t: Ty): string {
    return describeTy(t, (x) => this.csType(x));
  }

  structView(d: StructDecl): object {
    const name = this.csName(d.name);
    const open = d.extra !== 'refuse';
    const props = uniqueNames(
      d.fields.map((f) => {
        const p = pascal(f.json);
        return p === name ? `${p}Value` : p;
      }),
      MEMBER_NAMES,
    );
    const fields = d.fields.map((f, i) => {
      const stored = this.stored(f);
      const doc = [...f.doc];
      if (doc.length) doc.push('');
      doc.push(
        stored
          ? `JSON member "${f.json}", ${f.required ? 'required' : 'optional (null: absent)'}.`
          : `JSON member "${f.json}", always ${f.ty.k === 'const' ? JSON.stringify(f.ty.value) : ''}.`,
      );
      return {
        prop: props[i],
        type: stored ? this.propType(f.ty) : this.csType(f.ty),
        decodedType: this.csType(f.ty),
        key: quoted(f.json),
        decoder: this.dec(f.ty),
        stored,
        take: f.required ? 'Required' : this.isValueType(f.ty) ? 'OptionalValue' : 'Optional',
        literal: f.ty.k === 'const' ? this.constLiteral(f.ty.value) : '',
        write: stored
          ? this.write(f.ty, props[i])
          : `new JValue(${f.ty.k === 'const' ? this.constLiteral(f.ty.value) : ''})`,
        doc: summary(doc, '        '),
      };
    });
    const unions = this.memberOf.get(d.name) ?? [];
    return {
      name,
      obsolete: this.obsolete(d),
      doc: summary(d.doc.length ? d.doc : [`The ${d.name} object.`], '    '),
      implements: unions.map((u) => `, ${u}`).join(''),
      known: d.fields.map((f) => quoted(f.json)).join(', '),
      fields,
      open,
      extraType: d.extra === 'refuse' ? '' : this.csType(d.extra),
      extraDecoder: d.extra === 'refuse' ? '' : this.dec(d.extra),
      extraWrite: d.extra === 'refuse' ? '' : this.write(d.extra, 'e.Value'),
    };
  }

  unionView(d: UnionDecl): object {
    const name = this.csName(d.name);
    const wrappers = this.wrappers.get(d.name)!;
    const variants = d.variants.map((v, i) => wrappers.get(i) ?? this.csName((v as { name: string }).name));
    return {
      name,
      obsolete: this.obsolete(d),
      doc: summary([`One of: ${variants.join(', ')}.`, ...(d.doc.length ? ['', ...d.doc] : [])], '    '),
      wrappers: d.variants
        .map((v, i) => ({ v, i }))
        .filter(({ i }) => wrappers.has(i))
        .map(({ v, i }) => ({
          number: i + 1,
          wrapper: wrappers.get(i)!,
          what: xml(this.describe(v)),
          valueType: this.propType(v),
          valueDecode: this.call(v, 'value', 'path'),
          valueWrite: this.write(v, 'Value'),
        })),
    };
  }

  /** The `Decoders.Decode<Name>` view of a union or alias. */
  decoderView(d: Decl): object {
    const name = this.csName(d.name);
    if (d.kind === 'union') {
      const wrappers = this.wrappers.get(d.name)!;
      const tag = d.tag;
      const tags = tag.kind === 'const' ? tag.values : tag.kind === 'jsonrpc' ? tag.kinds : [];
      return {
        name,
        what: tag.kind === 'none' ? 'the variant with the fewest undeclared members' : 'by its tag',
        type: name,
        tagged: tag.kind !== 'none',
        first: tag.kind === 'none',
        quotedName: quoted(d.name),
        tagCall:
          tag.kind === 'const'
            ? `McpJson.Tag(value, path, ${quoted(tag.member)}, ${tags.map(quoted).join(', ')})`
            : `McpJson.JsonRpcKind(value, path, ${tags.map(quoted).join(', ')})`,
        variants: d.variants.map((v, i) => ({
          tag: tags.length ? quoted(tags[i]) : '',
          decode: wrappers.has(i) ? `${wrappers.get(i)}.Decode` : `${this.csName((v as { name: string }).name)}.Decode`,
        })),
        decodeCall: '',
      };
    }
    const ty = (d as { ty: Ty }).ty;
    return {
      name,
      what: xml(this.describe(resolveAlias(this.shape, ty))),
      type: this.csType(ty),
      tagged: false,
      first: false,
      quotedName: quoted(d.name),
      tagCall: '',
      variants: [],
      decodeCall: this.call(ty, 'value', 'path'),
    };
  }

  typesView(): object {
    return {
      ...this.header(),
      decls: this.shape.decls.map((d) => ({
        struct: d.kind === 'struct' ? this.structView(d) : null,
        union: d.kind === 'union' ? this.unionView(d) : null,
      })),
      decoders: this.shape.decls.filter((d) => d.kind !== 'struct').map((d) => this.decoderView(d)),
    };
  }

  header() {
    return { preamble: preamble(this.model), namespace: csharpNamespace(this.model.revision) };
  }

  /** `(v, p) => <decode>` as an object-returning lambda. */
  lambda(t: Ty): string {
    return `(v, p) => ${this.call(t, 'v', 'p')}`;
  }

  mcpView(): object {
    const m = this.model;
    const resultDecoder = (resultType: string, alts: readonly string[], tags: ResultTags | null) => {
      const one = (name: string) => this.call({ k: 'ref', name }, 'v', 'p');
      if (!alts.length) return `(v, p) => ${one(resultType)}`;
      const all = [resultType, ...alts];
      const decoders = all.map((t) => this.dec({ k: 'ref', name: t })).join(', ');
      return tags
        ? `(v, p) => McpJson.ByResultType<IMcpMessage>(v, p, ${quoted(all.join(' or '))}, ${quoted(tags.member)}, new[] { ${tags.values.map(quoted).join(', ')} }, ${decoders})`
        : `(v, p) => McpJson.First<IMcpMessage>(v, p, ${quoted(all.join(' or '))}, ${decoders})`;
    };
    const { requestMaps, notificationMaps } = methodMaps(m, this.shape, {
      quote: quoted,
      typeName: (name) => this.csName(name),
      names: PASCAL_MAP_NAMES,
      paramsDecoder: (t) => (t === null ? 'null' : this.lambda(t)),
      resultDecoder,
    });
    const decode = (d: Decl) =>
      d.kind === 'struct' ? `${this.csName(d.name)}.Decode` : `Decoders.Decode${this.csName(d.name)}`;
    const classes: Array<{ name: string; decode: string }> = [];
    for (const d of this.shape.decls) {
      if (d.kind === 'alias') continue;
      classes.push({ name: this.csName(d.name), decode: decode(d) });
      if (d.kind === 'union')
        for (const w of this.wrappers.get(d.name)!.values()) classes.push({ name: w, decode: `${w}.Decode` });
    }
    return {
      ...this.header(),
      revision: m.revision,
      protocolVersion: m.protocolVersion,
      literals: revisionLiterals(m, quoted),
      errorCodes: errorCodeNames(m).map((c) => ({
        name: `Code${pascal(c.toLowerCase())}`,
        quoted: quoted(c),
        code: m.errorCodes[c],
      })),
      requestMaps,
      notificationMaps,
      decls: this.shape.decls.map((d) => ({ quotedName: quoted(d.name), decode: decode(d) })),
      classes: classes.sort((a, b) => byCodeUnit(a.name, b.name)),
    };
  }
}

const templates = templateFolder(new URL('./templates/bindings/', import.meta.url));

/** Files of the C# project, relative to generated/<rev>/. */
export function emitCSharp(model: ProtocolModel): Map<string, string> {
  const e = new CSharpEmitter(model);
  const ns = csharpNamespace(model.revision);
  return new Map([
    ['bindings/csharp/Mcp.cs', templates.render('Mcp.cs', e.mcpView())],
    ['bindings/csharp/McpJson.cs', templates.render('McpJson.cs', e.header())],
    [
      `bindings/csharp/${ns}.csproj`,
      templates.render('project.csproj', {
        preambleText: preamble(model, '').trim().replace(/--/g, '- -'),
        namespace: ns,
        mcpgenVersion: MCPGEN_VERSION,
        revision: model.revision,
        newtonsoftVersion: NEWTONSOFT_VERSION,
      }),
    ],
    ['bindings/csharp/Types.cs', templates.render('Types.cs', e.typesView())],
  ]);
}
