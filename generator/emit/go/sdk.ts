/**
 * The Go SDK of a revision, from the ProtocolModel (`generate --target go-sdk`): one package per
 * revision (`mcp<rev digits>`, written under `go/mcp<rev digits>/`), part of the user's own
 * module, over the runtime module `mcpgen.dev/runtime`, imported only through its contract
 * package `mcpgen.dev/runtime/codegen`.
 *
 * - `types.go`: the message types (generator/emit/go/types.ts): structs, sealed-interface unions
 *   (with `Match<Union>` visitors), aliases; validating decoders naming the failing path,
 *   appenders;
 * - `protocol.go`: `Table`, the method maps the runtime reads (method → direction, capability,
 *   params and result decoders), error codes, log levels, HTTP facts;
 * - `server.go`: `ServerHandlers`, one method per client request the application answers (a set
 *   that misses one does not compile), `UnimplementedServerHandlers` (each answers -32601), the
 *   result unions of requests with several (`CallToolOutcome`), `Server` with its dispatch table,
 *   `ClientOf(req)` for the server's requests to a client;
 * - `client.go`: `Client`, one method per client request (`CallTool(ctx, *CallToolRequestParams)
 *   (*CallToolResult, error)`), notification senders, `ClientHandlers` for what the server asks;
 * - `features.go`: `Features`, typed registration of tools, resources, templates and prompts on
 *   the runtime's registry, itself a `ServerHandlers`.
 *
 * `--target go` (bindings.ts) stays the message-only binding: a standalone module
 * of the same messages, standard library only, for programs that bring their own transport.
 *
 * Pure and deterministic: the shape sorts declarations by name; the templates
 * (templates/sdk/*.hbs) only place what this view model resolved; the output is gofmt-clean.
 */
import type { NotificationDef, ProtocolModel, RequestDef } from '../../model.js';
import { byCodeUnit } from '../../util.js';
import { type Files, preamble } from '../common.js';
import { buildShape, methodTables } from '../shape.js';
import { uniqueNames } from '../naming.js';
import { templateFolder } from '../template.js';
import { goPackageName } from './common.js';
import { GoTypes, comments } from './types.js';

/** Package name of a revision: `mcp20251125`, `mcpdraft` (the bindings' name). */
export const goSdkPackage = goPackageName;

/** The runtime module generated packages import. */
export const GO_RUNTIME = { module: 'mcpgen.dev/runtime', entry: 'mcpgen.dev/runtime/codegen' };

/** Methods the runtime's lifecycles answer themselves: no application handler. */
const LIFECYCLE_METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'subscriptions/listen',
  'logging/setLevel',
]);

/** The requests the runtime's feature registry answers, and its method for each. */
const FEATURE_METHODS: Readonly<Record<string, string>> = {
  'completion/complete': 'Complete',
  'prompts/get': 'GetPrompt',
  'prompts/list': 'ListPrompts',
  'resources/list': 'ListResources',
  'resources/read': 'ReadResource',
  'resources/subscribe': 'Subscribe',
  'resources/templates/list': 'ListTemplates',
  'resources/unsubscribe': 'Unsubscribe',
  'tools/call': 'CallTool',
  'tools/list': 'ListTools',
};

const str = (s: string): string => JSON.stringify(s);

/** `CallToolRequest` → `CallTool`. */
function goMethodName(r: Pick<RequestDef, 'requestType'>): string {
  return r.requestType.replace(/Request$/, '');
}

/** `ToolListChangedNotification` → `ToolListChanged`. */
function goNotificationName(n: Pick<NotificationDef, 'notificationType'>): string {
  return n.notificationType.replace(/Notification$/, '');
}

const templates = templateFolder(new URL('./templates/sdk/', import.meta.url), {
  maxBlankLines: 1,
  trimLineEnds: true,
});

/** Renders templates/sdk/<name>.hbs; no blank line opens or closes a block (as gofmt leaves it). */
function render(name: string, view: object): string {
  return templates
    .render(name, view)
    .replace(/\{\n\n/g, '{\n')
    .replace(/\n\n(\t*\})/g, '\n$1');
}

/** The files of a revision's Go package, relative to the output folder (under `go/`). */
// size: the Go SDK's view model, one part per output file
export function emitGoSdk(model: ProtocolModel): Files {
  const shape = buildShape(model);
  const types = new GoTypes(model, shape);
  const pkg = goSdkPackage(model.revision);
  const header = preamble(model);
  const decl = (name: string | null) => (name ? shape.byName.get(name) : undefined);
  /** The params type of a request or notification: named, or the shape's hoisted `<Type>Params`. */
  const paramsOf = (named: string | null, messageType: string, hasParams: boolean): string | null => {
    if (named && decl(named)) return named;
    const hoisted = `${messageType}Params`;
    return hasParams && decl(hoisted) ? hoisted : null;
  };
  const goTypeOf = (name: string) => types.goType({ k: 'ref', name });
  const taken = new Set(shape.decls.map((d) => d.name));
  /** A package-level name of ours; the schema's names come first (fixed clash rule: `Name2`). */
  const own = (name: string): string => {
    const [n] = uniqueNames([name], new Set(), taken);
    taken.add(n);
    return n;
  };
  const { requests, notifications } = methodTables(model);
  const base = { preamble: header, pkg, revision: model.revision, revisionLit: str(model.revision) };

  // the result unions of requests answered with one of several results
  const outcomes = new Map<string, { name: string; method: string; variants: string[]; decoded: boolean }>();
  const outcomeOf = (r: RequestDef): string => {
    const alts = r.altResultTypes.filter((x) => decl(x));
    if (!alts.length) return goTypeOf(r.resultType);
    let o = outcomes.get(r.method);
    if (!o) {
      o = {
        name: own(`${goMethodName(r)}Outcome`),
        method: r.method,
        variants: [r.resultType, ...alts],
        decoded: false,
      };
      outcomes.set(r.method, o);
    }
    return o.name;
  };

  const handlerView = (r: RequestDef) => {
    const paramsType = paramsOf(r.paramsType, r.requestType, r.hasParams);
    const params = paramsType ? goTypeOf(paramsType) : null;
    const name = goMethodName(r);
    const desc = model.types[r.requestType]?.description;
    return {
      method: r.method,
      methodLit: str(r.method),
      name,
      params,
      hasParams: params !== null,
      paramsDecoder: paramsType ? `decode${paramsType}` : '',
      paramsArg: paramsType ? (decl(paramsType)?.kind === 'struct' ? 'codegen.Params(params)' : 'params') : 'nil',
      result: outcomeOf(r),
      primaryResult: goTypeOf(r.resultType),
      resultDecoder: `decode${r.resultType}`,
      doc: comments(
        [`${name} answers ${r.method}.`, ...(desc ? ['', ...desc.replace(/\r\n?/g, '\n').trimEnd().split('\n')] : [])],
        '\t',
      ),
      sendDoc: comments([
        `${name} sends ${r.method} and returns its result.`,
        ...(desc ? ['', ...desc.replace(/\r\n?/g, '\n').trimEnd().split('\n')] : []),
      ]),
    };
  };
  const notificationView = (n: NotificationDef) => {
    const paramsType = paramsOf(n.paramsType, n.notificationType, n.hasParams);
    const name = goNotificationName(n);
    return {
      method: n.method,
      methodLit: str(n.method),
      name,
      params: paramsType ? goTypeOf(paramsType) : null,
      hasParams: paramsType !== null,
      paramsDecoder: paramsType ? `decode${paramsType}` : '',
      paramsArg: paramsType ? (decl(paramsType)?.kind === 'struct' ? 'codegen.Params(params)' : 'params') : 'nil',
      broadcast: !!n.capability && n.direction === 'serverToClient',
    };
  };

  const clientRequests = requests.filter((r) => r.direction === 'clientToServer');
  const serverRequests = requests.filter((r) => r.direction === 'serverToClient' && r.method !== 'ping');
  const serverHandlers = clientRequests.filter((r) => !LIFECYCLE_METHODS.has(r.method)).map(handlerView);
  const clientHandlers = serverRequests.map(handlerView);
  const clientMethods = clientRequests
    .filter((r) => !['initialize', 'server/discover', 'subscriptions/listen'].includes(r.method))
    .map(handlerView);
  const serverToClient = serverRequests.filter((r) => !r.embedded).map(handlerView);

  const names = {
    requestContext: own('RequestContext'),
    serverHandlers: own('ServerHandlers'),
    unimplementedServer: own('UnimplementedServerHandlers'),
    serverNotificationHandlers: own('ServerNotificationHandlers'),
    serverOptions: own('ServerOptions'),
    server: own('Server'),
    newServer: own('NewServer'),
    clientOf: own('ClientOf'),
    requestClient: own('RequestClient'),
    clientHandlers: own('ClientHandlers'),
    unimplementedClient: own('UnimplementedClientHandlers'),
    clientNotificationHandlers: own('ClientNotificationHandlers'),
    clientOptions: own('ClientOptions'),
    client: own('Client'),
    newClient: own('NewClient'),
    callOption: own('CallOption'),
    withProgress: own('WithProgress'),
    progress: own('Progress'),
    features: own('Features'),
    newFeatures: own('NewFeatures'),
    toolHandler: own('ToolHandler'),
    resourceReader: own('ResourceReader'),
    templateReader: own('TemplateReader'),
    promptGetter: own('PromptGetter'),
    table: own('Table'),
    revisionConst: own('Revision'),
    protocolVersionConst: own('ProtocolVersion'),
    lifecycleConst: own('Lifecycle'),
    ptr: own('Ptr'),
  };
  /** Whether the struct `name` declares the member `json`. */
  const declares = (name: string, json: string): boolean => {
    const d = decl(name);
    return d?.kind === 'struct' && d.fields.some((f) => f.json === json);
  };
  const decoderOf = (name: string | null, params: boolean) =>
    name ? `${params ? 'paramsDecoder' : 'decoder'}(decode${name})` : 'nil';
  const spec = (r: RequestDef) => {
    const paramsType = paramsOf(r.paramsType, r.requestType, r.hasParams);
    const fields = [
      `Method: ${str(r.method)}`,
      `Direction: codegen.${r.direction === 'clientToServer' ? 'ClientToServer' : 'ServerToClient'}`,
      ...(r.capability ? [`Capability: []string{${r.capability.map(str).join(', ')}}`] : []),
      ...(r.paramsRequired ? ['ParamsRequired: true'] : []),
      ...(r.taskAugmentable ? ['TaskAugmentable: true'] : []),
      ...(r.inputRequired ? ['InputRequired: true'] : []),
      ...(r.embedded ? ['Embedded: true'] : []),
      ...(declares(r.resultType, 'resultType') ? ['ResultType: true'] : []),
      ...(declares(r.resultType, 'ttlMs') && declares(r.resultType, 'cacheScope') ? ['Cacheable: true'] : []),
      `DecodeParams: ${decoderOf(paramsType, true)}`,
      `DecodeResult: ${decoderOf(decl(r.resultType) ? r.resultType : null, false)}`,
    ];
    return `{${fields.join(', ')}}`;
  };
  const nspec = (n: NotificationDef) => {
    const paramsType = paramsOf(n.paramsType, n.notificationType, n.hasParams);
    const fields = [
      `Method: ${str(n.method)}`,
      `Direction: codegen.${n.direction === 'clientToServer' ? 'ClientToServer' : 'ServerToClient'}`,
      ...(n.capability ? [`Capability: []string{${n.capability.map(str).join(', ')}}`] : []),
      `DecodeParams: ${decoderOf(paramsType, true)}`,
    ];
    return `{${fields.join(', ')}}`;
  };
  const tableTypes = [
    'InitializeResult',
    'InputRequiredResult',
    'DiscoverResult',
    'CreateTaskResult',
    'SubscriptionsListenResult',
  ]
    .filter((n) => decl(n))
    .map((n) => ({ lit: str(n), name: n }));
  const errorCodes = Object.keys(model.errorCodes).sort(byCodeUnit);
  const goConst = (c: string) =>
    `Code${c.toLowerCase().replace(/(^|_)([a-z0-9])/g, (_m, _s, ch: string) => ch.toUpperCase())}`;
  const protocolView = {
    ...base,
    ...names,
    protocolVersionLit: str(model.protocolVersion),
    lifecycle: model.lifecycle === 'stateless' ? 'codegen.Stateless' : 'codegen.Handshake',
    lifecycleLit: str(model.lifecycle),
    requests: requests.map(spec),
    notifications: notifications.map(nspec),
    errorCodesLit: `map[string]int64{${errorCodes.map((c) => `${str(c)}: ${model.errorCodes[c]}`).join(', ')}}`,
    errorConsts: errorCodes.map((c) => ({
      name: own(goConst(c)),
      value: model.errorCodes[c],
      doc: comments([`${goConst(c)} is ${c} of revision ${model.revision}.`]),
    })),
    loggingLevels: `[]string{${(model.loggingLevels ?? []).map(str).join(', ')}}`,
    primesStreams: model.http.primesStreams,
    assumedVersionLit: str(model.http.assumedVersion ?? ''),
    httpTransportLit: str(model.http.transport),
    tableTypes,
  };

  const outcomeViews = () =>
    [...outcomes.values()]
      .sort((a, b) => byCodeUnit(a.name, b.name))
      .map((o) => ({
        name: o.name,
        method: o.method,
        doc: comments([
          `${o.name} is one of the results of ${o.method}: ${o.variants.map((v) => goTypeOf(v)).join(', ')}.`,
        ]),
        variants: o.variants.map((v) => ({ type: goTypeOf(v), decoder: `decode${v}` })),
        nameLit: str(o.name),
        decoded: o.decoded,
      }));

  const stateless = model.lifecycle === 'stateless';
  const serverNotifications = notifications.filter(
    (n) =>
      n.direction === 'clientToServer' &&
      !['notifications/cancelled', 'notifications/progress', 'notifications/initialized'].includes(n.method),
  );
  const clientNotifications = notifications.filter(
    (n) =>
      n.direction === 'serverToClient' &&
      !['notifications/cancelled', 'notifications/progress', 'notifications/subscriptions/acknowledged'].includes(
        n.method,
      ),
  );
  const feature = (method: string) => {
    const r = clientRequests.find((x) => x.method === method);
    if (!r) return undefined;
    const h = handlerView(r);
    const outcome = outcomes.get(r.method);
    if (outcome) outcome.decoded = true;
    return { ...h, registry: FEATURE_METHODS[method], resultDecoderName: outcome ? outcome.name : r.resultType };
  };
  const featureMethods = Object.keys(FEATURE_METHODS)
    .sort(byCodeUnit)
    .map(feature)
    .filter((x): x is NonNullable<ReturnType<typeof feature>> => !!x);
  const callTool = feature('tools/call');
  const readResource = feature('resources/read');
  const getPrompt = feature('prompts/get');
  const hasTemplates = !!feature('resources/templates/list');
  const serverView = {
    ...base,
    ...names,
    stateless,
    handlers: serverHandlers,
    serverToClient,
    notificationHandlers: serverNotifications.map(notificationView),
    broadcasts: notifications.filter((n) => n.direction === 'serverToClient' && n.capability).map(notificationView),
    outcomes: [] as ReturnType<typeof outcomeViews>,
    hasFeatures: featureMethods.length > 0,
    hasLogging: !!model.loggingLevels?.length,
    hasImplementation: !!decl('Implementation'),
    hasServerCapabilities: !!decl('ServerCapabilities'),
    hasClientCapabilities: !!decl('ClientCapabilities'),
    hasInputResponses: !!decl('InputResponses'),
  };
  const clientView = {
    ...base,
    ...names,
    stateless,
    handlers: clientHandlers,
    methods: clientMethods,
    notifications: notifications
      .filter(
        (n) =>
          n.direction === 'clientToServer' &&
          !['notifications/initialized', 'notifications/cancelled', 'notifications/progress'].includes(n.method),
      )
      .map(notificationView),
    notificationHandlers: clientNotifications.map(notificationView),
    hasListen: !!clientRequests.find((r) => r.method === 'subscriptions/listen') && !!decl('SubscriptionFilter'),
    hasImplementation: !!decl('Implementation'),
    hasClientCapabilities: !!decl('ClientCapabilities'),
  };
  const featuresView = {
    ...base,
    ...names,
    methods: featureMethods,
    callTool,
    readResource,
    getPrompt,
    hasTemplates,
    hasResources: !!feature('resources/list'),
    hasPrompts: !!getPrompt,
    hasTools: !!callTool,
    hasServerCapabilities: !!decl('ServerCapabilities'),
  };
  // outcomes are known once every view that names one is built
  serverView.outcomes = outcomeViews();
  const typesView = types.view();
  const docView = {
    ...base,
    ...names,
    protocolVersionLit: str(model.protocolVersion),
    lifecycleLit: str(model.lifecycle),
    doc: comments([
      `Package ${pkg} is the Model Context Protocol, revision ${model.revision} (protocol version ${model.protocolVersion}), for Go:`,
      'the message types with validating decoders, the method maps (Table), a typed Client and',
      'Server (whose ServerHandlers a handler set must implement in full), and Features, over the',
      `runtime ${GO_RUNTIME.module} (imported through ${GO_RUNTIME.entry}).`,
    ]),
  };
  const files: Files = new Map();
  const dir = `go/${pkg}`;
  files.set(`${dir}/doc.go`, render('doc.go', docView));
  files.set(`${dir}/types.go`, render('types.go', { ...base, ...typesView }));
  files.set(`${dir}/protocol.go`, render('protocol.go', protocolView));
  files.set(`${dir}/server.go`, render('server.go', serverView));
  files.set(`${dir}/client.go`, render('client.go', clientView));
  if (featureMethods.length) files.set(`${dir}/features.go`, render('features.go', featuresView));
  return new Map([...files].sort(([a], [b]) => byCodeUnit(a, b)));
}
