/**
 * Rust bindings from the ProtocolModel: one crate per revision (`Cargo.toml`, crate
 * `mcp_types_<rev>`), depending on serde and serde_json only.
 *
 * - every object type is a struct; required members are values, optional ones `Option`,
 *   objects and unions boxed; constant members (`type: "text"`) are written from the type and
 *   checked on decode; undeclared members are kept in `extra` (or refused where the schema
 *   closes the object); any JSON value is a `serde_json::Value`;
 * - every union is an enum with one variant per schema variant, so a `match` without a
 *   wildcard is exhaustive; decoding dispatches on the discriminant (`type`, `method`, the
 *   JSON-RPC message kind; what `#[serde(tag = "...")]` would do, but keeping the tag member
 *   in the variant and naming the failing path) or, without one, takes the variant that
 *   decodes with the fewest undeclared members;
 * - `Serialize` / `Deserialize` are implemented for every type; `decode::<T>(&value)` returns a
 *   `DecodeError { path, message }` (`params.content[2].data: required`), which serde's own
 *   errors cannot carry;
 * - the method maps (`CLIENT_REQUESTS`, `SERVER_REQUESTS`, `CLIENT_NOTIFICATIONS`,
 *   `SERVER_NOTIFICATIONS`), error codes, protocol version and revision constants.
 */
import type { ProtocolModel } from '../../model.js';
import { MCPGEN_VERSION, preamble } from '../common.js';
import { lineComments, quoted, revisionId, snake, uniqueNames } from '../naming.js';
import { buildShape, type Decl, type Field, type Shape, type StructDecl, type Ty, type UnionDecl } from '../shape.js';
import { templateFolder } from '../template.js';
import {
  CONSTANT_MAP_NAMES,
  decoderExpr,
  errorCodeNames,
  methodMaps,
  revisionLiterals,
  storedField,
  typeExpr,
  type DecoderTable,
  type TypeTable,
} from '../bindings/view.js';

/** Crate (library) name of a revision: `mcp_types_2025_11_25`. */
export function rustCrateName(revision: string): string {
  return `mcp_types_${revisionId(revision)}`;
}

const KEYWORDS = new Set(
  'as break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while async await dyn abstract become box do final macro override priv typeof unsized virtual yield try extra'.split(
    ' ',
  ),
);

class RustEmitter {
  readonly shape: Shape;
  constructor(readonly model: ProtocolModel) {
    this.shape = buildShape(model);
  }

  decl(name: string): Decl | undefined {
    return this.shape.byName.get(name);
  }

  isStruct(t: Ty): boolean {
    return t.k === 'ref' && this.decl(t.name)?.kind === 'struct';
  }

  /** Whether a field of this type is boxed (structs and unions, directly or through an alias). */
  boxed(t: Ty): boolean {
    if (t.k !== 'ref') return false;
    const d = this.decl(t.name)!;
    if (d.kind === 'alias') return this.boxed(d.ty);
    return true;
  }

  readonly types: TypeTable = {
    ref: (t) => t.name,
    string: 'String',
    integer: 'i64',
    number: 'f64',
    boolean: 'bool',
    json: 'Value',
    array: (items) => `Vec<${items}>`,
    map: (values) => `BTreeMap<String, ${values}>`,
  };

  /** Decoder expressions usable as `impl Fn(&Value, &str) -> Res<T>`. */
  readonly decoders: DecoderTable = {
    ref: (t) => `decode_${snake(t.name)}`,
    string: 'decode_string',
    oneOf: (values) => `decode_enum(&[${values.map(quoted).join(', ')}])`,
    integer: 'decode_integer',
    number: 'decode_number',
    range: (base, _kind, min, max) => {
      const b = (v: number | undefined) => (v === undefined ? 'None' : `Some(${Number.isInteger(v) ? `${v}.0` : v})`);
      return `in_range(${base}, ${b(min)}, ${b(max)})`;
    },
    boolean: 'decode_boolean',
    any: 'decode_any',
    constant: (v) => {
      if (typeof v === 'string') return `constant(decode_string, String::from(${quoted(v)}))`;
      if (typeof v === 'boolean') return `constant(decode_boolean, ${v})`;
      return Number.isInteger(v) ? `constant(decode_integer, ${v}i64)` : `constant(decode_number, ${v}f64)`;
    },
    prims: (kinds) => `decode_prims(&[${kinds.map(quoted).join(', ')}])`,
    list: (items, _ty, maxItems) => `decode_list(${items}, ${maxItems ?? 'usize::MAX'})`,
    map: (values) => `decode_map(${values})`,
  };

  rType(t: Ty): string {
    return typeExpr(this.types, this.shape, t);
  }

  /** A decoder expression usable as `impl Fn(&Value, &str) -> Res<T>`. */
  dec(t: Ty): string {
    return decoderExpr(this.decoders, this.shape, t);
  }

  constValue(v: string | number | boolean): string {
    return typeof v === 'string'
      ? `Value::from(${quoted(v)})`
      : typeof v === 'boolean'
        ? `Value::from(${v})`
        : Number.isInteger(v)
          ? `Value::from(${v}i64)`
          : `Value::from(${v}f64)`;
  }

  stored(f: Field): boolean {
    return storedField(f);
  }

  fieldNames(d: StructDecl): string[] {
    const names = uniqueNames(
      d.fields.map((f) => snake(f.json)),
      new Set(),
      new Set(d.extra === 'refuse' ? [] : ['extra']),
    );
    return names.map((n) => (KEYWORDS.has(n) ? `${n}_` : n));
  }

  fieldType(f: Field): string {
    const t = this.boxed(f.ty) ? `Box<${this.rType(f.ty)}>` : this.rType(f.ty);
    return f.required ? t : `Option<${t}>`;
  }

  structView(d: StructDecl): object {
    const names = this.fieldNames(d);
    const fields = d.fields.map((f, i) => ({
      name: names[i],
      key: quoted(f.json),
      type: this.fieldType(f),
      required: f.required,
      constant: !this.stored(f),
      boxed: this.boxed(f.ty),
      doc: lineComments(f.doc, '///', '    '),
      decoder: this.dec(f.ty),
      value: f.ty.k === 'const' ? this.constValue(f.ty.value) : '',
    }));
    return {
      name: d.name,
      decodeFn: `decode_${snake(d.name)}`,
      doc: lineComments(d.doc.length ? d.doc : [`The ${d.name} object.`], '///'),
      defaultable: this.defaultable(d.name),
      fields,
      stored: fields.filter((f) => !f.constant),
      open: d.extra !== 'refuse',
      extraType: d.extra === 'refuse' ? '' : this.rType(d.extra),
      extraDecoder: d.extra === 'refuse' ? '' : this.dec(d.extra),
      known: d.fields.map((f) => quoted(f.json)).join(', '),
    };
  }

  /** Whether values of `t` count undeclared members (structs and unions). */
  hasUndeclared(t: Ty): boolean {
    if (t.k !== 'ref') return false;
    const d = this.decl(t.name)!;
    return d.kind === 'alias' ? this.hasUndeclared(d.ty) : true;
  }

  undeclaredExpr(t: Ty, x: string): string {
    return this.hasUndeclared(t) ? `${x}.undeclared()` : '0';
  }

  private defaults = new Map<string, boolean>();
  /** Whether a struct can derive Default (no required member of a union type, transitively). */
  defaultable(name: string): boolean {
    const known = this.defaults.get(name);
    if (known !== undefined) return known;
    this.defaults.set(name, false);
    const d = this.decl(name)!;
    const tyOk = (t: Ty): boolean => {
      if (t.k !== 'ref') return true;
      const x = this.decl(t.name)!;
      if (x.kind === 'union') return false;
      if (x.kind === 'alias') return tyOk(x.ty);
      return this.defaultable(x.name);
    };
    const ok = d.kind === 'struct' && d.fields.every((f) => !f.required || !this.stored(f) || tyOk(f.ty));
    this.defaults.set(name, ok);
    return ok;
  }

  variantName(d: UnionDecl, i: number): string {
    const v = d.variants[i];
    return this.isStruct(v) ? (v as { name: string }).name : `Variant${i + 1}`;
  }

  unionView(d: UnionDecl): object {
    const tag = d.tag;
    const tags = tag.kind === 'const' ? tag.values : tag.kind === 'jsonrpc' ? tag.kinds : [];
    return {
      name: d.name,
      quotedName: quoted(d.name),
      decodeFn: `decode_${snake(d.name)}`,
      doc: lineComments(d.doc.length ? d.doc : [`One of the variants of ${d.name}.`], '///'),
      tagged: tag.kind !== 'none',
      tagMember: tag.kind === 'const' ? quoted(tag.member) : '',
      tags: tags.map(quoted).join(', '),
      variants: d.variants.map((v, i) => ({
        variant: this.variantName(d, i),
        type: this.rType(v),
        tag: tags.length ? quoted(tags[i]) : '',
        decoder: this.dec(v),
        countsUndeclared: this.hasUndeclared(v),
        undeclared: this.undeclaredExpr(v, 'x'),
      })),
    };
  }

  aliasView(d: { name: string; ty: Ty; doc: string[] }): object {
    return {
      name: d.name,
      decodeFn: `decode_${snake(d.name)}`,
      doc: lineComments(d.doc.length ? d.doc : [`${d.name}.`], '///'),
      type: this.rType(d.ty),
      decoder: this.dec(d.ty),
    };
  }

  libView(): object {
    const m = this.model;
    const { requestMaps, notificationMaps, hasAltResults } = methodMaps(m, this.shape, {
      quote: quoted,
      typeName: (name) => name,
      names: CONSTANT_MAP_NAMES,
      paramsDecoder: (t) => (t === null ? '' : this.dec(t)),
      resultDecoder: (resultType, alts, tags) => {
        if (!alts.length)
          return `Ok(DecodedResult { type_name: ${quoted(resultType)}, value: Box::new(decode_${snake(resultType)}(v, "result")?) })`;
        const all = [resultType, ...alts];
        const attempt = (t: string) => `result_as(${quoted(t)}, decode_${snake(t)}(v, "result"))`;
        const best = `fewest_undeclared("result", ${quoted(all.join(' or '))}, vec![${all.map(attempt).join(', ')}])`;
        if (!tags) return best;
        const arms = all.map((t, i) => `Some(${quoted(tags.values[i])}) => ${attempt(t)}.map(|(_, x)| x),`);
        return `match v.get(${quoted(tags.member)}).and_then(Value::as_str) { ${arms.join(' ')} _ => ${best} }`;
      },
    });
    return {
      preamble: preamble(m),
      revision: m.revision,
      protocolVersion: m.protocolVersion,
      literals: revisionLiterals(m, quoted),
      errorCodes: errorCodeNames(m).map((c) => ({ name: c, quotedName: quoted(c), code: m.errorCodes[c] })),
      decls: this.shape.decls.map((d) => ({
        quotedName: quoted(d.name),
        decodeFn: `decode_${snake(d.name)}`,
        struct: d.kind === 'struct' ? this.structView(d) : null,
        union: d.kind === 'union' ? this.unionView(d) : null,
        alias: d.kind === 'alias' ? this.aliasView(d) : null,
      })),
      requestMaps,
      notificationMaps,
      hasAltResults,
    };
  }
}

const templates = templateFolder(new URL('./templates/bindings/', import.meta.url), { trimLineEnds: true });

/** Files of the Rust crate, relative to generated/<rev>/. */
export function emitRust(model: ProtocolModel): Map<string, string> {
  const e = new RustEmitter(model);
  const crate = rustCrateName(model.revision);
  const cargo = {
    preamble: preamble(model, '#'),
    crate,
    distribution: crate.replace(/_/g, '-'),
    mcpgenVersion: MCPGEN_VERSION,
    revision: model.revision,
  };
  return new Map([
    ['bindings/rust/Cargo.toml', templates.render('Cargo.toml', cargo)],
    ['bindings/rust/src/lib.rs', templates.render('lib.rs', e.libView())],
  ]);
}
