/**
 * The protocol table: the runtime's view of one MCP revision, emitted by the generator as
 * `generated/<rev>/protocol.gen.ts` and read by the peer engine. Plain data plus validators.
 */
import { isObject } from '../jsonrpc/message.js';

/** Which side sends the message. */
export type Direction = 'clientToServer' | 'serverToClient';

/** One validation failure, as ajv reports it (`instancePath` is a JSON Pointer). */
export interface ValidationError {
  instancePath: string;
  /** JSON Pointer fragment of the failing keyword in the validator's schema (`#/properties/a/type`). */
  schemaPath?: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** A compiled validator: returns true for valid data; on false, `errors` says why. */
export interface Validator {
  (data: unknown): boolean;
  errors?: ValidationError[] | null;
}

/** One request or notification method of a revision, in one direction. */
export interface MethodEntry {
  readonly method: string;
  readonly kind: 'request' | 'notification';
  readonly direction: Direction;
  /**
   * Schema type names, for messages and docs: in the revision's `table` and in the server's
   * (`serverTable`, which words a handler's invalid result with `resultTypes`); absent in the
   * client's (`clientTable`): the client runtime words nothing with them.
   */
  readonly requestType?: string;
  readonly paramsType?: string | null;
  readonly resultTypes?: readonly string[];
  /** Whether `params` must be present on the wire. */
  readonly paramsRequired: boolean;
  /**
   * Validates `params`: undefined when the method takes none, and in a side's table
   * (`clientTable` / `serverTable` of protocol.gen.ts) for what that side sends and so never checks.
   */
  readonly params?: Validator;
  /** Validates a result: any of `resultTypes` (requests only). */
  readonly result?: Validator;
  /**
   * Validates a `"complete"` result alone (the method's own result type), where `result` also
   * admits an InputRequiredResult (`inputRequired`) or a CreateTaskResult (`taskAugmentable`),
   * in every table of the revision: the client decodes such a result by its `resultType` and
   * checks a complete one with this, a server a handler's complete result, a task's requestor
   * the `tasks/result` (or the tasks extension's completed task's `result`), since the union
   * would let a complete result without its required members through `result` (an
   * InputRequiredResult has all its members optional; a CreateTaskResult is no tools/call result).
   */
  readonly complete?: Validator;
  /** Capability path the receiver must have declared, e.g. `['resources', 'subscribe']`. */
  readonly capability?: readonly string[];
  /** The request may carry `params.task` (task-augmented execution, 2025-11-25). */
  readonly taskAugmentable?: boolean;
  /** The result may be an InputRequiredResult (multi round-trip, 2026-07-28+). */
  readonly inputRequired?: boolean;
  /** Server→client request that travels inside an InputRequiredResult, never on its own. */
  readonly embedded?: boolean;
}

/** One entry as a generated table writes it: what its group ({@link methodGroup}) does not say. */
export type MethodFacts = Omit<MethodEntry, 'method' | 'kind' | 'direction'>;

/**
 * One group of a generated table (`requests.clientToServer`, …): each entry of `entries` (method
 * name → {@link MethodFacts}) with its `method`, `kind` and `direction` filled in first, so the
 * generated data does not spell them once per entry. Own members only; a new object (`entries`
 * is not changed). Pure: a bundler drops the groups of a table nobody imports.
 */
export function methodGroup<
  const K extends MethodEntry['kind'],
  const D extends Direction,
  const E extends Readonly<Record<string, MethodFacts>>,
>(
  kind: K,
  direction: D,
  entries: E,
): { readonly [M in keyof E & string]: { readonly method: M; readonly kind: K; readonly direction: D } & E[M] } {
  return Object.fromEntries(
    Object.keys(entries).map((method) => [method, { method, kind, direction, ...entries[method] }]),
  ) as never;
}

/**
 * Refuses `tables` of another lifecycle than `lifecycle`, naming both: what `where` (an HTTP
 * endpoint, a transport) serves and the revisions it was given that it cannot serve, with what
 * serves them. Throws TypeError; nothing for tables that fit.
 */
export function refuseOtherEra(
  where: string,
  lifecycle: ProtocolTable['lifecycle'],
  tables: readonly ProtocolTable[],
): void {
  const other = tables.filter((t) => t.lifecycle !== lifecycle);
  if (other.length === 0) return;
  const names = other.map((t) => t.revision).join(', ');
  const them = other.length === 1 ? `revision ${names}` : `revisions ${names}`;
  throw new TypeError(
    lifecycle === 'stateless'
      ? `${where} serves the stateless revisions (one request at a time, no initialize) and cannot serve ${them}, whose lifecycle is the handshake (initialize, then a session): serve ${other.length === 1 ? 'it' : 'them'} with createStreamableHttpHandler, or both eras with createDualEraHttpHandler`
      : `${where} serves the handshake revisions (initialize, then a session) and cannot serve ${them}, which ${other.length === 1 ? 'is' : 'are'} stateless (no initialize): serve ${other.length === 1 ? 'it' : 'them'} with createStatelessHttpHandler, or both eras with createDualEraHttpHandler`,
  );
}

/** The whole table of a revision. */
export interface ProtocolTable {
  readonly revision: string;
  readonly protocolVersion: string;
  /** `handshake`: initialize/initialized and sessions; `stateless`: per-request `_meta`. */
  readonly lifecycle: 'handshake' | 'stateless';
  /**
   * The client session's strategy for `lifecycle` (../session/lifecycle/: `handshakeClient` or
   * `statelessClient`, a `ClientLifecycleFactory`), set by generated tables so that a bundle
   * carries only the lifecycle of the tables it uses. Absent in hand-built tables: the client
   * session then takes the handshake strategy, and refuses a stateless table without one.
   */
  readonly clientLifecycle?: (host: never, table: never) => unknown;
  /**
   * The engine's dispatch of inbound JSON-RPC batches (../engine/batch.ts `dispatchBatch`), set by
   * the generated tables of revisions with `batches`, so that a bundle of others carries none.
   * A hand-built table with `batches` sets it too (without it a batch is answered with -32603).
   */
  readonly batchDispatch?: (host: never, items: unknown[], info: never) => void;
  /**
   * HTTP transport facts of the revision's `basic/transports` page: which transport it defines,
   * whether server SSE streams start with a priming event, and the version a server assumes for
   * a request that names none (read by the HTTP servers). Absent in hand-built tables and in
   * the client's table of a revision (`clientTable`).
   */
  readonly http?: {
    readonly transport: 'http+sse' | 'streamable-http';
    readonly primesStreams: boolean;
    readonly assumedVersion: string | null;
  };
  readonly requests: { readonly [D in Direction]: Readonly<Record<string, MethodEntry>> };
  readonly notifications: { readonly [D in Direction]: Readonly<Record<string, MethodEntry>> };
  /**
   * The error codes the revision's schema.ts exports (`METHOD_NOT_FOUND: -32601`,
   * `URL_ELICITATION_REQUIRED: -32042`, `HEADER_MISMATCH: -32020`…); read with {@link errorCodeOf}.
   */
  readonly errorCodes: Readonly<Record<string, number>>;
  /**
   * The revision's `LoggingLevel` values, least severe first (the order of schema.ts's union:
   * server/utilities/logging, "Log Levels"; read by servers). Absent in hand-built tables and in
   * the client's table (`clientTable`): RFC 5424's eight severities in that order
   * (runtime/engine/context.ts `LOG_LEVELS`).
   */
  readonly loggingLevels?: readonly string[];
  /**
   * The capability trees of the revision's `ServerCapabilities` / `ClientCapabilities` types:
   * what a side may declare in this revision (see {@link capabilitiesOf}; read by servers).
   * Absent (hand-built tables, the client's table `clientTable`): unknown, so nothing is dropped.
   */
  readonly capabilities?: { readonly server?: CapabilityShape; readonly client?: CapabilityShape };
  /** The revision has JSON-RPC batches (its schema defines `JSONRPCBatchRequest`: 2025-03-26). */
  readonly batches?: boolean;
  /**
   * What `CallToolResult.structuredContent` may be in the revision's schema: `object` (a JSON
   * object: 2025-06-18, 2025-11-25) or `any` (any JSON value, `null`, `0`, `false` and `[]`
   * included: 2026-07-28, draft). Absent when the revision has no `structuredContent` (or the
   * table was built by hand): then any JSON value is taken. See {@link structuredContentAllowed}.
   */
  readonly structuredContent?: 'object' | 'any';
  /**
   * The revision's results carry `resultType` (its `Result` type has the member: 2026-07-28,
   * draft, and drafts that have it with the handshake lifecycle). A result without one is answered
   * as `"complete"`, on either side (runtime/engine/peer.ts). Absent: results have no `resultType`.
   */
  readonly resultType?: boolean;
  /**
   * Where `server/discover` answers with the server's Implementation: `_meta`
   * (`_meta["io.modelcontextprotocol/serverInfo"]`, 2026-07-28) or `result` (a `serverInfo`
   * member of the result, as drafts had it). Absent (hand-built tables, the client's table):
   * `_meta`. Read by the stateless server; the client reads both places.
   */
  readonly discoverServerInfo?: 'result' | '_meta';
}

/**
 * Whether `value` is what `CallToolResult.structuredContent` may be in `table`'s revision
 * (`table.structuredContent`): a JSON object where the revision says `object`, any JSON value
 * otherwise. `undefined` is absence, never a value; `null`, `0`, `false`, `''` and `[]` are values.
 */
export function structuredContentAllowed(
  table: Pick<ProtocolTable, 'structuredContent'> | undefined,
  value: unknown,
): boolean {
  if (value === undefined) return false;
  return table?.structuredContent !== 'object' || isObject(value);
}

/**
 * The members a capabilities type defines: `true` where any value goes (an open object, a flag),
 * else the listed members, each with its own tree.
 */
export type CapabilityShape = true | { readonly [member: string]: CapabilityShape };

/**
 * `caps` with every member the revision's capabilities type does not define removed, at every
 * level (e.g. `tasks` before 2025-11-25, `completions` in 2024-11-05): what a side may advertise
 * once that revision is negotiated (basic/lifecycle, "Capability Negotiation"). Own members only;
 * the input is not changed. Without a shape in the table, `caps` is returned as given.
 */
export function capabilitiesOf(
  table: ProtocolTable,
  side: 'server' | 'client',
  caps: Record<string, unknown>,
): Record<string, unknown> {
  const shape = table.capabilities?.[side];
  return shape === undefined ? caps : (prune(caps, shape) as Record<string, unknown>);
}

/**
 * The code `name` has in the revision of `table` (`table.errorCodes`, the constants its
 * schema.ts exports, e.g. `errorCodeOf(table, 'HEADER_MISMATCH')` → -32020 in 2026-07-28). Own
 * members only. @throws RangeError when the revision defines no such code: a code of another
 * revision is never sent in its name.
 */
export function errorCodeOf(table: Pick<ProtocolTable, 'revision' | 'errorCodes'>, name: string): number {
  const code = Object.hasOwn(table.errorCodes, name) ? table.errorCodes[name] : undefined;
  if (typeof code !== 'number') throw new RangeError(`revision ${table.revision} defines no error code ${name}`);
  return code;
}

/** The protocol versions among `tables` whose revision has JSON-RPC batches (`table.batches`). */
export function batchProtocolVersions(tables: readonly ProtocolTable[]): string[] {
  return tables.filter((t) => t.batches === true).map((t) => t.protocolVersion);
}

function prune(value: unknown, shape: CapabilityShape): unknown {
  if (shape === true || !isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(shape, key)) out[key] = prune(value[key], shape[key]);
  }
  return out;
}

/** Type-level shape of one request method in a generated method map. */
export interface RequestShape {
  params: unknown;
  /** The result of a plain call. */
  result: unknown;
  /** Other results the receiver may answer with (CreateTaskResult, InputRequiredResult), or never. */
  alt: unknown;
}
/** Type-level shape of one notification method in a generated method map. */
export interface NotificationShape {
  params: unknown;
}
/**
 * Type-level method maps of a revision, one per direction (generated as `Protocol` in
 * protocol.gen.ts). The facades `Client<P>` and `Handlers<P>` are mapped types over it.
 */
export interface ProtocolMaps {
  clientRequests: Record<string, RequestShape>;
  serverRequests: Record<string, RequestShape>;
  clientNotifications: Record<string, NotificationShape>;
  serverNotifications: Record<string, NotificationShape>;
}

/** True when `path` (e.g. `['resources', 'subscribe']`) is declared: present and not false. */
export function hasCapability(caps: Record<string, unknown> | undefined, path: readonly string[]): boolean {
  let cur: unknown = caps;
  for (const key of path) {
    if (!isObject(cur) || !Object.hasOwn(cur, key)) return false;
    cur = cur[key];
  }
  return cur !== undefined && cur !== null && cur !== false;
}

/**
 * The sub-capability a request's params need beyond its table entry's `capability`, when the
 * receiver's `caps` lack it (undefined when nothing is missing): `elicitation/create` in mode
 * `"url"` needs `elicitation.url`, in mode `"form"` (or without a mode) `elicitation.form`, an
 * empty `elicitation: {}` counting as form (2025-11-25 client/elicitation, "Capabilities": servers
 * MUST NOT send a mode the client did not declare); `sampling/createMessage` carrying `tools`
 * needs `sampling.tools` (client/sampling, "Tools in Sampling"). Revisions without modes or tools
 * send neither field, so nothing more is asked of them.
 */
export function missingParamCapability(
  method: string,
  params: unknown,
  caps: Record<string, unknown> | undefined,
): readonly string[] | undefined {
  const p = isObject(params) ? params : {};
  if (method === 'elicitation/create') {
    if (!hasCapability(caps, ['elicitation'])) return undefined; // the entry's own capability, checked by the caller
    const mode = p.mode === undefined ? 'form' : p.mode;
    if (typeof mode !== 'string') return undefined; // invalid params: the schema check answers it
    const declared = (caps as Record<string, unknown>).elicitation;
    const formByDefault =
      mode === 'form' && typeof declared === 'object' && declared !== null && Object.keys(declared).length === 0;
    return formByDefault || hasCapability(caps, ['elicitation', mode]) ? undefined : ['elicitation', mode];
  }
  if (method === 'sampling/createMessage' && p.tools !== undefined) {
    return !hasCapability(caps, ['sampling']) || hasCapability(caps, ['sampling', 'tools'])
      ? undefined
      : ['sampling', 'tools'];
  }
  return undefined;
}

/**
 * Params as a client passes them: `_meta` optional (stateless revisions require it on the wire;
 * the client session fills in protocol version, capabilities and client info).
 */
export type ClientParams<T> = T extends { _meta: infer M } ? Omit<T, '_meta'> & { _meta?: Partial<M> } : T;
