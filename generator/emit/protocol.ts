/**
 * protocol emitter: the type-level method maps (`method → { params, result }` per direction)
 * and the runtime table the peer engine reads; dispatch emitter: handler tables and dispatch
 * functions; index emitter: the revision's public entry.
 */
import type { JsonSchema, NotificationDef, ProtocolModel, RequestDef } from '../model.js';
import { byCodeUnit } from '../util.js';
import { discoverServerInfo, resultTypeFact } from '../runtime-facts.js';
import { type EmitOptions, type Files, jsdoc, preamble, render } from './common.js';
import { paramsValidatorName, resultValidatorName } from './validators.js';

const q = (s: string) => `'${s}'`;
type Def = RequestDef | NotificationDef;
const isRequest = (d: Def): d is RequestDef => 'requestType' in d;
const typeName = (d: Def) => (isRequest(d) ? d.requestType : d.notificationType);

function mapEntry(model: ProtocolModel, d: Def) {
  const name = typeName(d);
  const params = d.hasParams ? `T.${name}['params']` : 'undefined';
  const doc: string[] = [];
  const desc = model.types[name]?.description;
  if (desc) doc.push(desc, '');
  if (isRequest(d)) {
    if (d.taskAugmentable) doc.push('May be task-augmented (`params.task`): then answered with CreateTaskResult.');
    if (d.inputRequired) doc.push('May be answered with an InputRequiredResult (multi round-trip).');
    if (d.embedded) doc.push('Sent only inside an InputRequiredResult.');
  }
  doc.push(`@see ${model.revision} #/$defs/${name}`);
  if (model.types[name]?.deprecated !== undefined) doc.push(`@deprecated ${model.types[name].deprecated}`.trim());
  return {
    method: d.method,
    jsdoc: jsdoc(doc, '  '),
    params,
    result: isRequest(d) ? `T.${d.resultType}` : '',
    alt: isRequest(d) && d.altResultTypes.length ? d.altResultTypes.map((t) => `T.${t}`).join(' | ') : 'never',
  };
}

/**
 * Which validators a table carries: `both` (the revision's `table`) or those one side checks
 * (runtime/engine/peer.ts and the layers above it): a side checks the params of what it
 * receives and the results of every request, its own and the other side's (a result it receives,
 * a result its handler returns); the params of what it sends it does not check, except a server
 * the params of the embedded requests it puts in an InputRequiredResult (stateless/mrtr.ts).
 * A bundler then keeps only the validators of the side's table the app uses.
 */
export type TableSide = 'both' | 'client' | 'server';

function checksParams(d: Def, side: TableSide): boolean {
  if (side === 'both') return true;
  const receives = d.direction === (side === 'client' ? 'serverToClient' : 'clientToServer');
  return receives || (side === 'server' && isRequest(d) && d.embedded);
}

/**
 * Whether a table carries the schema type names of its entries (`requestType`, `paramsType`,
 * `resultTypes`): `both` and `server` do (the server words a handler's invalid result with
 * `resultTypes`, features/server-features.ts); the client's table does not (nothing of the
 * client reads them).
 */
const namesTypes = (side: TableSide) => side !== 'client';

function tableEntry(d: Def, side: TableSide) {
  const req = isRequest(d);
  return {
    method: d.method,
    names: namesTypes(side),
    typeName: typeName(d),
    paramsType: d.paramsType ? q(d.paramsType) : 'null',
    resultTypes: req ? [d.resultType, ...d.altResultTypes].map(q).join(', ') : '',
    paramsRequired: d.paramsRequired,
    params: checksParams(d, side) ? (paramsValidatorName(d) ?? '') : '',
    result: req ? resultValidatorName(d) : '',
    // the complete result's own type where `result` is a union with InputRequiredResult or
    // CreateTaskResult: a client decodes such a result by resultType first (stateless/mrtr.ts
    // decodeResult), a server checks a handler's complete result with it, a task's requestor its
    // `tasks/result` (tasks/handle.ts)
    complete: req && (d.inputRequired || d.taskAugmentable) ? d.resultType : '',
    capability: d.capability ? d.capability.map(q).join(', ') : '',
    taskAugmentable: req && d.taskAugmentable,
    inputRequired: req && d.inputRequired,
    embedded: req && d.embedded,
  };
}

/**
 * The capability tree a `*Capabilities` type defines, for the runtime to drop what a revision
 * does not know (runtime/protocol/table.ts `CapabilityShape`): `true` where any value is allowed (an
 * object with no listed members, `additionalProperties`, a leaf), else an object of the listed
 * members, each with its own tree. References (`#/$defs/X`) are followed; undefined when the
 * revision has no such type.
 */
export function capabilityShape(model: ProtocolModel, typeName: string): unknown {
  const deref = (s: JsonSchema | undefined, depth = 0): JsonSchema | undefined => {
    const ref = typeof s?.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(s.$ref) : null;
    return ref && depth < 32 ? deref(model.types[ref[1]]?.schema, depth + 1) : s;
  };
  const walk = (s: JsonSchema | undefined, depth: number): unknown => {
    const node = deref(s);
    const props = node?.properties as Record<string, JsonSchema> | undefined;
    const keys = props ? Object.keys(props).sort(byCodeUnit) : [];
    if (!keys.length || depth > 16 || (node?.additionalProperties !== undefined && node.additionalProperties !== false))
      return true;
    return Object.fromEntries(keys.map((k) => [k, walk(props![k], depth + 1)]));
  };
  return Object.hasOwn(model.types, typeName) ? walk(model.types[typeName].schema, 0) : undefined;
}

/**
 * What `CallToolResult.structuredContent` may be in the revision's schema: `object` when its
 * schema is `type: "object"` (2025-06-18, 2025-11-25), `any` when it admits any JSON value
 * (2026-07-28, draft), undefined when the revision has no such member.
 */
export function structuredContentKind(model: ProtocolModel): 'object' | 'any' | undefined {
  const result = Object.hasOwn(model.types, 'CallToolResult') ? model.types.CallToolResult.schema : undefined;
  const props = result?.properties as Record<string, JsonSchema> | undefined;
  let s = props && Object.hasOwn(props, 'structuredContent') ? props.structuredContent : undefined;
  for (let depth = 0; typeof s?.$ref === 'string' && depth < 32; depth++) {
    const ref = /^#\/\$defs\/(.+)$/.exec(s.$ref);
    s = ref ? model.types[ref[1]]?.schema : undefined;
  }
  if (s === undefined) return undefined;
  return s.type === 'object' ? 'object' : 'any';
}

// size: the protocol module view, one part per table; 2 lines over
export function emitProtocol(model: ProtocolModel, opts: EmitOptions): Files {
  const pick = <D extends Def>(list: D[], dir: RequestDef['direction']) => list.filter((d) => d.direction === dir);
  const maps = [
    {
      name: 'ClientRequests',
      doc: 'Requests a client sends (client → server).',
      list: pick(model.requests, 'clientToServer'),
    },
    {
      name: 'ServerRequests',
      doc: 'Requests a server sends (server → client).',
      list: pick(model.requests, 'serverToClient'),
    },
    {
      name: 'ClientNotifications',
      doc: 'Notifications a client sends.',
      list: pick(model.notifications, 'clientToServer'),
    },
    {
      name: 'ServerNotifications',
      doc: 'Notifications a server sends.',
      list: pick(model.notifications, 'serverToClient'),
    },
  ].map((m) => ({ name: m.name, doc: m.doc, entries: m.list.map((d) => mapEntry(model, d)) }));
  const groups = (side: TableSide) =>
    (['requests', 'notifications'] as const).map((kind) => ({
      kind,
      entryKind: kind === 'requests' ? 'request' : 'notification',
      directions: (['clientToServer', 'serverToClient'] as const).map((direction) => ({
        direction,
        entries: pick<Def>(model[kind], direction).map((d) => tableEntry(d, side)),
      })),
    }));
  const tables = [
    {
      name: 'table',
      clientLifecycle: true,
      serverFacts: true,
      doc: ' * The runtime table: method, direction, validators and capability per method, with the\n * validators of both sides (for tools, tests and anything that checks both directions).',
      groups: groups('both'),
    },
    {
      name: 'clientTable',
      clientLifecycle: true,
      // what only servers read (HTTP facts, logging levels, capability trees) stays out
      serverFacts: false,
      doc: ' * The runtime table as a client uses it (the generated `Client` reads it): the validators of\n * every result, of the requests and notifications a server sends, none of what a client sends;\n * no schema type names, HTTP facts, logging levels or capability trees (what only servers read).',
      groups: groups('client'),
    },
    {
      name: 'serverTable',
      clientLifecycle: false,
      serverFacts: true,
      doc: ' * The runtime table as a server uses it (the generated `Server` and `createServerDispatch`\n * read it): the validators of every result, of the requests and notifications a client sends,\n * and of the embedded requests a server puts in an InputRequiredResult; none of what else it sends.',
      groups: groups('server'),
    },
  ];
  const errorCodes = Object.entries(model.errorCodes)
    .sort(([a], [b]) => byCodeUnit(a, b))
    .map(([name, code]) => ({ name, code }));
  const base = {
    preamble: preamble(model),
    revision: model.revision,
    protocolVersion: model.protocolVersion,
    lifecycle: model.lifecycle,
    runtimeImport: opts.runtimeImport,
  };
  // what the runtime follows from the schema beyond methods: the capability trees each side may
  // declare, and whether the revision has JSON-RPC batches (a JSONRPCBatchRequest type: 2025-03-26)
  const shape = (name: string) => {
    const s = capabilityShape(model, name);
    return s === undefined
      ? ''
      : JSON.stringify(s)
          .replace(/"([A-Za-z_$][\w$]*)":/g, '$1: ')
          .replace(/,/g, ', ')
          .replace(/\{(?!\})/g, '{ ')
          .replace(/(?<!\{)\}/g, ' }');
  };
  const capabilities = { server: shape('ServerCapabilities'), client: shape('ClientCapabilities') };
  const batches = Object.hasOwn(model.types, 'JSONRPCBatchRequest');
  const structuredContent = structuredContentKind(model);
  // results that carry resultType, and where server/discover puts serverInfo (../runtime-facts.ts)
  const resultType = resultTypeFact(model);
  const serverInfo = discoverServerInfo(model);
  const methods = (dir: RequestDef['direction']) =>
    pick(model.requests, dir)
      .map((r) => q(r.method))
      .join(', ');
  const http = {
    ...model.http,
    assumedVersion: model.http.assumedVersion === null ? 'null' : q(model.http.assumedVersion),
  };
  const loggingLevels = (model.loggingLevels ?? []).map(q).join(', ');
  return new Map([
    [
      'protocol.gen.ts',
      render('protocol', {
        ...base,
        maps,
        tables,
        errorCodes,
        loggingLevels,
        capabilities,
        batches,
        http,
        structuredContent,
        resultType,
        discoverServerInfo: serverInfo,
      }),
    ],
    [
      'dispatch.gen.ts',
      render('dispatch', {
        ...base,
        clientMethods: methods('clientToServer'),
        serverMethods: methods('serverToClient'),
      }),
    ],
    ['index.ts', render('index', base)],
  ]);
}
