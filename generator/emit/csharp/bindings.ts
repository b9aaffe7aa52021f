// size: the C# bindings emitter, not yet moved to templates as Go, Python and Rust were
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
  readonly names = new Map<string, string>();
  /** Union → index of a variant that is not an object type → wrapper class name. */
  readonly wrappers = new Map<string, Map<number, string>>();
  /** Struct → the unions it is a variant of (C# names, sorted). */
  readonly memberOf = new Map<string, string[]>();

  constructor(readonly model: ProtocolModel) {
    this.shape = buildShape(model);
    for (const d of this.shape.decls) this.names.set(d.name, TAKEN_TYPE_NAMES.has(d.name) ? `${d.name}_` : d.name);
    const taken = new Set(this.names.values());
    for (const d of this.shape.decls) {
      if (d.kind !== 'union') continue;
      const m = new Map<number, string>();
      d.variants.forEach((v, i) => {
        if (this.isStruct(v)) {
          const list = this.memberOf.get(v.name) ?? [];
          if (!list.includes(this.csName(d.name))) list.push(this.csName(d.name));
          this.memberOf.set(v.name, list);
          return;
        }
        let name = `${this.csName(d.name)}Variant${i + 1}`;
        for (let n = 2; taken.has(name); n++) name = `${this.csName(d.name)}Variant${i + 1}_${n}`;
        taken.add(name);
        m.set(i, name);
      });
      this.wrappers.set(d.name, m);
    }
    for (const list of this.memberOf.values()) list.sort(byCodeUnit);
  }

  csName(name: string): string {
    return this.names.get(name) ?? name;
  }

  decl(name: string): Decl | undefined {
    return this.shape.byName.get(name);
  }

  isStruct(t: Ty): t is { k: 'ref'; name: string } {
    return t.k === 'ref' && this.decl(t.name)?.kind === 'struct';
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
    switch (t.k) {
      case 'ref': {
        const d = this.decl(t.name)!;
        if (d.kind === 'alias') return this.csType(d.ty);
        return this.csName(t.name);
      }
      case 'string':
        return 'string';
      case 'integer':
        return 'long';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'const':
        return typeof t.value === 'string'
          ? 'string'
          : typeof t.value === 'boolean'
            ? 'bool'
            : Number.isInteger(t.value)
              ? 'long'
              : 'double';
      case 'null':
      case 'any':
      case 'prims':
        return 'JToken';
      case 'array':
        return `IList<${this.csType(t.items)}>`;
      case 'map':
        return `IDictionary<string, ${this.csType(t.values)}>`;
    }
  }

  /** The type of a property holding `t` (value types nullable: absent or unset is null). */
  propType(t: Ty): string {
    return this.isValueType(t) ? `${this.csType(t)}?` : this.csType(t);
  }

  /** A decoder expression of type `Func<JToken, string, csType(t)>`. */
  dec(t: Ty): string {
    switch (t.k) {
      case 'ref': {
        const d = this.decl(t.name)!;
        return d.kind === 'struct' ? `${this.csName(t.name)}.Decode` : `Decoders.Decode${this.csName(t.name)}`;
      }
      case 'string':
        return t.enum ? `McpJson.OneOf(${t.enum.map(quoted).join(', ')})` : 'McpJson.String';
      case 'integer':
      case 'number': {
        const base = t.k === 'integer' ? 'McpJson.Integer' : 'McpJson.Number';
        if (t.min === undefined && t.max === undefined) return base;
        return `McpJson.Range<${t.k === 'integer' ? 'long' : 'double'}>(${base}, ${doubleLiteral(t.min)}, ${doubleLiteral(t.max)})`;
      }
      case 'boolean':
        return 'McpJson.Boolean';
      case 'null':
        return 'McpJson.Prims("null")';
      case 'const':
        return `McpJson.Constant(${this.constLiteral(t.value)})`;
      case 'any':
        return 'McpJson.Any';
      case 'prims':
        return `McpJson.Prims(${t.kinds.map(quoted).join(', ')})`;
      case 'array':
        return `McpJson.List<${this.csType(t.items)}>(${this.dec(t.items)}${t.maxItems !== undefined ? `, ${t.maxItems}` : ''})`;
      case 'map':
        return `McpJson.Map<${this.csType(t.values)}>(${this.dec(t.values)})`;
    }
  }

  /** An expression decoding `value` at `path` as `t`. */
  call(t: Ty, value: string, path: string): string {
    return `${this.dec(t)}(${value}, ${path})`;
  }

  /** An expression writing `e` (of propType / csType of `t`) as a JToken, or null for a C# null. */
  write(t: Ty, e: string, depth = 0): string {
    switch (t.k) {
      case 'ref': {
        const d = this.decl(t.name)!;
        if (d.kind === 'alias') return this.write(d.ty, e, depth);
        return `McpJson.FromMessage(${e})`;
      }
      case 'string':
        return `McpJson.FromString(${e})`;
      case 'integer':
        return `McpJson.FromInteger(${e})`;
      case 'number':
        return `McpJson.FromNumber(${e})`;
      case 'boolean':
        return `McpJson.FromBoolean(${e})`;
      case 'const': {
        const v = t.value;
        if (typeof v === 'string') return `McpJson.FromString(${e})`;
        if (typeof v === 'boolean') return `McpJson.FromBoolean(${e})`;
        return Number.isInteger(v) ? `McpJson.FromInteger(${e})` : `McpJson.FromNumber(${e})`;
      }
      case 'null':
      case 'any':
      case 'prims':
        return e;
      case 'array': {
        const x = `x${depth}`;
        return `McpJson.FromList<${this.csType(t.items)}>(${e}, ${x} => ${this.write(t.items, x, depth + 1)})`;
      }
      case 'map': {
        const x = `x${depth}`;
        return `McpJson.FromMap<${this.csType(t.values)}>(${e}, ${x} => ${this.write(t.values, x, depth + 1)})`;
      }
    }
  }

  constLiteral(v: string | number | boolean): string {
    if (typeof v === 'string') return quoted(v);
    if (typeof v === 'boolean') return String(v);
    return Number.isInteger(v) ? `${v}L` : `${v}d`;
  }

  stored(f: Field): boolean {
    return !(f.required && f.ty.k === 'const');
  }

  /** The `[Obsolete]` message of a deprecated declaration (quoted), or '' when it is not. */
  obsolete(d: Decl): string {
    const line = d.doc.find((l) => l.startsWith('@deprecated'));
    if (line === undefined) return '';
    return quoted(line.replace(/^@deprecated\s*/, '') || 'Deprecated by the specification.');
  }

  describe(t: Ty): string {
    if (t.k === 'ref') return t.name;
    if (t.k === 'array') return `a list of ${this.describe(t.items)}`;
    if (t.k === 'map') return `a map of ${this.describe(t.values)}`;
    if (t.k === 'prims') return `a JSON ${t.kinds.join(' or ')}`;
    return `a ${this.csType(t)}`;
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

  paramsTy(messageType: string): Ty | null {
    const d = this.decl(messageType);
    if (d?.kind !== 'struct') return null;
    const f = d.fields.find((x) => x.json === 'params');
    return f ? f.ty : null;
  }

  /** `(v, p) => <decode>` as an object-returning lambda. */
  lambda(t: Ty): string {
    return `(v, p) => ${this.call(t, 'v', 'p')}`;
  }

  mcpView(): object {
    const m = this.model;
    const { requests, notifications } = methodTables(m);
    const paramsDecoder = (messageType: string) => {
      const t = this.paramsTy(messageType);
      return t === null ? 'null' : this.lambda(t);
    };
    const resultDecoder = (resultType: string, alts: readonly string[]) => {
      const one = (name: string) => this.call({ k: 'ref', name }, 'v', 'p');
      if (!alts.length) return `(v, p) => ${one(resultType)}`;
      const all = [resultType, ...alts];
      return `(v, p) => McpJson.First<IMcpMessage>(v, p, ${quoted(all.join(' or '))}, ${all
        .map((t) => this.dec({ k: 'ref', name: t }))
        .join(', ')})`;
    };
    const requestMap = (name: string, doc: string, direction: string) => ({
      name,
      doc,
      requests: requests
        .filter((r) => r.direction === direction)
        .map((r) => ({
          method: quoted(r.method),
          direction: quoted(r.direction),
          requestType: this.csName(r.requestType),
          requestTypeName: quoted(r.requestType),
          resultTypeName: quoted(r.resultType),
          altResultTypes: r.altResultTypes.map(quoted).join(', '),
          capability: (r.capability ?? []).map(quoted).join(', '),
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
          method: quoted(n.method),
          direction: quoted(n.direction),
          notificationType: this.csName(n.notificationType),
          notificationTypeName: quoted(n.notificationType),
          paramsRequired: String(n.paramsRequired),
          paramsDecoder: paramsDecoder(n.notificationType),
        })),
    });
    const codes = Object.keys(m.errorCodes).sort(byCodeUnit);
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
      literals: {
        revision: quoted(m.revision),
        protocolVersion: quoted(m.protocolVersion),
        jsonrpcVersion: quoted(String(m.constants.JSONRPC_VERSION ?? '2.0')),
        lifecycle: quoted(m.lifecycle),
        mcpgenVersion: quoted(MCPGEN_VERSION),
      },
      errorCodes: codes.map((c) => ({
        name: `Code${pascal(c.toLowerCase())}`,
        quoted: quoted(c),
        code: m.errorCodes[c],
      })),
      requestMaps: [
        requestMap('ClientRequests', 'The requests a client sends', 'clientToServer'),
        requestMap('ServerRequests', 'The requests a server sends', 'serverToClient'),
      ],
      notificationMaps: [
        notificationMap('ClientNotifications', 'The notifications a client sends', 'clientToServer'),
        notificationMap('ServerNotifications', 'The notifications a server sends', 'serverToClient'),
      ],
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
