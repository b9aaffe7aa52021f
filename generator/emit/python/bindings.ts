/**
 * Python bindings from the ProtocolModel: one package per revision (`mcp_types_<rev>`), standard
 * library only (Python 3.11+).
 *
 * - every object type is a `@dataclass(kw_only=True)`; required members have no default,
 *   optional ones default to `None`; discriminants are `Literal` members; members the schema
 *   does not declare are kept in `additional_properties` (or refused where the schema closes
 *   the object);
 * - every union is a `Union[...]` alias with a generated decoder that dispatches on its
 *   discriminant (`type`, `method`, the JSON-RPC message kind) or, where it has none, takes the
 *   first variant that decodes;
 * - decoders validate every value and raise `DecodeError(path, message)`, e.g.
 *   `params.content[2].data: required` (no `assert`: the checks hold under `python -O`);
 * - the package type-checks under `mypy --strict --python-version 3.11`: every decoder is a typed
 *   `_Decoder[T]` (`Callable[[Any, str], T]`) built from generic helpers, so a decoded member has
 *   its declared type (an enum member its `Literal`, an integer an `int`) without a cast, and a
 *   `match` over a union alias ending in `assert_never` is checked for exhaustiveness;
 * - the method maps (`CLIENT_REQUESTS`, `SERVER_REQUESTS`, `CLIENT_NOTIFICATIONS`,
 *   `SERVER_NOTIFICATIONS`), error codes, protocol version and revision constants.
 */
import type { ProtocolModel } from '../../model.js';
import { byCodeUnit } from '../../util.js';
import { MCPGEN_VERSION, preamble } from '../common.js';
import { quoted, revisionId, snake, uniqueNames } from '../naming.js';
import { buildShape, type Decl, type Field, type Shape, type StructDecl, type Ty, type UnionDecl } from '../shape.js';
import { templateFolder } from '../template.js';
import { CONSTANT_MAP_NAMES, errorCodeNames, methodMaps, revisionLiterals } from '../bindings/view.js';

const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case type additional_properties field from_json to_json'.split(
    ' ',
  ),
);
// `match`, `case` and `type` are soft keywords and legal names; `type` stays as the member name.
KEYWORDS.delete('match');
KEYWORDS.delete('case');
KEYWORDS.delete('type');

/** Import name of a revision's package: `mcp_types_2025_11_25`. */
export function pythonPackageName(revision: string): string {
  return `mcp_types_${revisionId(revision)}`;
}

function pyLiteral(v: string | number | boolean): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return JSON.stringify(v);
}

/** Text inside a docstring: backslashes and `"""` escaped. */
function docText(line: string): string {
  return line.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"');
}

/** A docstring block (lines indented, text escaped); empty for no lines. */
function docstring(lines: string[], indent: string): string {
  if (!lines.length) return '';
  const esc = lines.map(docText);
  if (esc.length === 1) return `${indent}"""${esc[0]}"""`;
  return [`${indent}"""${esc[0]}`, ...esc.slice(1).map((l) => (l ? `${indent}${l}` : '')), `${indent}"""`].join('\n');
}

class PythonEmitter {
  readonly shape: Shape;
  constructor(readonly model: ProtocolModel) {
    this.shape = buildShape(model);
  }

  /** The annotation of a type. */
  hint(t: Ty, quoteAliases = false): string {
    const h = (x: Ty): string => this.hint(x, quoteAliases);
    switch (t.k) {
      case 'ref':
        return quoteAliases && this.shape.byName.get(t.name)?.kind !== 'struct' ? quoted(t.name) : t.name;
      case 'string':
        return t.enum ? `Literal[${t.enum.map(quoted).join(', ')}]` : 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'const':
        return `Literal[${pyLiteral(t.value)}]`;
      case 'any':
        return 'Any';
      case 'array':
        return `List[${h(t.items)}]`;
      case 'map':
        return `Dict[str, ${h(t.values)}]`;
      case 'prims': {
        const m: Record<string, string> = {
          string: 'str',
          integer: 'int',
          number: 'float',
          boolean: 'bool',
          null: 'None',
        };
        return `Union[${t.kinds.map((k) => m[k]).join(', ')}]`;
      }
    }
  }

  /** A decoder expression `(value, path) -> decoded` for a type. */
  dec(t: Ty): string {
    switch (t.k) {
      case 'ref':
        return `_dec_${t.name}`;
      case 'string':
        return t.enum ? `_enum((${t.enum.map(quoted).join(', ')},))` : '_string';
      case 'integer':
      case 'number': {
        const base = t.k === 'integer' ? '_integer' : '_number';
        if (t.min === undefined && t.max === undefined) return base;
        return `_range(${base}, ${t.min ?? 'None'}, ${t.max ?? 'None'})`;
      }
      case 'boolean':
        return '_boolean';
      case 'null':
        return '_null';
      case 'const':
        return `_const(${pyLiteral(t.value)})`;
      case 'any':
        return '_any';
      case 'array':
        return `_list(${this.dec(t.items)}${t.maxItems !== undefined ? `, max_items=${t.maxItems}` : ''})`;
      case 'map':
        return `_map(${this.dec(t.values)})`;
      case 'prims':
        return `_prims((${t.kinds.map(quoted).join(', ')},))`;
    }
  }

  fieldNames(d: StructDecl): string[] {
    return uniqueNames(
      d.fields.map((f) => snake(f.json)),
      KEYWORDS,
      d.extra === 'refuse' ? new Set() : new Set(['additional_properties']),
    );
  }

  /** The default of a field: the constant of a required `const` member, `None` when optional. */
  fieldDefault(f: Field): string | undefined {
    if (f.required && f.ty.k === 'const') return pyLiteral(f.ty.value);
    return f.required ? undefined : 'None';
  }

  structView(d: StructDecl): object {
    const names = this.fieldNames(d);
    return {
      name: d.name,
      quotedName: quoted(d.name),
      doc: docstring(d.doc.length ? d.doc : [`The ${d.name} object.`], '    '),
      fields: d.fields.map((f, i) => {
        const def = this.fieldDefault(f);
        return {
          name: names[i],
          quotedName: quoted(names[i]),
          key: quoted(f.json),
          required: f.required,
          hint: f.required ? this.hint(f.ty) : `Optional[${this.hint(f.ty)}]`,
          default: def ?? '',
          doc: docstring(f.doc, '    '),
          decoder: this.dec(f.ty),
        };
      }),
      oneField: d.fields.length === 1,
      open: d.extra !== 'refuse',
      extraHint: d.extra === 'refuse' ? '' : this.hint(d.extra),
      extraDecoder: d.extra === 'refuse' ? '' : this.dec(d.extra),
      known: d.fields.map((f) => quoted(f.json)).join(', '),
    };
  }

  unionView(d: UnionDecl): object {
    const tag = d.tag;
    const tags = tag.kind === 'const' ? tag.values : tag.kind === 'jsonrpc' ? tag.kinds : [];
    return {
      name: d.name,
      quotedName: quoted(d.name),
      tagMember: tag.kind === 'const' ? quoted(tag.member) : '',
      jsonrpc: tag.kind === 'jsonrpc',
      tagTable: `${snake(d.name).toUpperCase()}_TAGS`,
      variants: d.variants.map((v, i) => ({
        tag: tags.length ? quoted(tags[i]) : '',
        decoder: this.dec(v),
        hint: this.hint(v),
      })),
    };
  }

  /** Type aliases in dependency order (an alias may name another), names breaking ties. */
  aliasOrder(): Decl[] {
    const list = this.shape.decls.filter((d) => d.kind !== 'struct');
    const deps = (d: Decl): string[] => {
      const names: string[] = [];
      const walk = (t: Ty): void => {
        if (t.k === 'ref') names.push(t.name);
        else if (t.k === 'array') walk(t.items);
        else if (t.k === 'map') walk(t.values);
      };
      if (d.kind === 'union') d.variants.forEach(walk);
      else if (d.kind === 'alias') walk(d.ty);
      return names.filter((n) => this.shape.byName.get(n)?.kind !== 'struct');
    };
    const done = new Set<string>();
    const out: Decl[] = [];
    const visit = (d: Decl, stack: Set<string>): void => {
      if (done.has(d.name) || stack.has(d.name)) return;
      stack.add(d.name);
      for (const n of deps(d).sort(byCodeUnit)) visit(this.shape.byName.get(n)!, stack);
      stack.delete(d.name);
      done.add(d.name);
      out.push(d);
    };
    for (const d of list) visit(d, new Set());
    return out;
  }

  moduleView(): object {
    const m = this.model;
    const { requestMaps, notificationMaps } = methodMaps(m, this.shape, {
      quote: quoted,
      typeName: (name) => name,
      names: CONSTANT_MAP_NAMES,
      docs: [
        'Requests a client sends, by method.',
        'Requests a server sends, by method.',
        'Notifications a client sends, by method.',
        'Notifications a server sends, by method.',
      ],
      paramsDecoder: (t) => (t?.k === 'ref' ? `_dec_${t.name}` : ''),
      resultDecoder: (resultType, alts, tags) => {
        if (!alts.length) return `_dec_${resultType}`;
        const all = [resultType, ...alts];
        const decoders = `(${all.map((t) => `_dec_${t}`).join(', ')})`;
        return tags
          ? `lambda v, p: _by_result_type(v, p, ${quoted(all.join(' or '))}, ${quoted(tags.member)}, (${tags.values.map(quoted).join(', ')}), ${decoders})`
          : `lambda v, p: _first(v, p, ${quoted(all.join(' or '))}, ${decoders})`;
      },
    });
    return {
      preamble: preamble(m, '#'),
      revision: docText(m.revision),
      protocolVersion: docText(m.protocolVersion),
      literals: revisionLiterals(m, quoted),
      errorCodes: errorCodeNames(m).map((c) => ({ name: c, quotedName: quoted(c), code: m.errorCodes[c] })),
      structs: this.shape.decls.flatMap((d) => (d.kind === 'struct' ? [this.structView(d)] : [])),
      aliases: this.aliasOrder().map((d) => ({
        name: d.name,
        value:
          d.kind === 'union'
            ? `Union[${d.variants.map((v) => this.hint(v, true)).join(', ')}]`
            : this.hint((d as { ty: Ty }).ty, true),
        doc: docstring(d.doc, ''),
        union: d.kind === 'union' ? this.unionView(d) : null,
        alias: d.kind === 'alias' ? { name: d.name, decoder: this.dec(d.ty) } : null,
      })),
      decls: this.shape.decls.map((d) => ({ name: d.name, quotedName: quoted(d.name) })),
      requestMaps,
      notificationMaps,
    };
  }
}

const templates = templateFolder(new URL('./templates/bindings/', import.meta.url), { trimLineEnds: true });

/** Files of the Python package, relative to generated/<rev>/. */
export function emitPython(model: ProtocolModel): Map<string, string> {
  const e = new PythonEmitter(model);
  const pkg = pythonPackageName(model.revision);
  const header = { preamble: preamble(model, '#') };
  const project = {
    ...header,
    package: pkg,
    distribution: pkg.replace(/_/g, '-'),
    mcpgenVersion: MCPGEN_VERSION,
    revision: model.revision,
  };
  return new Map([
    ['bindings/python/pyproject.toml', templates.render('pyproject.toml', project)],
    [`bindings/python/${pkg}/__init__.py`, templates.render('__init__.py', e.moduleView())],
    [`bindings/python/${pkg}/py.typed`, templates.render('py.typed', header)],
  ]);
}
