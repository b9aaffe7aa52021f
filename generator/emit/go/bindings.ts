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
 *   a request's result that may be of several types is decoded as the type its `resultType`
 *   names where the revision's results carry one (../bindings/view.ts `resultTags`);
 *   `Match<Union>(value, visitor)` is the exhaustive match (a visitor missing a variant does
 *   not compile);
 * - decoders validate and return `*DecodeError{Path, Message}`, e.g.
 *   `params.content[2].data: required`;
 * - the method maps (`ClientRequests`, `ServerRequests`, `ClientNotifications`,
 *   `ServerNotifications`), error codes, protocol version and revision constants.
 */
import type { ProtocolModel } from '../../model.js';
import { preamble } from '../common.js';
import { templateFolder } from '../template.js';
import {
  PASCAL_MAP_NAMES,
  decoderExpr,
  errorCodeNames,
  methodMaps,
  revisionLiterals,
  type DecoderTable,
} from '../bindings/view.js';
import { lineComments, pascal, quoted, uniqueNames } from '../naming.js';
import { buildShape, type Field, type StructDecl, type Ty, type UnionDecl } from '../shape.js';
import { GoTypeMap, goPackageName } from './common.js';

export { goPackageName };

/** Module path of a revision's bindings. */
export function goModulePath(revision: string): string {
  return `mcpgen.dev/bindings/${goPackageName(revision)}`;
}

/** A field of a struct, as the templates show it. */
interface GoFieldView {
  /** The Go field name. */
  name: string;
  /** The member's name in JSON, as a Go string literal. */
  key: string;
  type: string;
  required: boolean;
  /** Not a required constant (which the type writes and the decoder checks). */
  stored: boolean;
  /** Line comments, indented by a tab (empty: none). */
  doc: string;
  /** The decoder expression, `func(json.RawMessage, string) (T, error)`. */
  decoder: string;
  /** The decoding helper: `required`, `optional` (nil-able types) or `optionalPtr`. */
  take: 'required' | 'optional' | 'optionalPtr';
  /** A constant member's Go literal. */
  value: string;
}

interface GoStructView {
  name: string;
  doc: string;
  fields: GoFieldView[];
  stored: GoFieldView[];
  /** Undeclared members are kept in `Extra` (false: refused). */
  open: boolean;
  extraType: string;
  extraDecoder: string;
  /** The declared members' JSON names as Go string literals, comma-separated. */
  known: string;
}

interface GoVariantView {
  /** 1-based. */
  number: number;
  /** The struct of the variant, or its wrapper type. */
  variantName: string;
  variantType: string;
  /** The wrapper of a variant that is not a struct (empty: none). */
  wrapper: string;
  valueType: string;
  valueDecoder: string;
  /** The variant's tag value as a Go string literal (tagged unions). */
  tag: string;
}

interface GoUnionView {
  name: string;
  quotedName: string;
  doc: string;
  variants: GoVariantView[];
  /** Dispatches on a tag (a constant member or the JSON-RPC message kind). */
  tagged: boolean;
  /** The tag member as a Go string literal (empty: the JSON-RPC message kind). */
  tagMember: string;
  tags: string;
}

interface GoAliasView {
  name: string;
  doc: string;
  target: string;
  type: string;
  decoder: string;
}

class GoEmitter extends GoTypeMap {
  constructor(model: ProtocolModel) {
    super(model, buildShape(model));
  }

  /** A decoder expression of type `func(json.RawMessage, string) (T, error)`. */
  dec(t: Ty): string {
    return decoderExpr(this.decoders, this.shape, t);
  }

  readonly decoders: DecoderTable = {
    ref: (t) => `decode${t.name}`,
    string: 'decodeString',
    oneOf: (values) => `decodeEnum(${values.map(quoted).join(', ')})`,
    integer: 'decodeInteger',
    number: 'decodeNumber',
    range: (base, _kind, min, max) => {
      const bound = (v: number | undefined) => (v === undefined ? 'nil' : `bound(${v})`);
      return `inRange(${base}, ${bound(min)}, ${bound(max)})`;
    },
    boolean: 'decodeBoolean',
    any: 'decodeAny',
    constant: (v) => {
      if (typeof v === 'string') return `constant(decodeString, ${quoted(v)})`;
      if (typeof v === 'boolean') return `constant(decodeBoolean, ${v})`;
      return Number.isInteger(v) ? `constant(decodeInteger, int64(${v}))` : `constant(decodeNumber, float64(${v}))`;
    },
    prims: (kinds) => `decodePrims(${kinds.map(quoted).join(', ')})`,
    list: (items, _ty, maxItems) =>
      maxItems !== undefined ? `decodeListMax(${items}, ${maxItems})` : `decodeList(${items})`,
    map: (values) => `decodeMap(${values})`,
  };

  /** Go literal of a constant member's value. */
  constLiteral(v: string | number | boolean): string {
    return typeof v === 'string' ? quoted(v) : String(v);
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

  structView(d: StructDecl): GoStructView {
    const names = this.fieldNames(d);
    const fields = d.fields.map(
      (f, i): GoFieldView => ({
        name: names[i],
        key: quoted(f.json),
        type: this.fieldType(f),
        required: f.required,
        stored: this.stored(f),
        doc: lineComments(f.doc, '//', '\t'),
        decoder: this.dec(f.ty),
        take: f.required ? 'required' : this.nilable(f.ty) ? 'optional' : 'optionalPtr',
        value: f.ty.k === 'const' ? this.constLiteral(f.ty.value) : '',
      }),
    );
    const open = d.extra !== 'refuse';
    return {
      name: d.name,
      doc: lineComments(
        d.doc.length ? [`${d.name} is the ${d.name} object.`, '', ...d.doc] : [`${d.name} is the ${d.name} object.`],
        '//',
      ),
      fields,
      stored: fields.filter((f) => f.stored),
      open,
      extraType: d.extra === 'refuse' ? '' : this.goType(d.extra),
      extraDecoder: d.extra === 'refuse' ? '' : this.dec(d.extra),
      known: d.fields.map((f) => quoted(f.json)).join(', '),
    };
  }

  unionView(d: UnionDecl): GoUnionView {
    const wrappers = this.wrappers.get(d.name)!;
    const variantName = (i: number): string => wrappers.get(i) ?? (d.variants[i] as { name: string }).name;
    const tag = d.tag;
    const tags = tag.kind === 'const' ? tag.values : tag.kind === 'jsonrpc' ? tag.kinds : [];
    const variants = d.variants.map(
      (v, i): GoVariantView => ({
        number: i + 1,
        variantName: variantName(i),
        variantType: `*${variantName(i)}`,
        wrapper: wrappers.get(i) ?? '',
        valueType: wrappers.has(i) ? this.goType(v) : '',
        valueDecoder: wrappers.has(i) ? this.dec(v) : '',
        tag: tags.length ? quoted(tags[i]) : '',
      }),
    );
    return {
      name: d.name,
      quotedName: quoted(d.name),
      doc: lineComments(
        [
          `${d.name} is one of: ${variants.map((v) => v.variantType).join(', ')}.`,
          ...(d.doc.length ? ['', ...d.doc] : []),
        ],
        '//',
      ),
      variants,
      tagged: tag.kind !== 'none',
      tagMember: tag.kind === 'const' ? quoted(tag.member) : '',
      tags: tags.map(quoted).join(', '),
    };
  }

  aliasView(name: string, t: Ty, doc: string[]): GoAliasView {
    return {
      name,
      doc: lineComments([`${name} is a ${this.goType(t)}.`, ...(doc.length ? ['', ...doc] : [])], '//'),
      target: this.aliasTarget(t),
      type: this.goType({ k: 'ref', name }),
      decoder: this.dec(t),
    };
  }

  typesView(): object {
    return {
      preamble: preamble(this.model),
      package: goPackageName(this.model.revision),
      decls: this.shape.decls.map((d) => ({
        struct: d.kind === 'struct' ? this.structView(d) : null,
        union: d.kind === 'union' ? this.unionView(d) : null,
        alias: d.kind === 'alias' ? this.aliasView(d.name, d.ty, d.doc) : null,
      })),
    };
  }

  methodsView(): object {
    const m = this.model;
    const { requestMaps, notificationMaps, hasAltResults, hasResultTags } = methodMaps(m, this.shape, {
      quote: quoted,
      typeName: (name) => name,
      names: PASCAL_MAP_NAMES,
      docs: [
        'the requests a client sends',
        'the requests a server sends',
        'the notifications a client sends',
        'the notifications a server sends',
      ],
      paramsDecoder: (t) => (t === null ? '' : this.dec(t)),
      resultDecoder: (resultType, alts, tags) => {
        if (!alts.length) return `decode${resultType}(data, "result")`;
        const all = [resultType, ...alts];
        const decoders = all.map((t) => `resultOf(decode${t})`).join(', ');
        return tags
          ? `byResultType(data, "result", ${quoted(all.join(' or '))}, ${quoted(tags.member)}, []string{${tags.values.map(quoted).join(', ')}}, ${decoders})`
          : `fewestUndeclared(data, "result", ${quoted(all.join(' or '))}, ${decoders})`;
      },
    });
    return {
      preamble: preamble(m),
      package: goPackageName(m.revision),
      revision: m.revision,
      protocolVersion: m.protocolVersion,
      literals: revisionLiterals(m, quoted),
      errorCodes: errorCodeNames(m).map((c) => ({
        constant: `Code${pascal(c.toLowerCase())}`,
        name: quoted(c),
        code: m.errorCodes[c],
      })),
      requestMaps,
      notificationMaps,
      decls: this.shape.decls.map((d) => ({ name: d.name, quotedName: quoted(d.name) })),
      hasAltResults,
      hasResultTags,
    };
  }
}

const templates = templateFolder(new URL('./templates/bindings/', import.meta.url));

/** Files of the Go module, relative to generated/<rev>/. */
export function emitGo(model: ProtocolModel): Map<string, string> {
  const e = new GoEmitter(model);
  const header = { preamble: preamble(model), package: goPackageName(model.revision) };
  return new Map([
    ['bindings/go/decode.go', templates.render('decode.go', header)],
    ['bindings/go/go.mod', templates.render('go.mod', { ...header, modulePath: goModulePath(model.revision) })],
    ['bindings/go/methods.go', templates.render('methods.go', e.methodsView())],
    ['bindings/go/types.go', templates.render('types.go', e.typesView())],
  ]);
}
