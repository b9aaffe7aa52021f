// size: the Python SDK's view model: one view per output file
/**
 * The Python SDK of a revision, from the ProtocolModel: one package per revision
 * (`mcp_<rev>`, distribution `mcpgen-mcp-<rev>`) over the runtime package `mcpgen_runtime`,
 * imported by name through its versioned entry point `mcpgen_runtime.codegen.v1`.
 *
 * - `models.py`: a pydantic v2 model per object type (camelCase wire names as aliases of
 *   snake_case fields, `extra="allow"` where the schema is open and `"forbid"` where it is closed,
 *   constants as `Literal` members that always serialize), discriminated unions wherever every
 *   variant has a distinct constant at one member, doc strings with the `@see` back-reference;
 * - `protocol.py`: the method maps (method → params model, result model, direction, capability)
 *   as the runtime's `ProtocolTable`, error codes, versions, log levels;
 * - `client.py`: `Client`, one `async def` per client request (`await client.call_tool(name=…,
 *   arguments=…)`), notification senders, typed handlers for what the server asks;
 * - `server.py`: `ServerHandlers` (a Protocol with one method per client request the application
 *   answers: mypy --strict refuses a `Server` given an object that lacks one or mistypes one),
 *   `UnimplementedServerHandlers` (each answers -32601), and `Server`, whose dispatch table is
 *   built from the handlers, with one method per server request and notification.
 *
 * Pure and deterministic: the shape (../shape.ts) sorts declarations by name; the
 * templates (templates/sdk/*.hbs) only place what this view model resolved.
 */
import type { NotificationDef, ProtocolModel, RequestDef } from '../../model.js';
import { byCodeUnit } from '../../util.js';
import { MCPGEN_VERSION, inputHash, preamble, type Files } from '../common.js';
import { revisionId, snake, uniqueNames } from '../naming.js';
import { buildShape, docLines, resolveAlias, type Decl, type Shape, type StructDecl, type Ty } from '../shape.js';
import { templateFolder } from '../template.js';

/** The import name of a revision's package: `mcp_2025_11_25`, `mcp_draft`. */
export function pythonSdkPackage(revision: string): string {
  return `mcp_${revisionId(revision)}`;
}

/** The distribution name of a revision's package: `mcpgen-mcp-2025-11-25`. */
export function pythonSdkDistribution(revision: string): string {
  return `mcpgen-mcp-${revision.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}`;
}

/**
 * A semver version in PEP 440's spelling: `1.0.0-rc.1` → `1.0.0rc1`, `-alpha.2` → `a2`,
 * `-beta.3` → `b3` (what pip and the wheel's file name write); other versions as they are.
 */
export function pep440(version: string): string {
  const m = /^(\d+\.\d+\.\d+)-(alpha|beta|rc)\.(\d+)$/.exec(version);
  if (!m) return version;
  return `${m[1]}${{ alpha: 'a', beta: 'b', rc: 'rc' }[m[2] as 'alpha' | 'beta' | 'rc']}${m[3]}`;
}

/** The runtime distribution (and its version) generated packages depend on. */
export const PYTHON_RUNTIME = {
  distribution: 'mcpgen-runtime',
  module: 'mcpgen_runtime',
  entry: 'mcpgen_runtime.codegen.v1',
};

/** Methods the runtime's lifecycles answer themselves: no application handler. */
const LIFECYCLE_METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'subscriptions/listen',
  'logging/setLevel',
]);

/** Python keywords, and names a pydantic model or the generated methods may not use as a member. */
const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);
const MODEL_RESERVED = new Set([
  'schema',
  'json',
  'dict',
  'copy',
  'validate',
  'construct',
  'fields',
  'parse_obj',
  'parse_raw',
  'update_forward_refs',
  'register',
  'model_config',
  'model_fields',
  'model_extra',
  'model_fields_set',
  'model_computed_fields',
]);
/**
 * Result members the server runtime fills when a handler leaves them out (a default that always
 * serializes: its value; optional: null): `resultType` ("complete", 2026-07-28 basic/index) and the
 * caching hints `ttlMs` / `cacheScope` (server/utilities/caching), so that a handler builds
 * `CallToolResult(content=[…])` in every revision.
 */
const RUNTIME_FILLED: Readonly<Record<string, string | null>> = {
  resultType: 'complete',
  ttlMs: null,
  cacheScope: null,
};
const METHOD_RESERVED = new Set(['self', 'timeout', 'on_progress', 'meta', 'ctx', 'params']);

const str = (s: string): string => JSON.stringify(s);

/** A Python literal of a JSON constant. */
function pyConst(v: string | number | boolean): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return JSON.stringify(v);
}

/** A docstring block (`"""…"""`) indented by `indent`; empty when there are no lines. */
export function docstring(lines: string[], indent: string): string {
  if (!lines.length) return '';
  const esc = lines.map((l) => l.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"'));
  if (esc.length === 1 && !esc[0].endsWith('"')) return `${indent}"""${esc[0]}"""`;
  return [`${indent}"""${esc[0]}`, ...esc.slice(1).map((l) => (l ? `${indent}${l}` : '')), `${indent}"""`].join('\n');
}

/** A field's member name: snake_case, clear of keywords and pydantic's own names. */
function memberName(json: string): string {
  let n = snake(json);
  if (n.startsWith('model_')) n = `${n}_`;
  if (KEYWORDS.has(n) || MODEL_RESERVED.has(n)) n = `${n}_`;
  return n;
}

class View {
  readonly shape: Shape;
  constructor(readonly model: ProtocolModel) {
    this.shape = buildShape(model);
  }

  decl(name: string): Decl | undefined {
    return this.shape.byName.get(name);
  }

  /** Aliases on a cycle (JSONValue ↔ JSONObject): their references to each other are `Any`. */
  cyclic = new Set<string>();
  /** The alias being rendered, when it is on a cycle. */
  inCycle: string | undefined;

  /** Prefix of model names in annotations: '' inside models.py, `_m.` elsewhere. */
  prefix = '';

  /** The annotation of a type (`_t` is `typing`). */
  hint(t: Ty): string {
    switch (t.k) {
      case 'ref':
        return this.inCycle !== undefined && this.cyclic.has(t.name) ? '_t.Any' : `${this.prefix}${t.name}`;
      case 'string':
        return t.enum ? `_t.Literal[${t.enum.map(str).join(', ')}]` : 'str';
      case 'integer': {
        const bounds = [t.min !== undefined ? `ge=${t.min}` : '', t.max !== undefined ? `le=${t.max}` : ''].filter(
          Boolean,
        );
        return bounds.length ? `_t.Annotated[int, _p.Field(${bounds.join(', ')})]` : 'int';
      }
      case 'number': {
        const bounds = [t.min !== undefined ? `ge=${t.min}` : '', t.max !== undefined ? `le=${t.max}` : ''].filter(
          Boolean,
        );
        return bounds.length ? `_t.Annotated[int | float, _p.Field(${bounds.join(', ')})]` : 'int | float';
      }
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'const':
        return `_t.Literal[${pyConst(t.value)}]`;
      case 'any':
        return '_t.Any';
      case 'array':
        return t.maxItems !== undefined
          ? `_t.Annotated[list[${this.hint(t.items)}], _p.Field(max_length=${t.maxItems})]`
          : `list[${this.hint(t.items)}]`;
      case 'map':
        return `dict[str, ${this.hint(t.values)}]`;
      case 'prims': {
        const m: Record<string, string> = {
          string: 'str',
          integer: 'int',
          number: 'int | float',
          boolean: 'bool',
          null: 'None',
        };
        return [...new Set(t.kinds.map((k) => m[k]))].join(' | ');
      }
    }
  }

  /** Whether a type can be None (absent-or-null members need no extra `| None`). */
  nullable(t: Ty): boolean {
    const r = resolveAlias(this.shape, t);
    if (r.k === 'null' || r.k === 'any') return true;
    if (r.k === 'prims') return r.kinds.includes('null');
    return false;
  }

  /** Names a declaration's annotation refers to (aliases and unions, for ordering them). */
  refs(t: Ty, out: Set<string>): void {
    if (t.k === 'ref') out.add(t.name);
    else if (t.k === 'array') this.refs(t.items, out);
    else if (t.k === 'map') this.refs(t.values, out);
  }

  struct(d: StructDecl) {
    const names = uniqueNames(
      d.fields.map((f) => memberName(f.json)),
      new Set(),
    );
    const fields = d.fields.map((f, i) => {
      const name = names[i];
      const alias = name === f.json ? '' : f.json;
      let annotation = this.hint(f.ty);
      let value = '';
      // members the runtime fills when a server leaves them out: `resultType` ("complete": a
      // result's type unless it says otherwise) and the caching hints
      const filled = Object.hasOwn(RUNTIME_FILLED, f.json) ? RUNTIME_FILLED[f.json] : undefined;
      const required = f.required && !(filled === null && f.ty.k !== 'const');
      let constant = f.ty.k === 'const' ? pyConst(f.ty.value) : undefined;
      if (filled && f.required && f.ty.k === 'string' && !f.ty.enum) constant = str(filled);
      if (required) {
        if (constant !== undefined) value = alias ? `_p.Field(default=${constant}, alias=${str(alias)})` : constant;
        else if (alias) value = `_p.Field(alias=${str(alias)})`;
      } else {
        if (!this.nullable(f.ty)) annotation = `${annotation} | None`;
        value = alias ? `_p.Field(default=None, alias=${str(alias)})` : 'None';
      }
      return { name, annotation, value, doc: docstring(f.doc, '    '), constant: required && constant !== undefined };
    });
    const extra = d.extra === 'refuse' ? 'forbid' : 'allow';
    const constants = fields.filter((f) => f.constant).map((f) => str(f.name));
    return {
      name: d.name,
      doc: docstring(d.doc, '    '),
      config: extra === 'forbid' ? '    model_config = _p.ConfigDict(extra="forbid")' : '',
      fields,
      constants: constants.length
        ? `    __mcp_constants__: _t.ClassVar[frozenset[str]] = frozenset({${constants.join(', ')}})`
        : '',
      empty: fields.length === 0 && !constants.length && extra !== 'forbid',
    };
  }

  /** A union's annotation: discriminated by its tag member when every variant is a struct. */
  union(d: Decl & { kind: 'union' }): string {
    const variants = d.variants.map((v) => this.hint(v));
    const body = variants.join(' | ');
    if (d.tag.kind === 'const')
      return `_t.Annotated[${body}, _p.Field(discriminator=${str(memberName(d.tag.member))})]`;
    return body;
  }

  modelsView() {
    const structs = this.shape.decls.filter((d): d is StructDecl => d.kind === 'struct').map((d) => this.struct(d));
    // aliases and unions after every class, each after the ones it names
    const others = this.shape.decls.filter((d) => d.kind !== 'struct');
    const byName = new Map(others.map((d) => [d.name, d]));
    const done = new Set<string>();
    const ordered: Decl[] = [];
    const visit = (d: Decl, stack: string[]) => {
      if (done.has(d.name)) return;
      const at = stack.indexOf(d.name);
      if (at >= 0) {
        for (const n of stack.slice(at)) this.cyclic.add(n);
        return;
      }
      stack.push(d.name);
      const deps = new Set<string>();
      if (d.kind === 'alias') this.refs(d.ty, deps);
      else if (d.kind === 'union') for (const v of d.variants) this.refs(v, deps);
      for (const n of [...deps].sort(byCodeUnit)) {
        const dep = byName.get(n);
        if (dep) visit(dep, stack);
      }
      stack.pop();
      done.add(d.name);
      ordered.push(d);
    };
    for (const d of others) visit(d, []);
    const aliases = ordered.map((d) => {
      this.inCycle = this.cyclic.has(d.name) ? d.name : undefined;
      const value = d.kind === 'union' ? this.union(d) : this.hint((d as { ty: Ty }).ty);
      this.inCycle = undefined;
      return { name: d.name, value, doc: docstring(d.doc, '') };
    });
    return { structs, aliases, classNames: structs.map((s) => s.name) };
  }

  /** The params type of a request or notification: named, or the shape's hoisted `<Type>Params`. */
  paramsOf(named: string | null, messageType: string, hasParams: boolean): string | null {
    if (named) return named;
    const hoisted = `${messageType}Params`;
    return hasParams && this.decl(hoisted)?.kind === 'struct' ? hoisted : null;
  }

  /** Keyword arguments of a generated method from a params type's fields (not `_meta`, not `task`). */
  kwargs(paramsType: string | null) {
    if (!paramsType)
      return {
        args: [] as Array<{ name: string; json: string; annotation: string; required: boolean }>,
        hasMeta: false,
      };
    const d = this.decl(paramsType);
    if (d?.kind !== 'struct') return { args: [], hasMeta: false };
    const fields = d.fields.filter(
      (f) => f.json !== '_meta' && f.json !== 'task' && !(f.required && f.ty.k === 'const'),
    );
    const names = uniqueNames(
      fields.map((f) => memberName(f.json)),
      METHOD_RESERVED,
    );
    this.prefix = '_m.';
    const args = fields.map((f, i) => ({
      name: names[i],
      json: f.json,
      annotation: f.required || this.nullable(f.ty) ? this.hint(f.ty) : `${this.hint(f.ty)} | None`,
      required: f.required,
    }));
    this.prefix = '';
    // required first (keyword-only, so order is only for reading)
    args.sort((a, b) => Number(b.required) - Number(a.required));
    return { args, hasMeta: d.fields.some((f) => f.json === '_meta') };
  }
}

/** `CallToolRequest` → `call_tool`; `CompleteRequest` → `complete`. */
export function pyMethodName(r: Pick<RequestDef, 'requestType'>): string {
  return snake(r.requestType.replace(/Request$/, ''));
}

/** `ToolListChangedNotification` → `send_tool_list_changed`. */
function pyNotificationName(n: Pick<NotificationDef, 'notificationType'>): string {
  return `send_${snake(n.notificationType.replace(/Notification$/, ''))}`;
}

function docOf(model: ProtocolModel, typeName: string, method: string): string[] {
  const t = model.types[typeName];
  return docLines(model, typeName, t?.description ? `\`${method}\`: ${t.description}` : `\`${method}\``);
}

const templates = templateFolder(new URL('./templates/sdk/', import.meta.url), {
  maxBlankLines: 2,
  trimLineEnds: true,
});

/** Renders templates/sdk/<name>.hbs (at most two blank lines in a row, no spaces at line ends). */
function render(name: string, view: object): string {
  return templates.render(name, view);
}

/** The files of a revision's Python package, relative to the output folder (under `python/`). */
// size: the Python SDK's view model, one part per output file
export function emitPythonSdk(model: ProtocolModel): Files {
  const v = new View(model);
  const pkg = pythonSdkPackage(model.revision);
  const header = preamble(model, '#');
  const base = {
    preamble: header,
    revision: model.revision,
    protocolVersion: model.protocolVersion,
    runtime: PYTHON_RUNTIME.entry,
    pkg,
  };
  const modelsView = v.modelsView();
  const known = new Set(modelsView.classNames.concat(modelsView.aliases.map((a) => a.name)));
  const sorted = <T extends { method: string; direction: string }>(xs: T[]) =>
    [...xs].sort((a, b) => byCodeUnit(a.method, b.method) || byCodeUnit(a.direction, b.direction));

  const structNames = new Set(modelsView.classNames);
  // a union (ElicitRequestParams) is validated through a TypeAdapter
  const modelExpr = (name: string | null) =>
    name && known.has(name) ? (structNames.has(name) ? `_m.${name}` : `_p.TypeAdapter(_m.${name})`) : 'None';
  const modelAnnotation = (name: string | null) => (name && known.has(name) ? `_m.${name}` : 'None');
  const spec = (r: RequestDef) => ({
    methodLit: str(r.method),
    paramsExpr: modelExpr(v.paramsOf(r.paramsType, r.requestType, r.hasParams)),
    resultExpr: modelExpr(r.resultType),
    altExpr: r.altResultTypes
      .filter((x) => known.has(x) && x !== 'InputRequiredResult')
      .map((x) => `_m.${x}, `)
      .join(''),
    capability: r.capability ? `(${r.capability.map(str).join(', ')},)` : 'None',
    paramsRequired: r.paramsRequired ? 'True' : 'False',
    taskAugmentable: r.taskAugmentable ? 'True' : 'False',
    inputRequired: r.inputRequired ? 'True' : 'False',
    embedded: r.embedded ? 'True' : 'False',
    direction: r.direction,
  });
  const nspec = (n: NotificationDef) => ({
    methodLit: str(n.method),
    paramsExpr: modelExpr(v.paramsOf(n.paramsType, n.notificationType, n.hasParams)),
    capability: n.capability ? `(${n.capability.map(str).join(', ')},)` : 'None',
    direction: n.direction,
  });
  const requests = sorted(model.requests);
  const notifications = sorted(model.notifications);
  const tableModels = [
    'InputRequiredResult',
    'DiscoverResult',
    'InitializeResult',
    'CreateTaskResult',
    'Implementation',
    'ClientCapabilities',
    'ServerCapabilities',
  ].filter((n) => known.has(n));
  const protocolView = {
    ...base,
    clientRequests: requests.filter((r) => r.direction === 'clientToServer').map(spec),
    serverRequests: requests.filter((r) => r.direction === 'serverToClient').map(spec),
    clientNotifications: notifications.filter((n) => n.direction === 'clientToServer').map(nspec),
    serverNotifications: notifications.filter((n) => n.direction === 'serverToClient').map(nspec),
    revisionLit: str(model.revision),
    protocolVersionLit: str(model.protocolVersion),
    inputHashLit: str(inputHash(model)),
    lifecycleLit: str(model.lifecycle),
    errorCodes: Object.keys(model.errorCodes)
      .sort(byCodeUnit)
      .map((k) => ({ nameLit: str(k), value: model.errorCodes[k] })),
    loggingLevels: (model.loggingLevels ?? []).map(str).join(', '),
    primesStreams: model.http.primesStreams ? 'True' : 'False',
    assumedVersion: model.http.assumedVersion === null ? 'None' : str(model.http.assumedVersion),
    httpTransport: str(model.http.transport),
    tableModels: tableModels.map((name) => ({ name, lit: str(name) })),
  };

  /** One generated request method (client or server side). */
  const assignsOf = (args: Array<{ name: string; json: string; required: boolean }>, hasMeta: boolean) => {
    const assigns = args.map((a) => ({ name: a.name, json: str(a.json), required: a.required }));
    if (hasMeta) assigns.push({ name: 'meta', json: str('_meta'), required: false });
    return assigns;
  };
  const signatureOf = (args: Array<{ name: string; annotation: string; required: boolean }>, hasMeta: boolean) =>
    [
      ...args.map((a) => (a.required ? `${a.name}: ${a.annotation}` : `${a.name}: ${a.annotation} = None`)),
      ...(hasMeta ? ['meta: dict[str, _t.Any] | None = None'] : []),
    ]
      .map((x) => `${x}, `)
      .join('');
  const method = (r: RequestDef) => {
    const { args, hasMeta } = v.kwargs(v.paramsOf(r.paramsType, r.requestType, r.hasParams));
    const typed = known.has(r.resultType);
    return {
      methodLit: str(r.method),
      name: pyMethodName(r),
      signature: signatureOf(args, hasMeta),
      assigns: assignsOf(args, hasMeta),
      resultAnnotation: typed ? `_m.${r.resultType}` : 'dict[str, _t.Any]',
      resultExpr: typed ? `_m.${r.resultType}.from_wire(result)` : 'result',
      doc: docstring(docOf(model, r.requestType, r.method), '        '),
      hasParams: r.hasParams,
    };
  };
  const notificationMethod = (n: NotificationDef) => {
    const { args, hasMeta } = v.kwargs(v.paramsOf(n.paramsType, n.notificationType, n.hasParams));
    return {
      methodLit: str(n.method),
      name: pyNotificationName(n),
      signature: signatureOf(args, hasMeta),
      assigns: assignsOf(args, hasMeta),
      doc: docstring(docOf(model, n.notificationType, n.method), '        '),
    };
  };

  const clientRequests = requests.filter((r) => r.direction === 'clientToServer' && !LIFECYCLE_METHODS.has(r.method));
  const serverRequests = requests.filter((r) => r.direction === 'serverToClient' && r.method !== 'ping');
  const handlerOf = (r: RequestDef) => {
    const results = [r.resultType, ...r.altResultTypes].filter((x) => known.has(x)).map((x) => `_m.${x}`);
    const name = pyMethodName(r);
    return {
      method: r.method,
      methodLit: str(r.method),
      name,
      pascal: name
        .split('_')
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join(''),
      paramsAnnotation: modelAnnotation(v.paramsOf(r.paramsType, r.requestType, r.hasParams)),
      resultAnnotation: results.join(' | ') || '_t.Any',
      doc: docstring(docOf(model, r.requestType, r.method), '        '),
    };
  };
  const clientView = {
    ...base,
    requests: requests
      .filter(
        (r) =>
          r.direction === 'clientToServer' &&
          !['initialize', 'server/discover', 'subscriptions/listen'].includes(r.method),
      )
      .map(method),
    notifications: notifications
      .filter((n) => n.direction === 'clientToServer' && n.method !== 'notifications/initialized')
      .map(notificationMethod),
    handlers: serverRequests.map(handlerOf),
  };
  const serverView = {
    ...base,
    handlers: clientRequests.map(handlerOf),
    // server→client requests a server may send itself (not the embedded ones of input_required results)
    requests: serverRequests.filter((r) => !r.embedded).map(method),
    notifications: notifications.filter((n) => n.direction === 'serverToClient').map(notificationMethod),
    clientNotificationHandlers: notifications
      .filter(
        (n) =>
          n.direction === 'clientToServer' &&
          !['notifications/initialized', 'notifications/cancelled'].includes(n.method),
      )
      .map((n) => ({
        methodLit: str(n.method),
        name: `on_${snake(n.notificationType.replace(/Notification$/, ''))}`,
        paramsAnnotation: modelAnnotation(v.paramsOf(n.paramsType, n.notificationType, n.hasParams)),
      })),
  };
  const initView = { ...base, version: MCPGEN_VERSION };
  const files: Files = new Map();
  const dir = `python/${pkg}`;
  files.set(`${dir}/__init__.py`, render('init', initView));
  files.set(`${dir}/models.py`, render('models', { ...base, ...modelsView }));
  files.set(`${dir}/protocol.py`, render('protocol', protocolView));
  files.set(`${dir}/client.py`, render('client', clientView));
  files.set(`${dir}/server.py`, render('server', serverView));
  files.set(`${dir}/py.typed`, '');
  files.set(
    'python/pyproject.toml',
    render('pyproject', {
      preamble: header,
      distribution: pythonSdkDistribution(model.revision),
      version: `${pep440(MCPGEN_VERSION)}+${revisionId(model.revision).replace(/_/g, '.')}`,
      description: `Model Context Protocol ${model.revision} (protocol version ${model.protocolVersion}): pydantic models, method maps, Client and Server, generated by mcpgen ${MCPGEN_VERSION}`,
      runtime: PYTHON_RUNTIME.distribution,
      runtimeVersion: pep440(MCPGEN_VERSION),
      pkg,
    }),
  );
  return new Map([...files].sort(([a], [b]) => byCodeUnit(a, b)));
}
