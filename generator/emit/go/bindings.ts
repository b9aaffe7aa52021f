/**
 * Go bindings from the ProtocolModel: one module per revision (`go.mod`, package
 * `mcp<rev digits>`), standard library only, Go 1.19+.
 *
 * - every object type is a struct with `MarshalJSON` / `UnmarshalJSON`; required scalars are
 *   values, optional ones pointers, objects always pointers, lists / maps nil when absent;
 *   constant members (`type: "text"`, `jsonrpc: "2.0"`) are written from the type and checked
 *   on decode; members the schema does not declare are kept in `Extra` (or refused where the
 *   schema closes the object); any JSON value is a `json.RawMessage`;
 * - every union is an interface with an unexported marker method, implemented by its variant
 *   structs (`*TextContent`) or by a `<Union>VariantN{Value}` wrapper for a variant that is not
 *   a struct; decoding dispatches on the discriminant (`type`, `method`, the JSON-RPC message
 *   kind) or, without one, takes the variant that decodes with the fewest undeclared members;
 *   `Match<Union>(value, visitor)` is the exhaustive match (a visitor missing a variant does
 *   not compile);
 * - decoders validate and return `*DecodeError{Path, Message}`, e.g.
 *   `params.content[2].data: required`;
 * - the method maps (`ClientRequests`, `ServerRequests`, `ClientNotifications`,
 *   `ServerNotifications`), error codes, protocol version and revision constants.
 */
import type { ProtocolModel } from '../../model.js';
import { byCodeUnit } from '../../util.js';
import { preamble } from '../common.js';
import { pascal, uniqueNames } from '../naming.js';
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

/** Package name of a revision: `mcp20251125`, `mcpdraft`. */
export function goPackageName(revision: string): string {
  return `mcp${revision.replace(/[^A-Za-z0-9]/g, '').toLowerCase()}`;
}

/** Module path of a revision's bindings. */
export function goModulePath(revision: string): string {
  return `mcpgen.dev/bindings/${goPackageName(revision)}`;
}

const str = (s: string): string => JSON.stringify(s);

/** Line comments; a `*/ ` needs no escaping in `; //` comments. */
function comment(lines: string[], indent = ''): string[] {
  return lines.map((l) => (l ? `${indent}// ${l}` : `${indent}//`));
}

class GoEmitter {
  readonly shape: Shape;
  /** Wrapper types of union variants that are not structs: union → index → wrapper name. */
  readonly wrappers = new Map<string, Map<number, string>>();

  constructor(readonly model: ProtocolModel) {
    this.shape = buildShape(model);
    const taken = new Set(this.shape.decls.map((d) => d.name));
    for (const d of this.shape.decls) {
      if (d.kind !== 'union') continue;
      const m = new Map<number, string>();
      d.variants.forEach((v, i) => {
        if (this.isStruct(v)) return;
        let name = `${d.name}Variant${i + 1}`;
        for (let n = 2; taken.has(name); n++) name = `${d.name}Variant${i + 1}_${n}`;
        taken.add(name);
        m.set(i, name);
      });
      this.wrappers.set(d.name, m);
    }
  }

  decl(name: string): Decl | undefined {
    return this.shape.byName.get(name);
  }

  isStruct(t: Ty): t is { k: 'ref'; name: string } {
    return t.k === 'ref' && this.decl(t.name)?.kind === 'struct';
  }

  /** Whether a Go type of `t` is nil-able (pointer, slice, map, interface, RawMessage). */
  nilable(t: Ty): boolean {
    if (t.k === 'ref') {
      const d = this.decl(t.name)!;
      if (d.kind === 'alias') return this.nilable(d.ty);
      return true;
    }
    return ['any', 'array', 'map', 'prims', 'null'].includes(t.k);
  }

  /** The Go type of a value. */
  goType(t: Ty): string {
    switch (t.k) {
      case 'ref': {
        const d = this.decl(t.name)!;
        const toStruct = d.kind === 'struct' || (d.kind === 'alias' && this.isStruct(d.ty));
        return toStruct ? `*${t.name}` : t.name;
      }
      case 'string':
        return 'string';
      case 'integer':
        return 'int64';
      case 'number':
        return 'float64';
      case 'boolean':
        return 'bool';
      case 'const':
        return typeof t.value === 'string'
          ? 'string'
          : typeof t.value === 'boolean'
            ? 'bool'
            : Number.isInteger(t.value)
              ? 'int64'
              : 'float64';
      case 'null':
      case 'any':
      case 'prims':
        return 'json.RawMessage';
      case 'array':
        return `[]${this.goType(t.items)}`;
      case 'map':
        return `map[string]${this.goType(t.values)}`;
    }
  }

  /** A decoder expression of type `func(json.RawMessage, string) (T, error)`. */
  dec(t: Ty): string {
    switch (t.k) {
      case 'ref':
        return `decode${t.name}`;
      case 'string':
        return t.enum ? `decodeEnum(${t.enum.map(str).join(', ')})` : 'decodeString';
      case 'integer':
      case 'number': {
        const base = t.k === 'integer' ? 'decodeInteger' : 'decodeNumber';
        if (t.min === undefined && t.max === undefined) return base;
        const bound = (v: number | undefined) => (v === undefined ? 'nil' : `bound(${v})`);
        return `inRange(${base}, ${bound(t.min)}, ${bound(t.max)})`;
      }
      case 'boolean':
        return 'decodeBoolean';
      case 'null':
        return 'decodePrims("null")';
      case 'const': {
        const v = t.value;
        if (typeof v === 'string') return `constant(decodeString, ${str(v)})`;
        if (typeof v === 'boolean') return `constant(decodeBoolean, ${v})`;
        return Number.isInteger(v) ? `constant(decodeInteger, int64(${v}))` : `constant(decodeNumber, float64(${v}))`;
      }
      case 'any':
        return 'decodeAny';
      case 'prims':
        return `decodePrims(${t.kinds.map(str).join(', ')})`;
      case 'array':
        return t.maxItems !== undefined
          ? `decodeListMax(${this.dec(t.items)}, ${t.maxItems})`
          : `decodeList(${this.dec(t.items)})`;
      case 'map':
        return `decodeMap(${this.dec(t.values)})`;
    }
  }

  /** Go literal of a constant member's value. */
  constLiteral(v: string | number | boolean): string {
    return typeof v === 'string' ? str(v) : String(v);
  }

  /** Constant members are not stored: the type says them. */
  stored(f: Field): boolean {
    return !(f.required && f.ty.k === 'const');
  }

  fieldNames(d: StructDecl): string[] {
    return uniqueNames(
      d.fields.map((f) => pascal(f.json)),
      new Set(),
      d.extra === 'refuse' ? new Set() : new Set(['Extra']),
    );
  }

  fieldType(f: Field): string {
    const t = this.goType(f.ty);
    return f.required || this.nilable(f.ty) ? t : `*${t}`;
  }

  struct(d: StructDecl): string[] {
    const names = this.fieldNames(d);
    const out: string[] = [''];
    out.push(
      ...comment(
        d.doc.length ? [`${d.name} is the ${d.name} object.`, '', ...d.doc] : [`${d.name} is the ${d.name} object.`],
      ),
    );
    out.push(`type ${d.name} struct {`);
    d.fields.forEach((f, i) => {
      if (!this.stored(f)) return;
      out.push(...comment(f.doc, '\t'));
      out.push(`\t${names[i]} ${this.fieldType(f)}${f.required ? ' // required' : ''}`);
    });
    if (d.extra !== 'refuse') {
      out.push('\t// Extra holds the members the schema does not declare, as decoded.');
      out.push(`\tExtra map[string]${this.goType(d.extra)}`);
    }
    out.push('}');
    out.push('');
    // decoder
    out.push(`func decode${d.name}(data json.RawMessage, path string) (*${d.name}, error) {`);
    out.push('\to, err := decodeObject(data, path)');
    out.push('\tif err != nil {');
    out.push('\t\treturn nil, err');
    out.push('\t}');
    out.push(`\tx := &${d.name}{}`);
    d.fields.forEach((f, i) => {
      const key = str(f.json);
      if (!this.stored(f)) {
        out.push(`\tif _, err := required(o, ${key}, path, ${this.dec(f.ty)}); err != nil {`);
      } else if (f.required) {
        out.push(`\tif x.${names[i]}, err = required(o, ${key}, path, ${this.dec(f.ty)}); err != nil {`);
      } else if (this.nilable(f.ty)) {
        out.push(`\tif x.${names[i]}, err = optional(o, ${key}, path, ${this.dec(f.ty)}); err != nil {`);
      } else {
        out.push(`\tif x.${names[i]}, err = optionalPtr(o, ${key}, path, ${this.dec(f.ty)}); err != nil {`);
      }
      out.push('\t\treturn nil, err');
      out.push('\t}');
    });
    const known = `[]string{${d.fields.map((f) => str(f.json)).join(', ')}}`;
    if (d.extra === 'refuse') {
      out.push(`\tif err := closed(o, path, ${known}); err != nil {`);
      out.push('\t\treturn nil, err');
      out.push('\t}');
    } else {
      out.push(`\tif x.Extra, err = extra(o, path, ${known}, ${this.dec(d.extra)}); err != nil {`);
      out.push('\t\treturn nil, err');
      out.push('\t}');
    }
    out.push('\treturn x, nil');
    out.push('}');
    out.push('');
    out.push(`// UnmarshalJSON decodes and validates a ${d.name}; errors are *DecodeError.`);
    out.push(`func (x *${d.name}) UnmarshalJSON(data []byte) error {`);
    out.push(`\tv, err := decode${d.name}(data, "")`);
    out.push('\tif err != nil {');
    out.push('\t\treturn err');
    out.push('\t}');
    out.push('\t*x = *v');
    out.push('\treturn nil');
    out.push('}');
    out.push('');
    out.push(`// MarshalJSON encodes a ${d.name}: absent optional members left out, constants written.`);
    out.push(`func (x ${d.name}) MarshalJSON() ([]byte, error) {`);
    out.push(`\te := newObjectEncoder(${d.extra === 'refuse' ? '0' : 'len(x.Extra)'})`);
    if (d.extra !== 'refuse') {
      out.push('\tfor k, v := range x.Extra {');
      out.push('\t\te.put(k, v)');
      out.push('\t}');
    }
    d.fields.forEach((f, i) => {
      const key = str(f.json);
      if (!this.stored(f))
        out.push(`\te.put(${key}, ${this.constLiteral((f.ty as { value: string | number | boolean }).value)})`);
      else if (f.required) out.push(`\te.put(${key}, x.${names[i]})`);
      else {
        out.push(`\tif x.${names[i]} != nil {`);
        out.push(`\t\te.put(${key}, x.${names[i]})`);
        out.push('\t}');
      }
    });
    out.push('\treturn e.bytes()');
    out.push('}');
    if (d.extra !== 'refuse') {
      out.push('');
      out.push(`func (x *${d.name}) undeclared() int { return len(x.Extra) }`);
    }
    return out;
  }

  union(d: UnionDecl): string[] {
    const out: string[] = [''];
    const wrappers = this.wrappers.get(d.name)!;
    const variantName = (i: number): string => wrappers.get(i) ?? (d.variants[i] as { name: string }).name;
    const variantType = (i: number): string => (wrappers.has(i) ? `*${wrappers.get(i)}` : `*${variantName(i)}`);
    out.push(
      ...comment([
        `${d.name} is one of: ${d.variants.map((_, i) => variantType(i)).join(', ')}.`,
        ...(d.doc.length ? ['', ...d.doc] : []),
      ]),
    );
    out.push(`type ${d.name} interface {`);
    out.push(`\tis${d.name}()`);
    out.push('}');
    d.variants.forEach((v, i) => {
      if (wrappers.has(i)) {
        const w = wrappers.get(i)!;
        out.push('');
        out.push(`// ${w} is the variant ${i + 1} of ${d.name}: a ${this.goType(v)}.`);
        out.push(`type ${w} struct {`);
        out.push(`\tValue ${this.goType(v)}`);
        out.push('}');
        out.push('');
        out.push(`// MarshalJSON encodes the wrapped value.`);
        out.push(`func (x ${w}) MarshalJSON() ([]byte, error) { return json.Marshal(x.Value) }`);
        out.push('');
        out.push(`func decode${w}(data json.RawMessage, path string) (*${w}, error) {`);
        out.push(`\tv, err := ${this.dec(v)}(data, path)`);
        out.push('\tif err != nil {');
        out.push('\t\treturn nil, err');
        out.push('\t}');
        out.push(`\treturn &${w}{Value: v}, nil`);
        out.push('}');
      }
      out.push('');
      out.push(`func (*${variantName(i)}) is${d.name}() {}`);
    });
    out.push('');
    out.push(`func decode${d.name}(data json.RawMessage, path string) (${d.name}, error) {`);
    const decodeVariant = (i: number) => `decode${variantName(i)}(data, path)`;
    const tag = d.tag;
    if (tag.kind === 'const' || tag.kind === 'jsonrpc') {
      if (tag.kind === 'const') {
        out.push(`\ttag, err := tagOf(data, path, ${str(tag.member)}, []string{${tag.values.map(str).join(', ')}})`);
      } else {
        out.push(`\ttag, err := jsonrpcKindOf(data, path, []string{${tag.kinds.map(str).join(', ')}})`);
      }
      out.push('\tif err != nil {');
      out.push('\t\treturn nil, err');
      out.push('\t}');
      out.push('\tswitch tag {');
      const values = tag.kind === 'const' ? tag.values : tag.kinds;
      d.variants.forEach((_, i) => {
        out.push(`\tcase ${str(values[i])}:`);
        out.push(`\t\tv, err := ${decodeVariant(i)}`);
        out.push('\t\tif err != nil {');
        out.push('\t\t\treturn nil, err');
        out.push('\t\t}');
        out.push('\t\treturn v, nil');
      });
      out.push('\t}');
      out.push(`\treturn nil, &DecodeError{Path: path, Message: "unreachable tag " + tag}`);
    } else {
      out.push(`\tvar best ${d.name}`);
      out.push('\tvar errs []string');
      d.variants.forEach((_, i) => {
        out.push(`\tif v, err := ${decodeVariant(i)}; err != nil {`);
        out.push('\t\terrs = append(errs, err.Error())');
        out.push('\t} else if best == nil || undeclared(v) < undeclared(best) {');
        out.push('\t\tbest = v');
        out.push('\t}');
      });
      out.push('\tif best == nil {');
      out.push(`\t\treturn nil, noVariant(path, ${str(d.name)}, errs)`);
      out.push('\t}');
      out.push('\treturn best, nil');
    }
    out.push('}');
    out.push('');
    out.push(`// Decode${d.name} decodes and validates a ${d.name}; errors are *DecodeError.`);
    out.push(`func Decode${d.name}(data []byte) (${d.name}, error) { return decode${d.name}(data, "") }`);
    // visitor
    out.push('');
    out.push(
      `// ${d.name}Visitor has one method per variant of ${d.name}: a visitor that misses one does not compile.`,
    );
    out.push(`type ${d.name}Visitor[R any] interface {`);
    d.variants.forEach((_, i) => out.push(`\t${variantName(i)}(${variantType(i)}) R`));
    out.push('}');
    out.push('');
    out.push(
      `// Match${d.name} calls the visitor's method for the variant of v (exhaustive match). It panics on a nil v.`,
    );
    out.push(`func Match${d.name}[R any](v ${d.name}, visitor ${d.name}Visitor[R]) R {`);
    out.push('\tswitch x := v.(type) {');
    d.variants.forEach((_, i) => {
      out.push(`\tcase ${variantType(i)}:`);
      out.push(`\t\treturn visitor.${variantName(i)}(x)`);
    });
    out.push('\t}');
    out.push(`\tpanic("Match${d.name}: nil ${d.name}")`);
    out.push('}');
    return out;
  }

  alias(name: string, t: Ty, doc: string[]): string[] {
    const out = [''];
    out.push(...comment([`${name} is a ${this.goType(t)}.`, ...(doc.length ? ['', ...doc] : [])]));
    // A struct alias keeps the struct type (decoders give *T).
    const target = t.k === 'ref' && this.decl(t.name)?.kind === 'struct' ? t.name : this.goType(t);
    out.push(`type ${name} = ${target}`);
    out.push('');
    out.push(`func decode${name}(data json.RawMessage, path string) (${this.goType({ k: 'ref', name })}, error) {`);
    out.push(`\treturn ${this.dec(t)}(data, path)`);
    out.push('}');
    return out;
  }

  typesFile(): string {
    const m = this.model;
    const out: string[] = [preamble(m), '', `package ${goPackageName(m.revision)}`, '', 'import "encoding/json"'];
    for (const d of this.shape.decls) {
      if (d.kind === 'struct') out.push(...this.struct(d));
      else if (d.kind === 'union') out.push(...this.union(d));
      else out.push(...this.alias(d.name, d.ty, d.doc));
    }
    // aliases of structs need a decoder typed *Struct: goType of an alias-to-struct ref
    return `${out.join('\n')}\n`;
  }

  paramsTy(messageType: string): Ty | null {
    const d = this.decl(messageType);
    if (d?.kind !== 'struct') return null;
    const f = d.fields.find((x) => x.json === 'params');
    return f ? f.ty : null;
  }

  methodsFile(): string {
    const m = this.model;
    const { requests, notifications } = methodTables(m);
    const out: string[] = [
      preamble(m),
      '',
      `// Package ${goPackageName(m.revision)} holds the Model Context Protocol messages of revision ${m.revision}`,
      `// (protocol version ${m.protocolVersion}): one struct per object type, one interface per union,`,
      '// validating decoders (Decode, Decode<Union>, UnmarshalJSON) whose errors are *DecodeError naming',
      '// the failing path, and the method maps ClientRequests, ServerRequests, ClientNotifications and',
      '// ServerNotifications.',
      `package ${goPackageName(m.revision)}`,
      '',
      'import "encoding/json"',
      '',
    ];
    out.push('const (');
    out.push('\t// Revision is the schema revision these bindings were generated from.');
    out.push(`\tRevision = ${str(m.revision)}`);
    out.push('\t// ProtocolVersion is LATEST_PROTOCOL_VERSION of the revision.');
    out.push(`\tProtocolVersion = ${str(m.protocolVersion)}`);
    out.push(`\tJSONRPCVersion = ${str(String(m.constants.JSONRPC_VERSION ?? '2.0'))}`);
    out.push('\t// Lifecycle is "handshake" (initialize first) or "stateless" (every request carries its own _meta).');
    out.push(`\tLifecycle = ${str(m.lifecycle)}`);
    out.push(')');
    out.push('');
    out.push('// Error codes of this revision (schema.ts constants).');
    out.push('const (');
    const codes = Object.keys(m.errorCodes).sort(byCodeUnit);
    for (const c of codes) out.push(`\tCode${pascal(c.toLowerCase())} = ${m.errorCodes[c]}`);
    out.push(')');
    out.push('');
    out.push('// ErrorCodes maps each schema.ts error constant name to its code.');
    out.push('var ErrorCodes = map[string]int{');
    for (const c of codes) out.push(`\t${str(c)}: ${m.errorCodes[c]},`);
    out.push('}');
    const decodeFn = (t: Ty | null | string): string => {
      if (t === null) return 'nil';
      const dec = typeof t === 'string' ? `decode${t}` : this.dec(t);
      return `func(data []byte) (any, error) { return ${dec}(data, "params") }`;
    };
    const resultFn = (name: string) => `func(data []byte) (any, error) { return decode${name}(data, "result") }`;
    const reqTable = (name: string, doc: string, list: typeof requests) => {
      out.push('', `// ${name}: ${doc}, by method.`, `var ${name} = map[string]RequestInfo{`);
      for (const r of list) {
        out.push(`\t${str(r.method)}: {`);
        out.push(`\t\tMethod: ${str(r.method)},`);
        out.push(`\t\tDirection: ${str(r.direction)},`);
        out.push(`\t\tRequestType: ${str(r.requestType)},`);
        out.push(`\t\tResultType: ${str(r.resultType)},`);
        out.push(`\t\tAltResultTypes: []string{${r.altResultTypes.map(str).join(', ')}},`);
        out.push(`\t\tCapability: []string{${(r.capability ?? []).map(str).join(', ')}},`);
        out.push(`\t\tParamsRequired: ${r.paramsRequired},`);
        out.push(`\t\tDecodeRequest: func(data []byte) (any, error) { return decode${r.requestType}(data, "") },`);
        out.push(`\t\tDecodeParams: ${decodeFn(this.paramsTy(r.requestType))},`);
        out.push(`\t\tDecodeResult: ${resultFn(r.resultType)},`);
        out.push('\t},');
      }
      out.push('}');
    };
    const noteTable = (name: string, doc: string, list: typeof notifications) => {
      out.push('', `// ${name}: ${doc}, by method.`, `var ${name} = map[string]NotificationInfo{`);
      for (const n of list) {
        out.push(`\t${str(n.method)}: {`);
        out.push(`\t\tMethod: ${str(n.method)},`);
        out.push(`\t\tDirection: ${str(n.direction)},`);
        out.push(`\t\tNotificationType: ${str(n.notificationType)},`);
        out.push(`\t\tParamsRequired: ${n.paramsRequired},`);
        out.push(
          `\t\tDecodeNotification: func(data []byte) (any, error) { return decode${n.notificationType}(data, "") },`,
        );
        out.push(`\t\tDecodeParams: ${decodeFn(this.paramsTy(n.notificationType))},`);
        out.push('\t},');
      }
      out.push('}');
    };
    reqTable(
      'ClientRequests',
      'the requests a client sends',
      requests.filter((r) => r.direction === 'clientToServer'),
    );
    reqTable(
      'ServerRequests',
      'the requests a server sends',
      requests.filter((r) => r.direction === 'serverToClient'),
    );
    noteTable(
      'ClientNotifications',
      'the notifications a client sends',
      notifications.filter((n) => n.direction === 'clientToServer'),
    );
    noteTable(
      'ServerNotifications',
      'the notifications a server sends',
      notifications.filter((n) => n.direction === 'serverToClient'),
    );
    out.push(
      '',
      '// decoders holds the decoder of every declared type, by schema name.',
      'var decoders = map[string]func(json.RawMessage, string) (any, error){',
    );
    for (const d of this.shape.decls)
      out.push(
        `\t${str(d.name)}: func(data json.RawMessage, path string) (any, error) { return decode${d.name}(data, path) },`,
      );
    out.push('}');
    return `${out.join('\n')}\n`;
  }

  goMod(): string {
    return `${preamble(this.model)}\nmodule ${goModulePath(this.model.revision)}\n\ngo 1.19\n`;
  }

  runtimeFile(): string {
    return `${preamble(this.model)}\n\npackage ${goPackageName(this.model.revision)}\n${GO_RUNTIME}`;
  }
}

/** The hand-written part of every package: decoding helpers, the object encoder, the method-map records. */
const GO_RUNTIME = `
import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// DecodeError is a value that does not match its schema type. Path names the failing place
// ("params.content[2].data", empty for the value itself); Message says what is wrong
// ("required", "expected string, got integer", ...).
type DecodeError struct {
	Path    string
	Message string
}

func (e *DecodeError) Error() string {
	if e.Path == "" {
		return "(root): " + e.Message
	}
	return e.Path + ": " + e.Message
}

// Decode decodes and validates data as the schema type typeName (e.g. "JSONRPCMessage").
// The value is a pointer to the struct, or the union's interface value.
func Decode(typeName string, data []byte) (any, error) {
	dec, ok := decoders[typeName]
	if !ok {
		return nil, fmt.Errorf("no type %s in revision %s", typeName, Revision)
	}
	return dec(data, "")
}

// RequestInfo is one request of the method map.
type RequestInfo struct {
	Method string
	// Direction is "clientToServer" or "serverToClient".
	Direction   string
	RequestType string
	ResultType  string
	// AltResultTypes are other results the receiver may answer with (CreateTaskResult, InputRequiredResult).
	AltResultTypes []string
	// Capability is the capability path the receiver must declare, e.g. ["tools"].
	Capability     []string
	ParamsRequired bool
	DecodeRequest  func([]byte) (any, error)
	// DecodeParams is nil when the request has no params.
	DecodeParams func([]byte) (any, error)
	DecodeResult func([]byte) (any, error)
}

// NotificationInfo is one notification of the method map.
type NotificationInfo struct {
	Method             string
	Direction          string
	NotificationType   string
	ParamsRequired     bool
	DecodeNotification func([]byte) (any, error)
	DecodeParams       func([]byte) (any, error)
}

func at(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func kindOf(data json.RawMessage) string {
	t := bytes.TrimLeft(data, " \\t\\r\\n")
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	s := string(bytes.TrimSpace(t))
	if strings.ContainsAny(s, ".eE") {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) {
			return "integer"
		}
		return "number"
	}
	return "integer"
}

func expected(what string, data json.RawMessage, path string) error {
	return &DecodeError{Path: path, Message: "expected " + what + ", got " + kindOf(data)}
}

func decodeObject(data json.RawMessage, path string) (map[string]json.RawMessage, error) {
	if kindOf(data) != "object" {
		return nil, expected("object", data, path)
	}
	var o map[string]json.RawMessage
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, &DecodeError{Path: path, Message: err.Error()}
	}
	return o, nil
}

func required[T any](o map[string]json.RawMessage, key, path string, dec func(json.RawMessage, string) (T, error)) (T, error) {
	v, ok := o[key]
	if !ok {
		var zero T
		return zero, &DecodeError{Path: at(path, key), Message: "required"}
	}
	return dec(v, at(path, key))
}

func optional[T any](o map[string]json.RawMessage, key, path string, dec func(json.RawMessage, string) (T, error)) (T, error) {
	v, ok := o[key]
	if !ok {
		var zero T
		return zero, nil
	}
	return dec(v, at(path, key))
}

func optionalPtr[T any](o map[string]json.RawMessage, key, path string, dec func(json.RawMessage, string) (T, error)) (*T, error) {
	v, ok := o[key]
	if !ok {
		return nil, nil
	}
	x, err := dec(v, at(path, key))
	if err != nil {
		return nil, err
	}
	return &x, nil
}

func extra[T any](o map[string]json.RawMessage, path string, known []string, dec func(json.RawMessage, string) (T, error)) (map[string]T, error) {
	var out map[string]T
	for _, k := range sortedKeys(o) {
		if contains(known, k) {
			continue
		}
		v, err := dec(o[k], at(path, k))
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]T{}
		}
		out[k] = v
	}
	return out, nil
}

func closed(o map[string]json.RawMessage, path string, known []string) error {
	for _, k := range sortedKeys(o) {
		if !contains(known, k) {
			return &DecodeError{Path: at(path, k), Message: "not allowed"}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[T any](o map[string]T) []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func decodeString(data json.RawMessage, path string) (string, error) {
	if kindOf(data) != "string" {
		return "", expected("string", data, path)
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return "", &DecodeError{Path: path, Message: err.Error()}
	}
	return s, nil
}

func decodeInteger(data json.RawMessage, path string) (int64, error) {
	if kindOf(data) != "integer" {
		return 0, expected("integer", data, path)
	}
	s := string(bytes.TrimSpace(data))
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < math.MinInt64 || f > math.MaxInt64 {
		return 0, &DecodeError{Path: path, Message: "integer out of range"}
	}
	return int64(f), nil
}

func decodeNumber(data json.RawMessage, path string) (float64, error) {
	k := kindOf(data)
	if k != "integer" && k != "number" {
		return 0, expected("number", data, path)
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(data)), 64)
	if err != nil {
		return 0, &DecodeError{Path: path, Message: err.Error()}
	}
	return f, nil
}

func decodeBoolean(data json.RawMessage, path string) (bool, error) {
	if kindOf(data) != "boolean" {
		return false, expected("boolean", data, path)
	}
	return bytes.HasPrefix(bytes.TrimSpace(data), []byte("true")), nil
}

func decodeAny(data json.RawMessage, path string) (json.RawMessage, error) {
	if !json.Valid(data) {
		return nil, &DecodeError{Path: path, Message: "not JSON"}
	}
	return append(json.RawMessage(nil), data...), nil
}

func decodePrims(kinds ...string) func(json.RawMessage, string) (json.RawMessage, error) {
	return func(data json.RawMessage, path string) (json.RawMessage, error) {
		k := kindOf(data)
		for _, want := range kinds {
			if k == want || (want == "number" && k == "integer") {
				return decodeAny(data, path)
			}
		}
		return nil, expected(strings.Join(kinds, " or "), data, path)
	}
}

func bound(v float64) *float64 { return &v }

func inRange[T int64 | float64](dec func(json.RawMessage, string) (T, error), min, max *float64) func(json.RawMessage, string) (T, error) {
	return func(data json.RawMessage, path string) (T, error) {
		v, err := dec(data, path)
		if err != nil {
			return v, err
		}
		if min != nil && float64(v) < *min {
			return v, &DecodeError{Path: path, Message: "must be >= " + strconv.FormatFloat(*min, 'g', -1, 64)}
		}
		if max != nil && float64(v) > *max {
			return v, &DecodeError{Path: path, Message: "must be <= " + strconv.FormatFloat(*max, 'g', -1, 64)}
		}
		return v, nil
	}
}

func constant[T comparable](dec func(json.RawMessage, string) (T, error), want T) func(json.RawMessage, string) (T, error) {
	return func(data json.RawMessage, path string) (T, error) {
		v, err := dec(data, path)
		if err != nil || v != want {
			w, _ := json.Marshal(want)
			return v, &DecodeError{Path: path, Message: "expected " + string(w) + ", got " + string(bytes.TrimSpace(data))}
		}
		return v, nil
	}
}

func decodeEnum(values ...string) func(json.RawMessage, string) (string, error) {
	return func(data json.RawMessage, path string) (string, error) {
		s, err := decodeString(data, path)
		if err == nil && contains(values, s) {
			return s, nil
		}
		return "", &DecodeError{Path: path, Message: "expected one of " + quoteAll(values) + ", got " + string(bytes.TrimSpace(data))}
	}
}

func quoteAll(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

func decodeList[T any](dec func(json.RawMessage, string) (T, error)) func(json.RawMessage, string) ([]T, error) {
	return decodeListMax(dec, -1)
}

func decodeListMax[T any](dec func(json.RawMessage, string) (T, error), maxItems int) func(json.RawMessage, string) ([]T, error) {
	return func(data json.RawMessage, path string) ([]T, error) {
		if kindOf(data) != "array" {
			return nil, expected("array", data, path)
		}
		var raw []json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, &DecodeError{Path: path, Message: err.Error()}
		}
		if maxItems >= 0 && len(raw) > maxItems {
			return nil, &DecodeError{Path: path, Message: "at most " + strconv.Itoa(maxItems) + " items"}
		}
		out := make([]T, len(raw))
		for i, r := range raw {
			v, err := dec(r, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
}

func decodeMap[T any](dec func(json.RawMessage, string) (T, error)) func(json.RawMessage, string) (map[string]T, error) {
	return func(data json.RawMessage, path string) (map[string]T, error) {
		o, err := decodeObject(data, path)
		if err != nil {
			return nil, err
		}
		out := make(map[string]T, len(o))
		for _, k := range sortedKeys(o) {
			v, err := dec(o[k], at(path, k))
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	}
}

func tagOf(data json.RawMessage, path, member string, values []string) (string, error) {
	o, err := decodeObject(data, path)
	if err != nil {
		return "", err
	}
	raw, ok := o[member]
	if !ok {
		return "", &DecodeError{Path: at(path, member), Message: "required"}
	}
	s, err := decodeString(raw, at(path, member))
	if err != nil || !contains(values, s) {
		return "", &DecodeError{Path: at(path, member), Message: "expected one of " + quoteAll(values) + ", got " + string(bytes.TrimSpace(raw))}
	}
	return s, nil
}

func jsonrpcKindOf(data json.RawMessage, path string, kinds []string) (string, error) {
	o, err := decodeObject(data, path)
	if err != nil {
		return "", err
	}
	kind := ""
	_, hasID := o["id"]
	if _, ok := o["method"]; ok {
		kind = "notification"
		if hasID {
			kind = "request"
		}
	} else if _, ok := o["result"]; ok {
		kind = "result"
	} else if _, ok := o["error"]; ok {
		kind = "error"
	} else {
		return "", &DecodeError{Path: path, Message: "not a JSON-RPC message (no method, result or error)"}
	}
	if !contains(kinds, kind) {
		return "", &DecodeError{Path: path, Message: "a JSON-RPC " + kind + " is not one of: " + strings.Join(kinds, ", ")}
	}
	return kind, nil
}

func undeclared(v any) int {
	if u, ok := v.(interface{ undeclared() int }); ok {
		return u.undeclared()
	}
	return 0
}

func noVariant(path, name string, errs []string) error {
	return &DecodeError{Path: path, Message: "matches no variant of " + name + " (" + strings.Join(errs, "; ") + ")"}
}

// objectEncoder collects an object's members; bytes() writes them in sorted key order.
type objectEncoder struct {
	members map[string]any
}

func newObjectEncoder(n int) *objectEncoder {
	return &objectEncoder{members: make(map[string]any, n+8)}
}

func (e *objectEncoder) put(key string, v any) { e.members[key] = v }

func (e *objectEncoder) bytes() ([]byte, error) { return json.Marshal(e.members) }
`;

/** Files of the Go module, relative to generated/<rev>/. */
export function emitGo(model: ProtocolModel): Map<string, string> {
  const e = new GoEmitter(model);
  return new Map([
    ['bindings/go/decode.go', e.runtimeFile()],
    ['bindings/go/go.mod', e.goMod()],
    ['bindings/go/methods.go', e.methodsFile()],
    ['bindings/go/types.go', e.typesFile()],
  ]);
}
