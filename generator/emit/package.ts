/**
 * package emitter: `package.json` describing the npm package of one revision, which
 * `mcpgen pack` compiles and packs, and the package's entry modules beside its generated code.
 *
 * The package holds the revision's generated modules compiled to JavaScript with declarations,
 * and no copy of the runtime: its generated code imports the runtime package
 * ({@link RUNTIME_PACKAGE}) through {@link PACKAGE_RUNTIME_IMPORT}, and the runtime is a peer
 * dependency (`^<mcpgen version>`), so an app with several revisions' packages holds one runtime
 * (one `RpcError` class, one engine). Entry points (`exports`):
 *
 * - `.`: the revision's index (types, `validators`, `table`, `Client`, `Server`, dispatch);
 * - every subpath of {@link REVISION_EXPORTS} whose `when` holds for the revision's
 *   {@link RevisionFacts}: a module (`entries/<name>.js` and `.d.ts`) re-exporting the named
 *   runtime exports the revision's clients and servers use (its transports, its lifecycle's
 *   helpers, its extensions), so an app imports everything of a revision from its package.
 *
 * Version: the mcpgen version with the revision as build metadata (`1.0.0-rc.1+2025-11-25`). Like
 * every generated JSON file, it names its revision and both inputs' sha256 (top-level
 * `revision`, `protocolVersion` and `inputs`), since JSON cannot hold the preamble comment.
 */
import { readFileSync } from 'node:fs';
import type { ProtocolModel } from '../model.js';
import { type Files, MCPGEN_VERSION, preamble } from './common.js';

const ROOT_PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  license?: string;
  engines?: Record<string, string>;
};

/** The runtime package generated code and entry modules import. */
export const RUNTIME_PACKAGE = '@mcpgen/runtime';

/**
 * Runtime entry import of the package's generated modules (the `runtimeImport` emit option
 * `pack` generates with): the runtime package's `codegen/v1` subpath. This is the one place
 * the packed code's runtime specifier is set.
 */
export const PACKAGE_RUNTIME_IMPORT = `${RUNTIME_PACKAGE}/codegen/v1`;

/**
 * What a revision's package carries, read from its model (the facts its generated table holds),
 * never from the revision's name.
 */
export interface RevisionFacts {
  /** `handshake` (initialize, sessions) or `stateless` (per-request `_meta`). */
  lifecycle: ProtocolModel['lifecycle'];
  /** Streamable HTTP with sessions (`Mcp-Session-Id`): a handshake revision whose HTTP transport is streamable-http. */
  sessionHttp: boolean;
  /** Requests may be task-augmented (`params.task`, the in-protocol tasks utility). */
  tasksUtility: boolean;
  /** Requests may be answered with an InputRequiredResult (multi round-trip). */
  inputRequired: boolean;
  /** The revision has `subscriptions/listen`. */
  subscriptions: boolean;
  /** Results may carry cache hints (the schema has `CacheableResult`). */
  cache: boolean;
}

/** The {@link RevisionFacts} of `model`. */
export function revisionFacts(model: ProtocolModel): RevisionFacts {
  return {
    lifecycle: model.lifecycle,
    sessionHttp: model.lifecycle === 'handshake' && model.http.transport === 'streamable-http',
    tasksUtility: model.requests.some((r) => r.taskAugmentable),
    inputRequired: model.requests.some((r) => r.inputRequired),
    subscriptions: model.requests.some((r) => r.method === 'subscriptions/listen'),
    cache: Object.hasOwn(model.types, 'CacheableResult'),
  };
}

/**
 * One row of {@link REVISION_EXPORTS}: runtime exports a revision's package re-exports at
 * `subpath` when `when(facts)` holds. Several rows may share a subpath (the union of the rows
 * that hold is its module).
 */
export interface RevisionExport {
  /** The package's `exports` subpath, e.g. `./stdio`. */
  subpath: string;
  /** The runtime package's subpath the names come from, e.g. `./stdio` (`@mcpgen/runtime/stdio`). */
  from: string;
  /** Value exports (classes, functions, constants): in the `.js` and the `.d.ts`. */
  values: readonly string[];
  /** Type-only exports: in the `.d.ts` only. */
  types: readonly string[];
  /** What the row gives, for the package's README. */
  what: string;
  when(facts: RevisionFacts): boolean;
}

const always = (): boolean => true;
const handshake = (f: RevisionFacts): boolean => f.lifecycle === 'handshake';
const stateless = (f: RevisionFacts): boolean => f.lifecycle === 'stateless';

/**
 * Every per-revision entry point besides `.`, as data: the subpath names and the runtime
 * subpaths they draw from are the ones to adjust if the runtime package's layout moves.
 *
 * Handshake revisions: stdio, memory, Streamable HTTP server and client (`./http`, where the
 * revision's HTTP transport is Streamable HTTP), the legacy HTTP+SSE transport and the client's
 * fallback to it, the tasks receiver and requestor (where requests are task-augmentable).
 * Stateless revisions: stdio, memory, the stateless HTTP server and client, the dual-era
 * endpoint (its legacy side is a handshake revision's `./http` handler, passed as a parameter:
 * the package depends on no other revision's), the tasks extension, the input-required
 * helpers, subscriptions and the result cache (each where the revision has it).
 */
export const REVISION_EXPORTS: readonly RevisionExport[] = [
  {
    subpath: './errors',
    from: './jsonrpc',
    values: [
      'CapabilityNotDeclaredError',
      'ConnectionClosedError',
      'ErrorCode',
      'InvalidResultError',
      'RequestAbortedError',
      'RequestTimeoutError',
      'RpcError',
    ],
    types: ['ErrorObject'],
    what: "the error classes and codes (one `RpcError` class per app: the runtime's)",
    when: always,
  },
  {
    subpath: './errors',
    from: './session',
    values: ['OutputSchemaError', 'UnsupportedVersionError'],
    types: [],
    what: "the client's result and version errors",
    when: always,
  },
  {
    subpath: './features',
    from: './features',
    values: [
      'ServerFeatures',
      'compileUriTemplate',
      'describeValidation',
      'expandUriTemplate',
      'paginate',
      'uriTemplateVariables',
    ],
    types: [
      'Content',
      'PromptDefinition',
      'PromptMessage',
      'PromptResult',
      'ResourceContents',
      'ResourceDefinition',
      'ResourceTemplateDefinition',
      'ToolDefinition',
      'ToolResult',
    ],
    what: 'tools, resources, prompts and completions as handlers and capabilities; pagination',
    when: always,
  },
  {
    subpath: './stdio',
    from: './stdio',
    values: ['NotJsonRpcError', 'StdioClientTransport', 'StdioServerTransport', 'WriteQueueFullError'],
    types: ['StdioClientOptions', 'StdioServerOptions'],
    what: 'the stdio transport, client (spawns the server) and server',
    when: always,
  },
  {
    subpath: './memory',
    from: './memory',
    values: ['MemoryTransport', 'createMemoryPair'],
    types: ['MemoryPairOptions'],
    what: 'an in-process transport pair',
    when: always,
  },
  {
    subpath: './http',
    from: './http',
    values: [
      'HttpClientTransport',
      'HttpStatusError',
      'MemoryEventStore',
      'MemorySessionRegistry',
      'SessionExpiredError',
      'continueAfterChecks',
      'createStreamableHttpHandler',
    ],
    types: [
      'EventStore',
      'HttpClientTransportOptions',
      'ReconnectOptions',
      'ReplyMode',
      'SessionInfo',
      'SessionRegistry',
      'StreamableHttpHandler',
      'StreamableHttpOptions',
    ],
    what: 'Streamable HTTP with sessions: the server endpoint (node:http and fetch) and the client',
    when: (f) => f.sessionHttp,
  },
  {
    subpath: './http/legacy-sse',
    from: './http/legacy-sse',
    values: [
      'FallbackHttpClientTransport',
      'LegacySseClientTransport',
      'LegacySseServerTransport',
      'connectHttp',
      'createLegacySseHandler',
    ],
    types: ['FallbackHttpClientOptions', 'LegacySseClientOptions', 'LegacySseHandler', 'LegacySseOptions'],
    what: 'the HTTP+SSE transport (2024-11-05 era) and the client that falls back to it',
    when: handshake,
  },
  {
    subpath: './tasks',
    from: './tasks',
    values: [
      'InMemoryTaskStore',
      'RELATED_TASK_META',
      'TaskHandle',
      'TaskNotFoundError',
      'TaskNotSupportedError',
      'TaskReceiver',
      'TaskReceiverSetupError',
      'attachTaskReceiver',
      'callWithTask',
      'taskOf',
    ],
    types: [
      'InMemoryTaskStoreOptions',
      'Task',
      'TaskHandlerContext',
      'TaskReceiverOptions',
      'TaskRequestOptions',
      'TaskStatus',
      'TaskStore',
      'TaskSupport',
    ],
    what: 'task-augmented requests: the receiver (tasks/get, tasks/result, tasks/list, tasks/cancel) and the requestor',
    when: (f) => f.tasksUtility,
  },
  {
    subpath: './http/stateless',
    from: './http/stateless',
    values: [
      'StatelessHttpClientTransport',
      'StatelessHttpServerTransport',
      'createStatelessHttpHandler',
      'decodeHeaderValue',
      'encodeHeaderValue',
      'paramHeaders',
    ],
    types: ['ParamHeader', 'StatelessHttpClientOptions', 'StatelessHttpHandler', 'StatelessHttpOptions'],
    what: 'stateless HTTP: the server endpoint (node:http and fetch) and the client, request metadata headers',
    when: stateless,
  },
  {
    subpath: './http/stateless',
    from: './http',
    values: ['continueAfterChecks'],
    types: [],
    what: 'the `checkContinue` listener of node:http servers',
    when: stateless,
  },
  {
    subpath: './dual-era',
    from: './stateless',
    values: ['EraRouter', 'createDualEraHttpHandler', 'isModernRequest'],
    types: ['DualEraHttpHandler'],
    what: "one endpoint (or stdio connection) for both eras; its legacy side is a handshake revision's `./http` handler (or Server), passed in",
    when: stateless,
  },
  {
    subpath: './tasks',
    from: './tasks',
    values: ['InMemoryTaskStore', 'TASKS_EXTENSION', 'TasksExtension', 'declaresTasksExtension'],
    types: [
      'CreateTaskResult',
      'DetailedTask',
      'Task',
      'TaskContext',
      'TaskStatus',
      'TaskStore',
      'TasksExtensionOptions',
    ],
    what: 'the tasks extension (`io.modelcontextprotocol/tasks`): tasks/get, tasks/update, tasks/cancel',
    when: (f) => stateless(f) && !f.tasksUtility,
  },
  {
    subpath: './input-required',
    from: './stateless',
    values: [
      'InputRequestError',
      'InvalidRequestStateError',
      'MaxInputRoundsError',
      'RequestStateSealer',
      'inputRequest',
      'inputRequired',
      'readInput',
      'requireClientCapabilities',
    ],
    types: ['InputRequest', 'InputRequests', 'InputRequiredResult', 'InputResponses', 'RequestStateSealerOptions'],
    what: 'multi round-trip requests: input-required results, reading the responses, sealed requestState',
    when: (f) => f.inputRequired,
  },
  {
    subpath: './subscriptions',
    from: './stateless',
    values: ['LISTEN_NOTIFICATIONS', 'SUBSCRIPTION_ID', 'SubscriptionHub', 'filterAccepts', 'grantFilter'],
    types: ['ListenOptions', 'Subscription', 'SubscriptionEnd', 'SubscriptionFilter', 'SubscriptionHubOptions'],
    what: "`subscriptions/listen`: filters, the server's hub, the client's subscription",
    when: (f) => f.subscriptions,
  },
  {
    subpath: './cache',
    from: './stateless',
    values: ['CACHEABLE_METHODS', 'DEFAULT_CACHE_HINT', 'ResultCache', 'applyCacheHints'],
    types: ['CacheHint', 'CachePolicy', 'CacheScope', 'ResultCacheOptions'],
    what: "result cache hints (server) and the client's result cache",
    when: (f) => f.cache,
  },
];

/** One entry point of a revision's package: its subpath, module (no extension) and re-exports. */
export interface PackageEntry {
  subpath: string;
  /** Path in the package without extension: `index`, `entries/http/stateless`. */
  module: string;
  /** The rows of {@link REVISION_EXPORTS} it is made of (none for `.`). */
  rows: readonly RevisionExport[];
}

/** The entry points of `model`'s package, in `exports` order: `.`, then the table's subpaths in table order. */
export function packageEntries(model: ProtocolModel): PackageEntry[] {
  const facts = revisionFacts(model);
  const bySubpath = new Map<string, RevisionExport[]>();
  for (const row of REVISION_EXPORTS) {
    if (!row.when(facts)) continue;
    const rows = bySubpath.get(row.subpath) ?? [];
    rows.push(row);
    bySubpath.set(row.subpath, rows);
  }
  return [
    { subpath: '.', module: 'index', rows: [] },
    ...[...bySubpath].map(([subpath, rows]) => ({ subpath, module: `entries/${subpath.slice(2)}`, rows })),
  ];
}

/**
 * The modules of `model`'s table entries (`entries/<name>.js` and `.d.ts`), ready to pack:
 * named re-exports from the runtime package, values in both files, types in the `.d.ts` only,
 * each name once per module (the first row naming it wins).
 */
export function packageEntryModules(model: ProtocolModel): Files {
  const files: Files = new Map();
  for (const entry of packageEntries(model)) {
    if (!entry.rows.length) continue;
    const seen = new Set<string>();
    const js: string[] = [preamble(model)];
    const dts: string[] = [preamble(model)];
    for (const row of entry.rows) {
      const spec = `${RUNTIME_PACKAGE}${row.from.slice(1)}`;
      const fresh = (n: string): boolean => !seen.has(n) && (seen.add(n), true);
      const values = row.values.filter(fresh);
      const types = row.types.filter(fresh);
      if (values.length) js.push(`export { ${values.join(', ')} } from '${spec}';`);
      const all = [...values, ...types.map((t) => `type ${t}`)];
      if (all.length) dts.push(`export { ${all.join(', ')} } from '${spec}';`);
    }
    files.set(`${entry.module}.js`, `${js.join('\n')}\n`);
    files.set(`${entry.module}.d.ts`, `${dts.join('\n')}\n`);
  }
  return files;
}

/** Generated files the package leaves out: the model, the parity check, and the manifest (packed from its own emitter). */
export const PACKAGE_EXCLUDED: ReadonlySet<string> = new Set(['model.json', 'parity.gen.ts', 'package.json']);

/** `@mcpgen/mcp-2025-11-25`: the package name of a revision. */
export function packageName(revision: string): string {
  return `@mcpgen/mcp-${revision.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')}`;
}

/** `1.0.0-rc.1+2025-11-25`: the mcpgen version, the revision as semver build metadata. */
export function packageVersion(revision: string): string {
  return `${MCPGEN_VERSION}+${revision.replace(/[^0-9A-Za-z-]+/g, '-')}`;
}

/** `^1.0.0-rc.1`: the runtime versions a package of this mcpgen works with (semver caret on this mcpgen's version). */
export function runtimeRange(): string {
  return `^${MCPGEN_VERSION}`;
}

/** The package manifest as data (what `package.json` holds). */
export function packageManifest(model: ProtocolModel): Record<string, unknown> {
  const exports: Record<string, unknown> = {};
  for (const e of packageEntries(model))
    exports[e.subpath] = { types: `./${e.module}.d.ts`, default: `./${e.module}.js` };
  exports['./package.json'] = './package.json';
  return {
    name: packageName(model.revision),
    version: packageVersion(model.revision),
    description: `Model Context Protocol ${model.revision} (protocol version ${model.protocolVersion}): typed messages, validators, method maps, dispatch, Client and Server, generated by mcpgen ${MCPGEN_VERSION}`,
    license: ROOT_PACKAGE.license ?? 'MIT',
    type: 'module',
    sideEffects: false,
    engines: { node: ROOT_PACKAGE.engines?.node ?? '>=20' },
    types: './index.d.ts',
    exports,
    peerDependencies: { [RUNTIME_PACKAGE]: runtimeRange() },
    revision: model.revision,
    protocolVersion: model.protocolVersion,
    lifecycle: model.lifecycle,
    inputs: {
      schemaJson: { sha256: model.inputs.schemaJson.sha256 },
      schemaTs: { sha256: model.inputs.schemaTs.sha256 },
    },
  };
}

export function emitPackage(model: ProtocolModel): Files {
  return new Map([['package.json', `${JSON.stringify(packageManifest(model), null, 2)}\n`]]);
}
