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
import { revisionId, snake, uniqueNames } from '../naming.js';
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

const str = (s: string): string => JSON.stringify(s);

function pyLiteral(v: string | number | boolean): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return JSON.stringify(v);
}

/** A docstring body: lines indented, `"""` and backslashes escaped. */
function docstring(lines: string[], indent: string): string[] {
  if (!lines.length) return [];
  const esc = lines.map((l) => l.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"'));
  if (esc.length === 1) return [`${indent}"""${esc[0]}"""`];
  return [`${indent}"""${esc[0]}`, ...esc.slice(1).map((l) => (l ? `${indent}${l}` : '')), `${indent}"""`];
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
        return quoteAliases && this.shape.byName.get(t.name)?.kind !== 'struct' ? str(t.name) : t.name;
      case 'string':
        return t.enum ? `Literal[${t.enum.map(str).join(', ')}]` : 'str';
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
        return t.enum ? `_enum((${t.enum.map(str).join(', ')},))` : '_string';
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
        return `_prims((${t.kinds.map(str).join(', ')},))`;
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

  struct(d: StructDecl): string[] {
    const names = this.fieldNames(d);
    const out: string[] = ['', '', '@dataclass(kw_only=True)', `class ${d.name}(_Message):`];
    out.push(...docstring(d.doc.length ? d.doc : [`The ${d.name} object.`], '    '));
    out.push('');
    out.push(`    _SCHEMA_NAME: ClassVar[str] = ${str(d.name)}`);
    const fieldTable = d.fields.map((f, i) => `(${str(names[i])}, ${str(f.json)}, ${f.required ? 'True' : 'False'})`);
    out.push(
      `    _FIELDS: ClassVar[Tuple[Tuple[str, str, bool], ...]] = (${fieldTable.join(', ')}${fieldTable.length === 1 ? ',' : ''})`,
    );
    out.push(`    _OPEN: ClassVar[bool] = ${d.extra === 'refuse' ? 'False' : 'True'}`);
    d.fields.forEach((f, i) => {
      const hint = f.required ? this.hint(f.ty) : `Optional[${this.hint(f.ty)}]`;
      const def = this.fieldDefault(f);
      out.push(`    ${names[i]}: ${hint}${def !== undefined ? ` = ${def}` : ''}`);
      out.push(...docstring(f.doc, '    '));
    });
    if (d.extra !== 'refuse') {
      out.push(`    additional_properties: Dict[str, ${this.hint(d.extra)}] = field(default_factory=dict)`);
      out.push('    """Members the schema does not declare, kept as decoded."""');
    }
    out.push('');
    out.push('    @classmethod');
    out.push(`    def from_json(cls, value: Any, path: str = "") -> ${d.name}:`);
    out.push(`        """Decodes and validates a JSON value (as \`json.loads\` gives it); raises DecodeError."""`);
    out.push(`        return _dec_${d.name}(value, path)`);
    out.push('');
    out.push('');
    out.push(`def _dec_${d.name}(value: Any, path: str) -> ${d.name}:`);
    out.push('    o = _object(value, path)');
    const known = d.fields.map((f) => str(f.json));
    if (d.extra === 'refuse')
      out.push(`    _closed(o, path, frozenset((${known.join(', ')}${known.length === 1 ? ',' : ''})))`);
    out.push(`    return ${d.name}(`);
    d.fields.forEach((f, i) => {
      out.push(`        ${names[i]}=${f.required ? '_req' : '_opt'}(o, ${str(f.json)}, path, ${this.dec(f.ty)}),`);
    });
    if (d.extra !== 'refuse') {
      out.push(
        `        additional_properties=_extra(o, path, frozenset((${known.join(', ')}${known.length === 1 ? ',' : ''})), ${this.dec(d.extra)}),`,
      );
    }
    out.push('    )');
    return out;
  }

  union(d: UnionDecl): string[] {
    const out: string[] = ['', ''];
    const tag = d.tag;
    if (tag.kind === 'const') {
      out.push(`_TAGS_${d.name}: Dict[str, _Decoder[${d.name}]] = {`);
      d.variants.forEach((v, i) => out.push(`    ${str(tag.values[i])}: ${this.dec(v)},`));
      out.push('}');
      out.push('');
      out.push('');
      out.push(`def _dec_${d.name}(value: Any, path: str) -> ${d.name}:`);
      out.push(`    return _tagged(value, path, ${str(tag.member)}, _TAGS_${d.name})`);
    } else if (tag.kind === 'jsonrpc') {
      out.push(`_KINDS_${d.name}: Dict[str, _Decoder[${d.name}]] = {`);
      d.variants.forEach((v, i) => out.push(`    ${str(tag.kinds[i])}: ${this.dec(v)},`));
      out.push('}');
      out.push('');
      out.push('');
      out.push(`def _dec_${d.name}(value: Any, path: str) -> ${d.name}:`);
      out.push(`    return _jsonrpc_kind(value, path, _KINDS_${d.name})`);
    } else {
      out.push(`def _dec_${d.name}(value: Any, path: str) -> ${d.name}:`);
      out.push(`    variants: Tuple[_Decoder[${d.name}], ...] = (${d.variants.map((v) => this.dec(v)).join(', ')},)`);
      out.push(`    return _first(value, path, ${str(d.name)}, variants)`);
    }
    return out;
  }

  alias(name: string, t: Ty): string[] {
    return [
      '',
      '',
      `def _dec_${name}(value: Any, path: str) -> ${name}:`,
      `    dec: _Decoder[${name}] = ${this.dec(t)}`,
      '    return dec(value, path)',
    ];
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

  requestTable(name: string, list: ReturnType<typeof methodTables>['requests']): string[] {
    const out = ['', '', `${name}: Dict[str, RequestInfo] = {`];
    for (const r of list) {
      const params = this.paramsTy(r.requestType);
      out.push(`    ${str(r.method)}: RequestInfo(`);
      out.push(`        method=${str(r.method)},`);
      out.push(`        direction=${str(r.direction)},`);
      out.push(`        request=${r.requestType},`);
      out.push(`        params=${params ? `_dec_${params}` : 'None'},`);
      out.push(`        params_required=${r.paramsRequired ? 'True' : 'False'},`);
      out.push(`        result=_dec_${r.resultType},`);
      out.push(`        result_type=${str(r.resultType)},`);
      out.push(
        `        alt_results=(${r.altResultTypes.map(str).join(', ')}${r.altResultTypes.length === 1 ? ',' : ''}),`,
      );
      out.push(
        `        capability=${r.capability ? `(${r.capability.map(str).join(', ')}${r.capability.length === 1 ? ',' : ''})` : 'None'},`,
      );
      out.push('    ),');
    }
    out.push('}');
    return out;
  }

  notificationTable(name: string, list: ReturnType<typeof methodTables>['notifications']): string[] {
    const out = ['', '', `${name}: Dict[str, NotificationInfo] = {`];
    for (const n of list) {
      const params = this.paramsTy(n.notificationType);
      out.push(`    ${str(n.method)}: NotificationInfo(`);
      out.push(`        method=${str(n.method)},`);
      out.push(`        direction=${str(n.direction)},`);
      out.push(`        notification=${n.notificationType},`);
      out.push(`        params=${params ? `_dec_${params}` : 'None'},`);
      out.push(`        params_required=${n.paramsRequired ? 'True' : 'False'},`);
      out.push('    ),');
    }
    out.push('}');
    return out;
  }

  /** The declared type of a message's `params` member, when it names one. */
  paramsTy(messageType: string): string | null {
    const d = this.shape.byName.get(messageType);
    if (d?.kind !== 'struct') return null;
    const f = d.fields.find((x) => x.json === 'params');
    return f && f.ty.k === 'ref' ? f.ty.name : null;
  }

  module(): string {
    const m = this.model;
    const { requests, notifications } = methodTables(m);
    const lines: string[] = [preamble(m, '#')];
    lines.push(
      ...docstring(
        [
          `Model Context Protocol messages of revision ${m.revision} (protocol version ${m.protocolVersion}).`,
          '',
          'Decode with `<Type>.from_json(value)` or `decode("<Type>", value)`; encode with',
          '`value.to_json()` or `encode(value)`. Decoding validates and raises DecodeError naming',
          'the failing path, e.g. `params.content[2].data: required`.',
        ],
        '',
      ),
    );
    lines.push(
      PY_RUNTIME.replace('%REVISION%', str(m.revision))
        .replace('%PROTOCOL_VERSION%', str(m.protocolVersion))
        .replace('%LIFECYCLE%', str(m.lifecycle))
        .replace('%JSONRPC_VERSION%', str(String(m.constants.JSONRPC_VERSION ?? '2.0')))
        .replace('%MCPGEN_VERSION%', str(MCPGEN_VERSION))
        .trimEnd(),
    );
    lines.push('');
    lines.push('');
    lines.push('# Error codes of this revision (schema.ts constants).');
    const codes = Object.keys(m.errorCodes).sort(byCodeUnit);
    for (const c of codes) lines.push(`${c}: Final = ${m.errorCodes[c]}`);
    lines.push(`ERROR_CODES: Dict[str, int] = {${codes.map((c) => `${str(c)}: ${c}`).join(', ')}}`);
    for (const d of this.shape.decls) if (d.kind === 'struct') lines.push(...this.struct(d));
    for (const d of this.aliasOrder()) {
      const body =
        d.kind === 'union'
          ? `Union[${d.variants.map((v) => this.hint(v, true)).join(', ')}]`
          : this.hint((d as { ty: Ty }).ty, true);
      lines.push('', '', `${d.name} = ${body}`);
      lines.push(...docstring(d.doc, ''));
      if (d.kind === 'union') lines.push(...this.union(d));
      else if (d.kind === 'alias') lines.push(...this.alias(d.name, d.ty));
      if (d.kind === 'union' && d.tag.kind === 'const') {
        lines.push('', '', `${snake(d.name).toUpperCase()}_TAGS: Dict[str, type] = {`);
        d.variants.forEach((v, i) =>
          lines.push(`    ${str((d.tag as { values: string[] }).values[i])}: ${this.hint(v)},`),
        );
        lines.push('}');
      }
    }
    lines.push('', '', 'DECODERS: Dict[str, Callable[[Any, str], Any]] = {');
    for (const d of this.shape.decls) lines.push(`    ${str(d.name)}: _dec_${d.name},`);
    lines.push('}');
    lines.push('"""Decoder of every declared type, by schema name: `(value, path) -> decoded`."""');
    const byDir = (dir: string) => requests.filter((r) => r.direction === dir);
    lines.push(...this.requestTable('CLIENT_REQUESTS', byDir('clientToServer')));
    lines.push('"""Requests a client sends, by method."""');
    lines.push(...this.requestTable('SERVER_REQUESTS', byDir('serverToClient')));
    lines.push('"""Requests a server sends, by method."""');
    lines.push(
      ...this.notificationTable(
        'CLIENT_NOTIFICATIONS',
        notifications.filter((n) => n.direction === 'clientToServer'),
      ),
    );
    lines.push('"""Notifications a client sends, by method."""');
    lines.push(
      ...this.notificationTable(
        'SERVER_NOTIFICATIONS',
        notifications.filter((n) => n.direction === 'serverToClient'),
      ),
    );
    lines.push('"""Notifications a server sends, by method."""');
    void resolveAlias;
    return `${lines.join('\n').replace(/[ \t]+$/gm, '')}\n`;
  }

  pyproject(): string {
    const m = this.model;
    const pkg = pythonPackageName(m.revision);
    return `${preamble(m, '#')}
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "${pkg.replace(/_/g, '-')}"
version = "${MCPGEN_VERSION}"
description = "Model Context Protocol ${m.revision} messages: dataclasses, validating decoders, method maps"
requires-python = ">=3.11"
dependencies = []

[tool.setuptools]
packages = ["${pkg}"]

[tool.setuptools.package-data]
${pkg} = ["py.typed"]
`;
  }
}

/** The hand-written part of every module: the decoder helpers and the method-map records. */
const PY_RUNTIME = `
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Dict, Final, FrozenSet, List, Literal, Optional, Tuple, TypeVar, Union

_T = TypeVar("_T")
_S = TypeVar("_S", bound=str)
_N = TypeVar("_N", int, float)
_Decoder = Callable[[Any, str], _T]
"""A decoder: \`(value, path) -> decoded\`, raising DecodeError naming the path."""

REVISION: Final = %REVISION%
"""The schema revision these bindings were generated from."""
PROTOCOL_VERSION: Final = %PROTOCOL_VERSION%
"""LATEST_PROTOCOL_VERSION of the revision."""
JSONRPC_VERSION: Final = %JSONRPC_VERSION%
LIFECYCLE: Final = %LIFECYCLE%
"""\`handshake\` (initialize first) or \`stateless\` (every request carries its own \`_meta\`)."""
MCPGEN_VERSION: Final = %MCPGEN_VERSION%


class DecodeError(ValueError):
    """A value that does not match its schema type.

    \`path\` names the failing place (\`params.content[2].data\`, empty for the value itself) and
    \`message\` says what is wrong (\`required\`, \`expected string, got integer\`, ...).
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path or '(root)'}: {message}")
        self.path = path
        self.message = message


_MISSING: Any = object()


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _expected(what: str, value: Any, path: str) -> DecodeError:
    return DecodeError(path, f"expected {what}, got {_kind(value)}")


def _object(value: Any, path: str) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise _expected("object", value, path)
    return value


def _req(o: Dict[str, Any], key: str, path: str, dec: _Decoder[_T]) -> _T:
    if key not in o:
        raise DecodeError(_at(path, key), "required")
    return dec(o[key], _at(path, key))


def _opt(o: Dict[str, Any], key: str, path: str, dec: _Decoder[_T]) -> Optional[_T]:
    if key not in o:
        return None
    return dec(o[key], _at(path, key))


def _extra(o: Dict[str, Any], path: str, known: FrozenSet[str], dec: _Decoder[_T]) -> Dict[str, _T]:
    return {k: dec(v, _at(path, k)) for k, v in o.items() if k not in known}


def _closed(o: Dict[str, Any], path: str, known: FrozenSet[str]) -> None:
    for k in o:
        if k not in known:
            raise DecodeError(_at(path, k), "not allowed")


def _string(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise _expected("string", value, path)
    return value


def _integer(value: Any, path: str) -> int:
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, float) and value.is_integer())):
        raise _expected("integer", value, path)
    return value if isinstance(value, int) else int(value)


def _number(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _expected("number", value, path)
    if isinstance(value, float) and not math.isfinite(value):
        # json.loads reads NaN and Infinity, which JSON does not have
        raise DecodeError(path, "must be a finite number")
    return value


def _boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise _expected("boolean", value, path)
    return value


def _null(value: Any, path: str) -> None:
    if value is not None:
        raise _expected("null", value, path)
    return None


def _any(value: Any, path: str) -> Any:
    return value


def _range(dec: _Decoder[_N], minimum: Optional[float], maximum: Optional[float]) -> _Decoder[_N]:
    def check(value: Any, path: str) -> _N:
        v = dec(value, path)
        if minimum is not None and v < minimum:
            raise DecodeError(path, f"must be >= {minimum}")
        if maximum is not None and v > maximum:
            raise DecodeError(path, f"must be <= {maximum}")
        return v

    return check


def _const(expected: _T) -> _Decoder[_T]:
    def check(value: Any, path: str) -> _T:
        if type(value) is not type(expected) or value != expected:
            raise DecodeError(path, f"expected {_json(expected)}, got {_json(value)}")
        return expected

    return check


def _enum(values: Tuple[_S, ...]) -> _Decoder[_S]:
    def check(value: Any, path: str) -> _S:
        if isinstance(value, str):
            for v in values:
                if v == value:
                    return v
        raise DecodeError(path, f"expected one of {', '.join(_json(v) for v in values)}, got {_json(value)}")

    return check


_PRIM_CHECKS: Dict[str, Callable[[Any, str], Any]] = {
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "null": _null,
}


def _prims(kinds: Tuple[str, ...]) -> Callable[[Any, str], Any]:
    def check(value: Any, path: str) -> Any:
        for kind in kinds:
            try:
                return _PRIM_CHECKS[kind](value, path)
            except DecodeError:
                pass
        raise _expected(" or ".join(kinds), value, path)

    return check


def _list(dec: _Decoder[_T], max_items: Optional[int] = None) -> _Decoder[List[_T]]:
    def check(value: Any, path: str) -> List[_T]:
        if not isinstance(value, list):
            raise _expected("array", value, path)
        if max_items is not None and len(value) > max_items:
            raise DecodeError(path, f"at most {max_items} items")
        return [dec(v, f"{path}[{i}]") for i, v in enumerate(value)]

    return check


def _map(dec: _Decoder[_T]) -> _Decoder[Dict[str, _T]]:
    def check(value: Any, path: str) -> Dict[str, _T]:
        o = _object(value, path)
        return {k: dec(v, _at(path, k)) for k, v in o.items()}

    return check


def _tagged(value: Any, path: str, member: str, table: Dict[str, _Decoder[_T]]) -> _T:
    o = _object(value, path)
    if member not in o:
        raise DecodeError(_at(path, member), "required")
    tag = o[member]
    dec = table.get(tag) if isinstance(tag, str) else None
    if dec is None:
        raise DecodeError(_at(path, member), f"expected one of {', '.join(_json(t) for t in table)}, got {_json(tag)}")
    return dec(o, path)


def _jsonrpc_kind(value: Any, path: str, table: Dict[str, _Decoder[_T]]) -> _T:
    o = _object(value, path)
    if "method" in o:
        kind = "request" if "id" in o else "notification"
    elif "result" in o:
        kind = "result"
    elif "error" in o:
        kind = "error"
    else:
        raise DecodeError(path, "not a JSON-RPC message (no method, result or error)")
    dec = table.get(kind)
    if dec is None:
        raise DecodeError(path, f"a JSON-RPC {kind} is not one of: {', '.join(table)}")
    return dec(o, path)


def _undeclared(value: Any) -> int:
    return len(getattr(value, "additional_properties")) if isinstance(value, _Message) and value._OPEN else 0


def _first(value: Any, path: str, name: str, decoders: Tuple[_Decoder[_T], ...]) -> _T:
    """An untagged union: the variant that decodes with the fewest undeclared members (the first on a tie)."""
    errors: List[str] = []
    best: Any = _MISSING
    for dec in decoders:
        try:
            got = dec(value, path)
        except DecodeError as error:
            errors.append(str(error))
            continue
        if best is _MISSING or _undeclared(got) < _undeclared(best):
            best = got
        if _undeclared(best) == 0:
            break
    if best is _MISSING:
        raise DecodeError(path, f"matches no variant of {name} ({'; '.join(errors)})")
    result: _T = best
    return result


def _json(value: Any) -> str:
    import json

    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def encode(value: Any) -> Any:
    """The JSON value (dicts, lists, primitives, as \`json.dumps\` takes them) of a decoded value."""
    if isinstance(value, _Message):
        return value.to_json()
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    return value


class _Message:
    """Base of every generated dataclass: \`to_json\` from the member table."""

    _SCHEMA_NAME: ClassVar[str]
    _FIELDS: ClassVar[Tuple[Tuple[str, str, bool], ...]]
    _OPEN: ClassVar[bool]

    def to_json(self) -> Dict[str, Any]:
        """The JSON object of this message: optional members left out when None."""
        out: Dict[str, Any] = {}
        for attr, key, required in self._FIELDS:
            v = getattr(self, attr)
            if v is None and not required:
                continue
            out[key] = encode(v)
        if self._OPEN:
            for k, v in getattr(self, "additional_properties").items():
                out[k] = encode(v)
        return out


def decode(type_name: str, value: Any) -> Any:
    """Decodes \`value\` as the schema type \`type_name\` (e.g. "JSONRPCMessage"); raises DecodeError."""
    dec = DECODERS.get(type_name)
    if dec is None:
        raise KeyError(f"no type {type_name} in revision {REVISION}")
    return dec(value, "")


@dataclass(frozen=True)
class RequestInfo:
    """One request of the method map: its message, params and result types."""

    method: str
    direction: str
    """\`clientToServer\` or \`serverToClient\`."""
    request: type
    params: Optional[Callable[[Any, str], Any]]
    params_required: bool
    result: Callable[[Any, str], Any]
    result_type: str
    alt_results: Tuple[str, ...]
    """Other results the receiver may answer with (CreateTaskResult, InputRequiredResult)."""
    capability: Optional[Tuple[str, ...]]
    """Capability path the receiver must declare, e.g. ("tools",)."""

    def decode_params(self, value: Any) -> Any:
        if self.params is None:
            raise DecodeError("params", "this request has no params")
        return self.params(value, "params")

    def decode_result(self, value: Any) -> Any:
        return self.result(value, "result")


@dataclass(frozen=True)
class NotificationInfo:
    """One notification of the method map."""

    method: str
    direction: str
    notification: type
    params: Optional[Callable[[Any, str], Any]]
    params_required: bool

    def decode_params(self, value: Any) -> Any:
        if self.params is None:
            raise DecodeError("params", "this notification has no params")
        return self.params(value, "params")
`;

/** Files of the Python package, relative to generated/<rev>/. */
export function emitPython(model: ProtocolModel): Map<string, string> {
  const e = new PythonEmitter(model);
  const pkg = pythonPackageName(model.revision);
  return new Map([
    ['bindings/python/pyproject.toml', e.pyproject()],
    [`bindings/python/${pkg}/__init__.py`, e.module()],
    [`bindings/python/${pkg}/py.typed`, `${preamble(model, '#')}\n`],
  ]);
}
