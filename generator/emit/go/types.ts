// size: the Go type mapping shared by the Go bindings and SDK: one case per schema shape
/**
 * The Go message types of a revision for the Go SDK (generator/emit/go/sdk.ts): the shape's
 * declarations as Go structs, sealed-interface unions and aliases, each with the decoder and the
 * appender the runtime's JSON helpers (mcpgen.dev/runtime/codegen) make allocation-light:
 *
 * - a struct's decoder walks the members once (`codegen.Members`), decodes each into its field,
 *   checks required members with a bit mask, keeps undeclared members in `Extra` or refuses them
 *   where the schema closes the object; errors are `*codegen.DecodeError` naming the path
 *   (`content[2].data: required`), built only on failure;
 * - `AppendJSON` writes the members in key order (then `Extra`'s), constants from the type, and
 *   fails on a required member that is nil (`*codegen.EncodeError`); `MarshalJSON` and
 *   `UnmarshalJSON` wrap them for encoding/json;
 * - members the runtime fills are not required of a handler: `resultType` (written "complete",
 *   or "input_required" for InputRequiredResult, when empty), the caching hints `ttlMs` and
 *   `cacheScope`, and the `_meta` of request params in the stateless revisions.
 *
 * Field names are the members' in Go case with Go's initialisms (`uri` → `URI`, `mimeType` →
 * `MIMEType`, `_meta` → `Meta`).
 */
import type { Field, StructDecl, Ty, UnionDecl } from '../shape.js';
import { GoTypeMap } from './common.js';
import { pascal, uniqueNames } from '../naming.js';

const str = (s: string): string => JSON.stringify(s);

/** Words Go writes in capitals (Effective Go, "MixedCaps"; the usual initialisms). */
const INITIALISMS = new Set([
  'Api',
  'Html',
  'Http',
  'Https',
  'Id',
  'Ids',
  'Json',
  'Jsonrpc',
  'Mime',
  'Rpc',
  'Sql',
  'Ttl',
  'Ui',
  'Uri',
  'Uris',
  'Url',
  'Urls',
  'Utf8',
]);

/** A member's Go field name: `mimeType` → `MIMEType`, `_meta` → `Meta`, `requestId` → `RequestID`. */
export function goFieldName(json: string): string {
  const words = pascal(json).match(/[A-Z][a-z0-9]*|[0-9]+|[a-z][a-z0-9]*/g) ?? [pascal(json)];
  return words
    .map((w) =>
      INITIALISMS.has(w)
        ? w.endsWith('s') && w !== 'Https'
          ? `${w.slice(0, -1).toUpperCase()}s`
          : w.toUpperCase()
        : w,
    )
    .join('');
}

/** Comment lines (`// …`) at an indentation; empty lines become `//`. */
export function comments(lines: string[], indent = ''): string {
  return lines.map((l) => (l ? `${indent}// ${l}` : `${indent}//`)).join('\n');
}

/** How a struct's member is stored, read and written. */
type Mode =
  /** a value that must be present */
  | 'required'
  /** a pointer (or nil-able value) written when set */
  | 'optional'
  /** a required constant: not stored, written from the type, checked on read */
  | 'const'
  /** `resultType`: a string, absent on read is "", written as its default when "" */
  | 'defaulted';

export interface FieldView {
  name: string;
  type: string;
  doc: string;
  key: string;
  /** The statements of the member's `case` in the decoder (3 tabs deep). */
  decode: string;
  /** The statements that append the member (1 tab deep). */
  encode: string;
  /** Whether `encode` uses `err`. */
  usesErr: boolean;
  stored: boolean;
}

export interface StructView {
  name: string;
  doc: string;
  fields: FieldView[];
  /** The fields in key order, for the appender. */
  encodeOrder: FieldView[];
  open: boolean;
  extraType: string;
  /** The statements of the decoder's `default` case (3 tabs deep). */
  extraDecode: string;
  extraEncoder: string;
  declaredVar: string;
  declared: string;
  required: Array<{ bit: string; key: string }>;
  hasRequired: boolean;
  usesErr: boolean;
  /** InputRequiredResult: says so to the runtime (session.InputRequired). */
  inputRequired: boolean;
  /** The Go fields of `ttlMs` and `cacheScope`, which the runtime fills when left nil (session.CacheHinted). */
  cacheHints: { ttl: string; scope: string } | null;
}

export interface VariantView {
  /** The Go type of the variant (`*TextContent`, `*ContentBlockVariant2`). */
  type: string;
  /** The visitor method name. */
  name: string;
  decoder: string;
  /** The tag value (tagged unions). */
  tag: string;
  tagLit: string;
  wrapper?: { name: string; valueType: string; decode: string; encode: string; usesErr: boolean; doc: string };
}

export interface UnionView {
  name: string;
  doc: string;
  variants: VariantView[];
  tagged: boolean;
  tagMember: string;
  tagValues: string;
  jsonrpc: boolean;
  jsonrpcKinds: string;
  untagged: boolean;
  nameLit: string;
}

export interface AliasView {
  name: string;
  doc: string;
  target: string;
  returnType: string;
  decode: string;
}

export interface TypesView {
  structs: StructView[];
  unions: UnionView[];
  aliases: AliasView[];
  /** Declarations in name order: `{ struct }`, `{ union }` or `{ alias }`, with their name. */
  decls: Array<{ name: string; lit: string; struct?: StructView; union?: UnionView; alias?: AliasView }>;
  /** The package uses encoding/json (json.RawMessage). */
  usesJSON: boolean;
  /** The named decoders and appenders of composite types. */
  helpers: string[];
}

/** The Go types of a revision's shape, with the SDK's decoders and appenders. */
export class GoTypes extends GoTypeMap {
  /** Named decoders and appenders of composite types (no function literal in generated code). */
  readonly helpers = new Map<string, { name: string; code: string }>();

  /** The name of a helper function for `key`, made once with `code(name)`. */
  helper(key: string, prefix: string, code: (name: string) => string): string {
    let h = this.helpers.get(key);
    if (!h) {
      const name = `${prefix}${this.helpers.size + 1}`;
      h = { name, code: '' };
      this.helpers.set(key, h);
      h.code = code(name);
    }
    return h.name;
  }

  /** Follows aliases. */
  resolve(t: Ty): Ty {
    for (let i = 0; i < 16 && t.k === 'ref'; i++) {
      const d = this.decl(t.name);
      if (d?.kind !== 'alias') break;
      t = d.ty;
    }
    return t;
  }

  /** An expression of type `func([]byte) (T, error)` decoding `t`. */
  decFunc(t: Ty): string {
    switch (t.k) {
      case 'ref':
        return `decode${t.name}`;
      case 'string':
        if (!t.enum) return 'codegen.String';
        break;
      case 'integer':
      case 'number':
        if (t.min === undefined && t.max === undefined) return t.k === 'integer' ? 'codegen.Int' : 'codegen.Float';
        break;
      case 'boolean':
        return 'codegen.Bool';
      case 'any':
        return 'codegen.Any';
      case 'null':
        return 'codegen.NullValue';
      case 'map':
        if (this.resolve(t.values).k === 'any') return 'codegen.RawMap';
        break;
    }
    const type = this.goType(t);
    return this.helper(
      `dec ${JSON.stringify(t)}`,
      'decodeValue',
      (name) => `func ${name}(b []byte) (${type}, error) {\n\treturn ${this.decCall(t, 'b')}\n}`,
    );
  }

  /** An expression of type `(T, error)` decoding the bytes `v` as `t`. */
  decCall(t: Ty, v: string): string {
    switch (t.k) {
      case 'ref':
        return `decode${t.name}(${v})`;
      case 'string':
        return t.enum ? `codegen.Enum(${v}, []string{${t.enum.map(str).join(', ')}})` : `codegen.String(${v})`;
      case 'integer':
      case 'number': {
        const base = t.k === 'integer' ? 'Int' : 'Float';
        if (t.min === undefined && t.max === undefined) return `codegen.${base}(${v})`;
        return `codegen.${base}In(${v}, ${t.min !== undefined}, ${t.min ?? 0}, ${t.max !== undefined}, ${t.max ?? 0})`;
      }
      case 'boolean':
        return `codegen.Bool(${v})`;
      case 'null':
        return `codegen.NullValue(${v})`;
      case 'const': {
        const c = t.value;
        if (typeof c === 'string') return `codegen.StringConst(${v}, ${str(c)})`;
        if (typeof c === 'boolean') return `codegen.BoolConst(${v}, ${c})`;
        return Number.isInteger(c) ? `codegen.IntConst(${v}, ${c})` : `codegen.FloatConst(${v}, ${c})`;
      }
      case 'any':
        return `codegen.Any(${v})`;
      case 'prims': {
        const kinds = t.kinds.map((k) => `codegen.Kind${k.charAt(0).toUpperCase()}${k.slice(1)}`).join('|');
        return `codegen.Prims(${v}, ${kinds})`;
      }
      case 'array':
        return `codegen.List(${v}, ${t.maxItems ?? -1}, ${this.decFunc(t.items)})`;
      case 'map':
        return this.resolve(t.values).k === 'any'
          ? `codegen.RawMap(${v})`
          : `codegen.Map(${v}, ${this.decFunc(t.values)})`;
    }
  }

  /** An expression of type `func([]byte, T) ([]byte, error)` appending `t`. */
  encFunc(t: Ty): string {
    const r = this.resolve(t);
    switch (r.k) {
      case 'string':
        if (!r.enum) return 'codegen.StringValue';
        break;
      case 'integer':
        return 'codegen.IntValue';
      case 'number':
        return 'codegen.FloatValue';
      case 'boolean':
        return 'codegen.BoolValue';
      case 'any':
      case 'prims':
      case 'null':
        return 'codegen.AppendRaw';
      case 'ref':
        return `codegen.AppendItem[${this.goType(t)}]`;
      case 'map':
        if (this.resolve(r.values).k === 'any') return 'codegen.AppendRawMap';
        break;
    }
    const type = this.goType(t);
    return this.helper(
      `enc ${JSON.stringify(t)}`,
      'appendValue',
      (name) => `func ${name}(b []byte, v ${type}) ([]byte, error) {\n\t${this.encValue(t, 'v').expr}\n}`,
    );
  }

  /**
   * How to append the value `x` of type `t`: `expr` is a `return`-ready statement for `encFunc`
   * literals; `stmt` appends to `b` (with `err`) inside a method, `fails` whether it sets err.
   */
  encValue(t: Ty, x: string): { expr: string; stmt: string; fails: boolean } {
    const r = this.resolve(t);
    const plain = (call: string) => ({ expr: `return ${call}, nil`, stmt: `b = ${call}`, fails: false });
    const failing = (call: string) => ({
      expr: `return ${call}`,
      stmt: `if b, err = ${call}; err != nil {`,
      fails: true,
    });
    switch (r.k) {
      case 'string':
        return r.enum
          ? failing(`codegen.AppendEnum(b, ${x}, []string{${r.enum.map(str).join(', ')}})`)
          : plain(`codegen.AppendString(b, ${x})`);
      case 'integer':
        return plain(`codegen.AppendInt(b, ${x})`);
      case 'number':
        return failing(`codegen.AppendFloat(b, ${x})`);
      case 'boolean':
        return plain(`codegen.AppendBool(b, ${x})`);
      case 'const':
        return plain(`append(b, ${str(JSON.stringify(r.value))}...)`);
      case 'null':
      case 'any':
      case 'prims':
        return failing(`codegen.AppendRaw(b, ${x})`);
      case 'ref':
        return failing(this.isStruct(r) ? `${x}.AppendJSON(b)` : `codegen.AppendValue(b, ${x})`);
      case 'array': {
        const it = this.resolve(r.items);
        if (it.k === 'string' && !it.enum) return plain(`codegen.AppendStrings(b, ${x})`);
        if (it.k === 'ref') return failing(`codegen.AppendList(b, ${x})`);
        return failing(`codegen.AppendListFunc(b, ${x}, ${this.encFunc(r.items)})`);
      }
      case 'map':
        if (this.resolve(r.values).k === 'any') return failing(`codegen.AppendRawMap(b, ${x})`);
        return failing(`codegen.AppendMap(b, ${x}, ${this.encFunc(r.values)})`);
    }
  }

  /** How a struct stores its member `f`. */
  mode(f: Field): Mode {
    if (f.json === 'resultType' && f.ty.k === 'string' && !f.ty.enum) return 'defaulted';
    if (f.json === 'ttlMs' || f.json === 'cacheScope') return 'optional';
    if (f.json === '_meta' && f.ty.k === 'ref' && f.ty.name === 'RequestMetaObject') return 'optional';
    if (f.required && f.ty.k === 'const') return 'const';
    return f.required ? 'required' : 'optional';
  }

  struct(d: StructDecl): StructView {
    const names = uniqueNames(
      d.fields.map((f) => goFieldName(f.json)),
      new Set(['Extra']),
      d.extra === 'refuse' ? new Set() : new Set(['Extra']),
    );
    const required: Array<{ bit: string; key: string }> = [];
    let usesErr = false;
    const fields = d.fields.map((f, i): FieldView => {
      const mode = this.mode(f);
      const name = names[i];
      const key = str(f.json);
      const type = mode === 'optional' && !this.nilable(f.ty) ? `*${this.goType(f.ty)}` : this.goType(f.ty);
      const docLines = [...f.doc];
      if (mode === 'required') docLines.push(...(docLines.length ? ['', 'Required.'] : ['Required.']));
      if (mode === 'defaulted') {
        const def = d.name === 'InputRequiredResult' ? 'input_required' : 'complete';
        docLines.push(...(docLines.length ? [''] : []), `Written as "${def}" when empty.`);
      }
      if (!docLines.length) docLines.push(mode === 'const' ? 'Constant.' : 'Optional.');
      const at = `codegen.At(err, ${key})`;
      let decode: string;
      const t3 = '\t\t\t';
      if (mode === 'const') {
        const c = (f.ty as { value: string | number | boolean }).value;
        const check =
          typeof c === 'string'
            ? `codegen.ConstString(o.Value(), ${str(c)})`
            : typeof c === 'boolean'
              ? `codegen.ConstBool(o.Value(), ${c})`
              : `codegen.ConstNumber(o.Value(), ${c})`;
        decode = `${t3}if err = ${check}; err != nil {\n${t3}\treturn nil, ${at}\n${t3}}`;
      } else if (mode === 'optional' && !this.nilable(f.ty)) {
        decode = `${t3}v, err := ${this.decCall(f.ty, 'o.Value()')}\n${t3}if err != nil {\n${t3}\treturn nil, ${at}\n${t3}}\n${t3}x.${name} = &v`;
      } else {
        decode = `${t3}if x.${name}, err = ${this.decCall(f.ty, 'o.Value()')}; err != nil {\n${t3}\treturn nil, ${at}\n${t3}}`;
      }
      if (mode === 'required' || mode === 'const') {
        const bit = (1n << BigInt(required.length)).toString();
        required.push({ bit, key });
        decode += `\n${t3}have |= ${bit}`;
      }
      // encoding
      const keyLit = str(`${JSON.stringify(f.json)}:`);
      const open = `\tb = append(codegen.Comma(b), ${keyLit}...)`;
      let encode: string;
      let fails = false;
      const valueStmt = (expr: string, indent: string): string => {
        const v = this.encValue(f.ty, expr);
        fails = fails || v.fails;
        return v.fails ? `${indent}${v.stmt}\n${indent}\treturn b, ${at}\n${indent}}` : `${indent}${v.stmt}`;
      };
      if (mode === 'const') {
        encode = `${open}\n${valueStmt('', '\t')}`;
      } else if (mode === 'defaulted') {
        const def = d.name === 'InputRequiredResult' ? 'input_required' : 'complete';
        encode = `${open}\n\tif x.${name} == "" {\n\t\tb = append(b, ${str(JSON.stringify(def))}...)\n\t} else {\n${valueStmt(`x.${name}`, '\t\t')}\n\t}`;
      } else if (mode === 'optional') {
        const deref = this.nilable(f.ty) ? `x.${name}` : `*x.${name}`;
        encode = `\tif x.${name} != nil {\n\t${open}\n${valueStmt(deref, '\t\t')}\n\t}`;
      } else {
        const r = this.resolve(f.ty);
        const mustExist = r.k === 'ref';
        encode = `${mustExist ? `\tif x.${name} == nil {\n\t\treturn b, codegen.MissingRequired(${key})\n\t}\n` : ''}${open}\n${valueStmt(`x.${name}`, '\t')}`;
      }
      usesErr = usesErr || fails;
      return {
        name,
        type,
        doc: comments(docLines, '\t'),
        key,
        decode,
        encode,
        usesErr: fails,
        stored: mode !== 'const',
      };
    });
    const open = d.extra !== 'refuse';
    const extraTy: Ty = d.extra === 'refuse' ? { k: 'any' } : d.extra;
    const t3 = '\t\t\t';
    const extraDecode = open
      ? `${t3}ev, err := ${this.decCall(extraTy, 'o.Value()')}\n${t3}if err != nil {\n${t3}\treturn nil, codegen.At(err, string(o.Key()))\n${t3}}\n${t3}if x.Extra == nil {\n${t3}\tx.Extra = map[string]${this.goType(extraTy)}{}\n${t3}}\n${t3}x.Extra[string(o.Key())] = ev`
      : `${t3}return nil, codegen.NotAllowed(string(o.Key()))`;
    if (open) usesErr = true;
    if (required.length > 64) throw new Error(`${d.name}: more than 64 required members`);
    /** The fields of the caching hints (2026-07-28 CacheableResult), when the struct has both. */
    const cacheHints = () => {
      const ttl = fields.find((f) => f.key === '"ttlMs"' && f.type === '*int64');
      const scope = fields.find((f) => f.key === '"cacheScope"' && f.type === '*string');
      return ttl && scope ? { ttl: ttl.name, scope: scope.name } : null;
    };
    const declared = d.fields.map((f) => f.json).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const encodeOrder = [...fields].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return {
      name: d.name,
      doc: comments(
        d.doc.length ? [`${d.name} is the ${d.name} object.`, '', ...d.doc] : [`${d.name} is the ${d.name} object.`],
      ),
      fields,
      encodeOrder,
      open,
      extraType: `map[string]${this.goType(extraTy)}`,
      extraDecode,
      extraEncoder: this.encFunc(extraTy),
      declaredVar: `declared${d.name}`,
      declared: `[]string{${declared.map(str).join(', ')}}`,
      required,
      hasRequired: required.length > 0,
      usesErr,
      inputRequired: d.name === 'InputRequiredResult' && fields.some((f) => f.key === '"resultType"'),
      cacheHints: cacheHints(),
    };
  }

  union(d: UnionDecl): UnionView {
    const wrappers = this.wrappers.get(d.name)!;
    const variants = d.variants.map((v, i): VariantView => {
      const w = wrappers.get(i);
      const tagValues = d.tag.kind === 'const' ? d.tag.values : d.tag.kind === 'jsonrpc' ? d.tag.kinds : [];
      if (!w) {
        const name = (v as { name: string }).name;
        return {
          type: `*${name}`,
          name,
          decoder: `decode${name}`,
          tag: tagValues[i] ?? '',
          tagLit: str(tagValues[i] ?? ''),
        };
      }
      const ev = this.encValue(v, 'x.Value');
      return {
        type: `*${w}`,
        name: w,
        decoder: `decode${w}`,
        tag: tagValues[i] ?? '',
        tagLit: str(tagValues[i] ?? ''),
        wrapper: {
          name: w,
          valueType: this.goType(v),
          decode: this.decCall(v, 'data'),
          encode: ev.fails ? `\t${ev.stmt}\n\t\treturn b, err\n\t}\n\treturn b, nil` : `\t${ev.stmt}\n\treturn b, nil`,
          usesErr: ev.fails,
          doc: comments([`${w} is the variant ${i + 1} of ${d.name}: a ${this.goType(v)}.`]),
        },
      };
    });
    return {
      name: d.name,
      doc: comments([
        `${d.name} is one of: ${variants.map((v) => v.type).join(', ')}.`,
        ...(d.doc.length ? ['', ...d.doc] : []),
      ]),
      variants,
      tagged: d.tag.kind === 'const',
      tagMember: d.tag.kind === 'const' ? str(d.tag.member) : '',
      tagValues: d.tag.kind === 'const' ? `[]string{${d.tag.values.map(str).join(', ')}}` : '',
      jsonrpc: d.tag.kind === 'jsonrpc',
      jsonrpcKinds: d.tag.kind === 'jsonrpc' ? `[]string{${d.tag.kinds.map(str).join(', ')}}` : '',
      nameLit: str(d.name),
      untagged: d.tag.kind === 'none',
    };
  }

  alias(name: string, t: Ty, doc: string[]): AliasView {
    return {
      name,
      doc: comments([`${name} is a ${this.goType(t)}.`, ...(doc.length ? ['', ...doc] : [])]),
      target: this.aliasTarget(t),
      returnType: this.goType({ k: 'ref', name }),
      decode: this.decCall(t, 'data'),
    };
  }

  view(): TypesView {
    const structs: StructView[] = [];
    const unions: UnionView[] = [];
    const aliases: AliasView[] = [];
    const decls: TypesView['decls'] = [];
    for (const d of this.shape.decls) {
      if (d.kind === 'struct') {
        const s = this.struct(d);
        structs.push(s);
        decls.push({ name: d.name, lit: str(d.name), struct: s });
      } else if (d.kind === 'union') {
        const u = this.union(d);
        unions.push(u);
        decls.push({ name: d.name, lit: str(d.name), union: u });
      } else {
        const a = this.alias(d.name, d.ty, d.doc);
        aliases.push(a);
        decls.push({ name: d.name, lit: str(d.name), alias: a });
      }
    }
    const helpers = [...this.helpers.values()].map((h) => h.code);
    return { structs, unions, aliases, decls, usesJSON: true, helpers };
  }
}
