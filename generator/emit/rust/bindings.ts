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
import { byCodeUnit } from '../../util.js';
import { MCPGEN_VERSION, preamble } from '../common.js';
import { revisionId, snake, uniqueNames } from '../naming.js';
import {
  buildShape,
  methodTables,
  type Decl,
  type Field,
  type Shape,
  type StructDecl,
  type Ty,
  type UnionDecl,
} from '../shape.js';

/** Crate (library) name of a revision: `mcp_types_2025_11_25`. */
export function rustCrateName(revision: string): string {
  return `mcp_types_${revisionId(revision)}`;
}

const KEYWORDS = new Set(
  'as break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while async await dyn abstract become box do final macro override priv typeof unsized virtual yield try extra'.split(
    ' ',
  ),
);

const str = (s: string): string => JSON.stringify(s);

function comment(lines: string[], indent = ''): string[] {
  return lines.map((l) => (l ? `${indent}/// ${l}` : `${indent}///`));
}

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

  rType(t: Ty): string {
    switch (t.k) {
      case 'ref':
        return t.name;
      case 'string':
        return 'String';
      case 'integer':
        return 'i64';
      case 'number':
        return 'f64';
      case 'boolean':
        return 'bool';
      case 'const':
        return typeof t.value === 'string'
          ? 'String'
          : typeof t.value === 'boolean'
            ? 'bool'
            : Number.isInteger(t.value)
              ? 'i64'
              : 'f64';
      case 'null':
      case 'any':
      case 'prims':
        return 'Value';
      case 'array':
        return `Vec<${this.rType(t.items)}>`;
      case 'map':
        return `BTreeMap<String, ${this.rType(t.values)}>`;
    }
  }

  /** A decoder expression usable as `impl Fn(&Value, &str) -> Res<T>`. */
  dec(t: Ty): string {
    switch (t.k) {
      case 'ref':
        return `decode_${snake(t.name)}`;
      case 'string':
        return t.enum ? `decode_enum(&[${t.enum.map(str).join(', ')}])` : 'decode_string';
      case 'integer':
      case 'number': {
        const base = t.k === 'integer' ? 'decode_integer' : 'decode_number';
        if (t.min === undefined && t.max === undefined) return base;
        const b = (v: number | undefined) => (v === undefined ? 'None' : `Some(${Number.isInteger(v) ? `${v}.0` : v})`);
        return `in_range(${base}, ${b(t.min)}, ${b(t.max)})`;
      }
      case 'boolean':
        return 'decode_boolean';
      case 'null':
        return 'decode_prims(&["null"])';
      case 'const': {
        const v = t.value;
        if (typeof v === 'string') return `constant(decode_string, String::from(${str(v)}))`;
        if (typeof v === 'boolean') return `constant(decode_boolean, ${v})`;
        return Number.isInteger(v) ? `constant(decode_integer, ${v}i64)` : `constant(decode_number, ${v}f64)`;
      }
      case 'any':
        return 'decode_any';
      case 'prims':
        return `decode_prims(&[${t.kinds.map(str).join(', ')}])`;
      case 'array':
        return `decode_list(${this.dec(t.items)}, ${t.maxItems ?? 'usize::MAX'})`;
      case 'map':
        return `decode_map(${this.dec(t.values)})`;
    }
  }

  constValue(v: string | number | boolean): string {
    return typeof v === 'string'
      ? `Value::from(${str(v)})`
      : typeof v === 'boolean'
        ? `Value::from(${v})`
        : Number.isInteger(v)
          ? `Value::from(${v}i64)`
          : `Value::from(${v}f64)`;
  }

  stored(f: Field): boolean {
    return !(f.required && f.ty.k === 'const');
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

  struct(d: StructDecl): string[] {
    const names = this.fieldNames(d);
    const fn = `decode_${snake(d.name)}`;
    const out: string[] = [''];
    out.push(...comment(d.doc.length ? d.doc : [`The ${d.name} object.`]));
    out.push(`#[derive(Debug, Clone, PartialEq${this.defaultable(d.name) ? ', Default' : ''})]`);
    out.push(`pub struct ${d.name} {`);
    d.fields.forEach((f, i) => {
      if (!this.stored(f)) return;
      out.push(...comment(f.doc, '    '));
      out.push(`    pub ${names[i]}: ${this.fieldType(f)},`);
    });
    if (d.extra !== 'refuse') {
      out.push('    /// Members the schema does not declare, as decoded.');
      out.push(`    pub extra: BTreeMap<String, ${this.rType(d.extra)}>,`);
    }
    out.push('}');
    out.push('');
    out.push(`fn ${fn}(v: &Value, path: &str) -> Res<${d.name}> {`);
    out.push('    let o = decode_object(v, path)?;');
    const known = `&[${d.fields.map((f) => str(f.json)).join(', ')}]`;
    if (d.extra === 'refuse') out.push(`    closed(o, path, ${known})?;`);
    d.fields.forEach((f) => {
      if (!this.stored(f)) out.push(`    required(o, ${str(f.json)}, path, ${this.dec(f.ty)})?;`);
    });
    out.push(`    Ok(${d.name} {`);
    d.fields.forEach((f, i) => {
      if (!this.stored(f)) return;
      const base = `${f.required ? 'required' : 'optional'}(o, ${str(f.json)}, path, ${this.dec(f.ty)})?`;
      const boxed = this.boxed(f.ty);
      const value = boxed ? (f.required ? `Box::new(${base})` : `${base}.map(Box::new)`) : base;
      out.push(`        ${names[i]}: ${value},`);
    });
    if (d.extra !== 'refuse') out.push(`        extra: extra(o, path, ${known}, ${this.dec(d.extra)})?,`);
    out.push('    })');
    out.push('}');
    out.push('');
    out.push(`impl Serialize for ${d.name} {`);
    out.push('    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {');
    out.push(
      `    let mut m = ${d.extra === 'refuse' ? 'Map::new()' : 'encode_extra(&self.extra).map_err(S::Error::custom)?'};`,
    );
    d.fields.forEach((f, i) => {
      const key = str(f.json);
      if (!this.stored(f))
        out.push(
          `        m.insert(${key}.into(), ${this.constValue((f.ty as { value: string | number | boolean }).value)});`,
        );
      else if (f.required)
        out.push(`        m.insert(${key}.into(), to_value(&self.${names[i]}).map_err(S::Error::custom)?);`);
      else
        out.push(
          `        if let Some(x) = &self.${names[i]} {\n            m.insert(${key}.into(), to_value(x).map_err(S::Error::custom)?);\n        }`,
        );
    });
    out.push('        m.serialize(s)');
    out.push('    }');
    out.push('}');
    out.push(...this.deserializeImpl(d.name, fn));
    out.push('');
    out.push(`impl Undeclared for ${d.name} {`);
    out.push(`    fn undeclared(&self) -> usize { ${d.extra === 'refuse' ? '0' : 'self.extra.len()'} }`);
    out.push('}');
    return out;
  }

  deserializeImpl(name: string, fn: string): string[] {
    return [
      '',
      `impl<'de> Deserialize<'de> for ${name} {`,
      "    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {",
      '        let v = Value::deserialize(d)?;',
      `        ${fn}(&v, "").map_err(D::Error::custom)`,
      '    }',
      '}',
      '',
      `impl Decode for ${name} {`,
      `    fn decode_at(v: &Value, path: &str) -> Res<Self> { ${fn}(v, path) }`,
      '}',
    ];
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

  union(d: UnionDecl): string[] {
    const fn = `decode_${snake(d.name)}`;
    const out: string[] = [''];
    out.push(...comment(d.doc.length ? d.doc : [`One of the variants of ${d.name}.`]));
    out.push('#[derive(Debug, Clone, PartialEq)]');
    out.push(`pub enum ${d.name} {`);
    d.variants.forEach((v, i) => out.push(`    ${this.variantName(d, i)}(${this.rType(v)}),`));
    out.push('}');
    out.push('');
    out.push(`/// Encodes the variant's value itself (the tag member is part of it).`);
    out.push(`impl Serialize for ${d.name} {`);
    out.push('    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {');
    out.push('        match self {');
    d.variants.forEach((_, i) => out.push(`            ${d.name}::${this.variantName(d, i)}(x) => x.serialize(s),`));
    out.push('        }');
    out.push('    }');
    out.push('}');
    out.push('');
    out.push(`fn ${fn}(v: &Value, path: &str) -> Res<${d.name}> {`);
    const tag = d.tag;
    if (tag.kind === 'const' || tag.kind === 'jsonrpc') {
      const values = tag.kind === 'const' ? tag.values : tag.kinds;
      const list = `&[${values.map(str).join(', ')}]`;
      out.push(
        tag.kind === 'const'
          ? `    let tag = tag_of(v, path, ${str(tag.member)}, ${list})?;`
          : `    let tag = jsonrpc_kind_of(v, path, ${list})?;`,
      );
      out.push('    match tag {');
      d.variants.forEach((variant, i) =>
        out.push(
          `        ${str(values[i])} => Ok(${d.name}::${this.variantName(d, i)}(${this.dec(variant)}(v, path)?)),`,
        ),
      );
      out.push(`        _ => Err(DecodeError::new(path, format!("unreachable tag {}", tag))),`);
      out.push('    }');
    } else {
      out.push(`    let mut best: Option<(usize, ${d.name})> = None;`);
      out.push('    let mut errors: Vec<String> = Vec::new();');
      d.variants.forEach((variant, i) => {
        out.push(`    match ${this.dec(variant)}(v, path) {`);
        out.push('        Err(e) => errors.push(e.to_string()),');
        out.push('        Ok(x) => {');
        out.push(`            let n = ${this.undeclaredExpr(variant, 'x')};`);
        out.push(
          `            if best.as_ref().map_or(true, |(b, _)| n < *b) { best = Some((n, ${d.name}::${this.variantName(d, i)}(x))); }`,
        );
        out.push('        }');
        out.push('    }');
      });
      out.push(`    best.map(|(_, x)| x).ok_or_else(|| no_variant(path, ${str(d.name)}, &errors))`);
    }
    out.push('}');
    out.push(...this.deserializeImpl(d.name, fn));
    out.push('');
    out.push(`impl Undeclared for ${d.name} {`);
    out.push('    fn undeclared(&self) -> usize {');
    out.push('        match self {');
    d.variants.forEach((v, i) =>
      out.push(
        `            ${d.name}::${this.variantName(d, i)}(${this.hasUndeclared(v) ? 'x' : '_'}) => ${this.undeclaredExpr(v, 'x')},`,
      ),
    );
    out.push('        }');
    out.push('    }');
    out.push('}');
    return out;
  }

  alias(d: { name: string; ty: Ty; doc: string[] }): string[] {
    const out = [''];
    out.push(...comment(d.doc.length ? d.doc : [`${d.name}.`]));
    out.push(`pub type ${d.name} = ${this.rType(d.ty)};`);
    out.push('');
    out.push(`fn decode_${snake(d.name)}(v: &Value, path: &str) -> Res<${d.name}> {`);
    out.push(`    ${this.dec(d.ty)}(v, path)`);
    out.push('}');
    return out;
  }

  paramsTy(messageType: string): Ty | null {
    const d = this.decl(messageType);
    if (d?.kind !== 'struct') return null;
    const f = d.fields.find((x) => x.json === 'params');
    return f ? f.ty : null;
  }

  lib(): string {
    const m = this.model;
    const out: string[] = [preamble(m)];
    out.push(`//! Model Context Protocol messages of revision ${m.revision} (protocol version ${m.protocolVersion}).`);
    out.push('//!');
    out.push('//! Decode with `serde_json::from_str::<T>` (serde errors) or `decode::<T>(&value)` (a');
    out.push('//! `DecodeError` naming the failing path, e.g. `params.content[2].data: required`); encode');
    out.push('//! with `serde_json::to_string`.');
    out.push('#![allow(clippy::all, dead_code, non_camel_case_types)]');
    out.push(RS_RUNTIME);
    out.push(`/// The schema revision these bindings were generated from.`);
    out.push(`pub const REVISION: &str = ${str(m.revision)};`);
    out.push('/// LATEST_PROTOCOL_VERSION of the revision.');
    out.push(`pub const PROTOCOL_VERSION: &str = ${str(m.protocolVersion)};`);
    out.push(`pub const JSONRPC_VERSION: &str = ${str(String(m.constants.JSONRPC_VERSION ?? '2.0'))};`);
    out.push('/// `handshake` (initialize first) or `stateless` (every request carries its own `_meta`).');
    out.push(`pub const LIFECYCLE: &str = ${str(m.lifecycle)};`);
    out.push(`pub const MCPGEN_VERSION: &str = ${str(MCPGEN_VERSION)};`);
    out.push('');
    out.push('/// Error codes of this revision (schema.ts constants).');
    const codes = Object.keys(m.errorCodes).sort(byCodeUnit);
    for (const c of codes) out.push(`pub const ${c}: i64 = ${m.errorCodes[c]};`);
    out.push(`pub const ERROR_CODES: &[(&str, i64)] = &[${codes.map((c) => `(${str(c)}, ${c})`).join(', ')}];`);
    for (const d of this.shape.decls) {
      if (d.kind === 'struct') out.push(...this.struct(d));
      else if (d.kind === 'union') out.push(...this.union(d));
      else out.push(...this.alias(d));
    }
    const { requests, notifications } = methodTables(m);
    const decodeFn = (t: Ty | null, at: string) =>
      t === null ? 'None' : `Some(|v| Ok(Box::new(${this.dec(t)}(v, ${str(at)})?)))`;
    const reqTable = (name: string, doc: string, list: typeof requests) => {
      out.push('', `/// ${doc}, by method.`, `pub static ${name}: &[RequestInfo] = &[`);
      for (const r of list) {
        out.push('    RequestInfo {');
        out.push(`        method: ${str(r.method)},`);
        out.push(`        direction: ${str(r.direction)},`);
        out.push(`        request_type: ${str(r.requestType)},`);
        out.push(`        result_type: ${str(r.resultType)},`);
        out.push(`        alt_result_types: &[${r.altResultTypes.map(str).join(', ')}],`);
        out.push(`        capability: &[${(r.capability ?? []).map(str).join(', ')}],`);
        out.push(`        params_required: ${r.paramsRequired},`);
        out.push(`        decode_params: ${decodeFn(this.paramsTy(r.requestType), 'params')},`);
        out.push(`        decode_result: |v| Ok(Box::new(decode_${snake(r.resultType)}(v, "result")?)),`);
        out.push('    },');
      }
      out.push('];');
    };
    const noteTable = (name: string, doc: string, list: typeof notifications) => {
      out.push('', `/// ${doc}, by method.`, `pub static ${name}: &[NotificationInfo] = &[`);
      for (const n of list) {
        out.push('    NotificationInfo {');
        out.push(`        method: ${str(n.method)},`);
        out.push(`        direction: ${str(n.direction)},`);
        out.push(`        notification_type: ${str(n.notificationType)},`);
        out.push(`        params_required: ${n.paramsRequired},`);
        out.push(`        decode_params: ${decodeFn(this.paramsTy(n.notificationType), 'params')},`);
        out.push('    },');
      }
      out.push('];');
    };
    reqTable(
      'CLIENT_REQUESTS',
      'The requests a client sends',
      requests.filter((r) => r.direction === 'clientToServer'),
    );
    reqTable(
      'SERVER_REQUESTS',
      'The requests a server sends',
      requests.filter((r) => r.direction === 'serverToClient'),
    );
    noteTable(
      'CLIENT_NOTIFICATIONS',
      'The notifications a client sends',
      notifications.filter((n) => n.direction === 'clientToServer'),
    );
    noteTable(
      'SERVER_NOTIFICATIONS',
      'The notifications a server sends',
      notifications.filter((n) => n.direction === 'serverToClient'),
    );
    out.push('', '/// Decodes `v` as the schema type `type_name` and encodes it back (the value, or the DecodeError).');
    out.push('pub fn round_trip(type_name: &str, v: &Value) -> Option<Res<Value>> {');
    out.push('    let enc = |x: Res<Value>| x;');
    out.push('    Some(enc(match type_name {');
    for (const d of this.shape.decls) {
      out.push(
        `        ${str(d.name)} => decode_${snake(d.name)}(v, "").and_then(|x| to_value(&x).map_err(|e| DecodeError::new("", e.to_string()))),`,
      );
    }
    out.push('        _ => return None,');
    out.push('    }))');
    out.push('}');
    return `${out.join('\n').replace(/[ \t]+$/gm, '')}\n`;
  }

  cargo(): string {
    const m = this.model;
    return `${preamble(m, '#')}
[package]
name = "${rustCrateName(m.revision).replace(/_/g, '-')}"
version = "${MCPGEN_VERSION}"
edition = "2021"
description = "Model Context Protocol ${m.revision} messages: types, validating decoders, method maps"
publish = false

[lib]
name = "${rustCrateName(m.revision)}"
path = "src/lib.rs"

[dependencies]
serde = "1"
serde_json = "1"
`;
  }
}

/** The hand-written part of every crate: decoding helpers and the method-map records. */
const RS_RUNTIME = `
use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{to_value, Map, Value};
use std::collections::BTreeMap;

/// A value that does not match its schema type: \`path\` names the failing place
/// (\`params.content[2].data\`, empty for the value itself), \`message\` what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    pub path: String,
    pub message: String,
}

impl DecodeError {
    pub fn new(path: &str, message: impl Into<String>) -> Self {
        DecodeError { path: path.to_string(), message: message.into() }
    }
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", if self.path.is_empty() { "(root)" } else { &self.path }, self.message)
    }
}

impl std::error::Error for DecodeError {}

/// Decoding results.
pub type Res<T> = std::result::Result<T, DecodeError>;

/// A type with a validating decoder.
pub trait Decode: Sized {
    /// Decodes \`v\`, naming paths below \`path\`.
    fn decode_at(v: &Value, path: &str) -> Res<Self>;
}

/// Decodes and validates a JSON value as \`T\`; the error names the failing path.
pub fn decode<T: Decode>(v: &Value) -> Res<T> {
    T::decode_at(v, "")
}

/// Parses JSON text and decodes it as \`T\`.
pub fn decode_str<T: Decode>(text: &str) -> Res<T> {
    let v: Value = serde_json::from_str(text).map_err(|e| DecodeError::new("", format!("not JSON: {}", e)))?;
    T::decode_at(&v, "")
}

/// One request of the method map.
pub struct RequestInfo {
    pub method: &'static str,
    /// \`clientToServer\` or \`serverToClient\`.
    pub direction: &'static str,
    pub request_type: &'static str,
    pub result_type: &'static str,
    /// Other results the receiver may answer with (CreateTaskResult, InputRequiredResult).
    pub alt_result_types: &'static [&'static str],
    /// The capability path the receiver must declare, e.g. \`["tools"]\`.
    pub capability: &'static [&'static str],
    pub params_required: bool,
    /// Decodes params (\`None\` when the request has none); downcast the box to the params type.
    pub decode_params: Option<fn(&Value) -> Res<Box<dyn std::any::Any>>>,
    /// Decodes the result; downcast the box to \`result_type\`.
    pub decode_result: fn(&Value) -> Res<Box<dyn std::any::Any>>,
}

/// One notification of the method map.
pub struct NotificationInfo {
    pub method: &'static str,
    pub direction: &'static str,
    pub notification_type: &'static str,
    pub params_required: bool,
    pub decode_params: Option<fn(&Value) -> Res<Box<dyn std::any::Any>>>,
}

/// The entry of \`method\` in a method map.
pub fn find_request(table: &'static [RequestInfo], method: &str) -> Option<&'static RequestInfo> {
    table.iter().find(|r| r.method == method)
}

trait Undeclared {
    fn undeclared(&self) -> usize;
}

fn at(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{}.{}", path, key) }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() || n.as_f64().map_or(false, |f| f.fract() == 0.0) { "integer" } else { "number" }
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn expected(what: &str, v: &Value, path: &str) -> DecodeError {
    DecodeError::new(path, format!("expected {}, got {}", what, kind_of(v)))
}

fn decode_object<'a>(v: &'a Value, path: &str) -> Res<&'a Map<String, Value>> {
    v.as_object().ok_or_else(|| expected("object", v, path))
}

fn required<T>(o: &Map<String, Value>, key: &str, path: &str, dec: impl Fn(&Value, &str) -> Res<T>) -> Res<T> {
    match o.get(key) {
        Some(v) => dec(v, &at(path, key)),
        None => Err(DecodeError::new(&at(path, key), "required")),
    }
}

fn optional<T>(o: &Map<String, Value>, key: &str, path: &str, dec: impl Fn(&Value, &str) -> Res<T>) -> Res<Option<T>> {
    match o.get(key) {
        Some(v) => dec(v, &at(path, key)).map(Some),
        None => Ok(None),
    }
}

fn extra<T>(o: &Map<String, Value>, path: &str, known: &[&str], dec: impl Fn(&Value, &str) -> Res<T>) -> Res<BTreeMap<String, T>> {
    let mut out = BTreeMap::new();
    for (k, v) in o {
        if !known.contains(&k.as_str()) {
            out.insert(k.clone(), dec(v, &at(path, k))?);
        }
    }
    Ok(out)
}

fn closed(o: &Map<String, Value>, path: &str, known: &[&str]) -> Res<()> {
    for k in o.keys() {
        if !known.contains(&k.as_str()) {
            return Err(DecodeError::new(&at(path, k), "not allowed"));
        }
    }
    Ok(())
}

fn encode_extra<T: Serialize>(extra: &BTreeMap<String, T>) -> std::result::Result<Map<String, Value>, serde_json::Error> {
    let mut m = Map::new();
    for (k, v) in extra {
        m.insert(k.clone(), to_value(v)?);
    }
    Ok(m)
}

fn decode_string(v: &Value, path: &str) -> Res<String> {
    v.as_str().map(str::to_string).ok_or_else(|| expected("string", v, path))
}

fn decode_integer(v: &Value, path: &str) -> Res<i64> {
    if kind_of(v) != "integer" {
        return Err(expected("integer", v, path));
    }
    v.as_i64()
        .or_else(|| v.as_f64().filter(|f| *f >= i64::MIN as f64 && *f <= i64::MAX as f64).map(|f| f as i64))
        .ok_or_else(|| DecodeError::new(path, "integer out of range"))
}

fn decode_number(v: &Value, path: &str) -> Res<f64> {
    v.as_f64().ok_or_else(|| expected("number", v, path))
}

fn decode_boolean(v: &Value, path: &str) -> Res<bool> {
    v.as_bool().ok_or_else(|| expected("boolean", v, path))
}

fn decode_any(v: &Value, _path: &str) -> Res<Value> {
    Ok(v.clone())
}

fn decode_prims(kinds: &'static [&'static str]) -> impl Fn(&Value, &str) -> Res<Value> {
    move |v, path| {
        let k = kind_of(v);
        if kinds.iter().any(|want| *want == k || (*want == "number" && k == "integer")) {
            Ok(v.clone())
        } else {
            Err(expected(&kinds.join(" or "), v, path))
        }
    }
}

trait AsF64: Copy {
    fn as_f64(self) -> f64;
}
impl AsF64 for i64 {
    fn as_f64(self) -> f64 {
        self as f64
    }
}
impl AsF64 for f64 {
    fn as_f64(self) -> f64 {
        self
    }
}

fn in_range<T: AsF64>(dec: impl Fn(&Value, &str) -> Res<T>, min: Option<f64>, max: Option<f64>) -> impl Fn(&Value, &str) -> Res<T> {
    move |v, path| {
        let x = dec(v, path)?;
        let f: f64 = x.as_f64();
        if let Some(m) = min {
            if f < m {
                return Err(DecodeError::new(path, format!("must be >= {}", m)));
            }
        }
        if let Some(m) = max {
            if f > m {
                return Err(DecodeError::new(path, format!("must be <= {}", m)));
            }
        }
        Ok(x)
    }
}

fn constant<T: PartialEq + Serialize>(dec: impl Fn(&Value, &str) -> Res<T>, want: T) -> impl Fn(&Value, &str) -> Res<T> {
    move |v, path| match dec(v, path) {
        Ok(x) if x == want => Ok(x),
        _ => Err(DecodeError::new(path, format!("expected {}, got {}", to_value(&want).unwrap_or(Value::Null), v))),
    }
}

fn quote_all(values: &[&str]) -> String {
    values.iter().map(|v| Value::from(*v).to_string()).collect::<Vec<_>>().join(", ")
}

fn decode_enum(values: &'static [&'static str]) -> impl Fn(&Value, &str) -> Res<String> {
    move |v, path| match v.as_str() {
        Some(s) if values.contains(&s) => Ok(s.to_string()),
        _ => Err(DecodeError::new(path, format!("expected one of {}, got {}", quote_all(values), v))),
    }
}

fn decode_list<T>(dec: impl Fn(&Value, &str) -> Res<T>, max_items: usize) -> impl Fn(&Value, &str) -> Res<Vec<T>> {
    move |v, path| {
        let items = v.as_array().ok_or_else(|| expected("array", v, path))?;
        if items.len() > max_items {
            return Err(DecodeError::new(path, format!("at most {} items", max_items)));
        }
        items.iter().enumerate().map(|(i, x)| dec(x, &format!("{}[{}]", path, i))).collect()
    }
}

fn decode_map<T>(dec: impl Fn(&Value, &str) -> Res<T>) -> impl Fn(&Value, &str) -> Res<BTreeMap<String, T>> {
    move |v, path| {
        let o = decode_object(v, path)?;
        o.iter().map(|(k, x)| Ok((k.clone(), dec(x, &at(path, k))?))).collect()
    }
}

fn tag_of<'a>(v: &'a Value, path: &str, member: &str, values: &[&str]) -> Res<&'a str> {
    let o = decode_object(v, path)?;
    match o.get(member) {
        None => Err(DecodeError::new(&at(path, member), "required")),
        Some(t) => match t.as_str() {
            Some(s) if values.contains(&s) => Ok(s),
            _ => Err(DecodeError::new(&at(path, member), format!("expected one of {}, got {}", quote_all(values), t))),
        },
    }
}

fn jsonrpc_kind_of(v: &Value, path: &str, kinds: &[&str]) -> Res<&'static str> {
    let o = decode_object(v, path)?;
    let kind = if o.contains_key("method") {
        if o.contains_key("id") { "request" } else { "notification" }
    } else if o.contains_key("result") {
        "result"
    } else if o.contains_key("error") {
        "error"
    } else {
        return Err(DecodeError::new(path, "not a JSON-RPC message (no method, result or error)"));
    };
    if !kinds.contains(&kind) {
        return Err(DecodeError::new(path, format!("a JSON-RPC {} is not one of: {}", kind, kinds.join(", "))));
    }
    Ok(kind)
}

fn no_variant(path: &str, name: &str, errors: &[String]) -> DecodeError {
    DecodeError::new(path, format!("matches no variant of {} ({})", name, errors.join("; ")))
}
`;

/** Files of the Rust crate, relative to generated/<rev>/. */
export function emitRust(model: ProtocolModel): Map<string, string> {
  const e = new RustEmitter(model);
  return new Map([
    ['bindings/rust/Cargo.toml', e.cargo()],
    ['bindings/rust/src/lib.rs', e.lib()],
  ]);
}
