/**
 * The exports the runtime's two entries share, one list: what runs on Node, browsers, workers,
 * Bun and Deno alike (the HTTP endpoints, the in-memory transport, features, tasks, errors, the
 * sessions and the engine). ./web.ts and ./index.ts re-export all of it beside what is theirs
 * alone (the fetch-based client transports; stdio, the `node:http` clients, HTTP+SSE, stores
 * and auth). Not an entry of its own: no package subpath names it. No `node:` import.
 *
 * @module
 */

// ---- servers (node:http listeners with a `.fetch` form) ------------------------------------
export { createStreamableHttpHandler } from './transport/http/session/server.js';
export { MemoryEventStore } from './transport/http/session/event-store.js';
export { MemorySessionRegistry } from './transport/http/session/registry.js';
export type { SessionRegistry } from './transport/http/session/registry.js';
export { createStatelessHttpHandler, StatelessHttpServerTransport } from './transport/http/stateless/server.js';
export type { StatelessHttpHandler, StatelessHttpOptions } from './transport/http/stateless/server.js';
export { createDualEraHttpHandler, EraRouter, isModernRequest } from './stateless/dual-era.js';
export type { DualEraHttpHandler } from './stateless/dual-era.js';
export { Cors, DEFAULT_EXPOSED_HEADERS } from './transport/http/io/cors.js';
export type { CorsOptions } from './transport/http/io/cors.js';
export { decodeHeaderValue, encodeHeaderValue, paramHeaders } from './transport/http/stateless/headers.js';
export type { ParamHeader } from './transport/http/stateless/headers.js';

// ---- schemas supplied at run time -----------------------------------------------------------
export { codeGenerationAllowed, schemaEngine, useSchemaEngine } from './protocol/json-schema.js';
export type { SchemaEngine } from './protocol/json-schema.js';

// ---- everything else that runs anywhere -------------------------------------------------------
export { createMemoryPair, MemoryTransport } from './transport/memory.js';
export { ServerFeatures } from './features/server-features.js';
export { paginate } from './features/pagination.js';
export { callWithTask, TaskNotSupportedError } from './tasks/requestor.js';
export { TaskHandle } from './tasks/handle.js';
export { attachTaskReceiver, TaskReceiver, taskOf } from './tasks/receiver.js';
export type { TaskReceiverOptions, TaskSupport } from './tasks/receiver.js';
export { InMemoryTaskStore } from './stores/tasks.js';
export type { Task, TaskStatus, TaskStore } from './stores/tasks.js';
export { declaresTasksExtension, TASKS_EXTENSION, TasksExtension } from './tasks/extension.js';
export type { CreateTaskResult, DetailedTask, TaskContext, TasksExtensionOptions } from './tasks/extension.js';
export { isCreateTaskResult, TaskCancelledError, TasksExtensionClient } from './tasks/extension-client.js';
export type { TasksExtensionClientOptions } from './tasks/extension-client.js';
export {
  inputRequired,
  inputRequest,
  readInput,
  requireClientCapabilities,
} from './stateless/mrtr.js';
export { RequestStateSealer } from './stateless/request-state.js';
export type { Subscription, SubscriptionFilter } from './stateless/subscriptions.js';
export {
  CapabilityNotDeclaredError,
  ConnectionClosedError,
  ErrorCode,
  InvalidResultError,
  RequestAbortedError,
  RequestNotProcessedError,
  RequestTimeoutError,
  RpcError,
} from './jsonrpc/errors.js';
export type { ErrorObject } from './jsonrpc/errors.js';
export { UnsupportedVersionError } from './session/client.js';
export { OutputSchemaError } from './session/output-schema-error.js';
export type { Implementation, RequestOptions, ServerDescription } from './session/client.js';
export type { LogLevel } from './session/server.js';
export type { RequestContext } from './engine/peer.js';
export type { Transport, TransportEvents, JSONRPCMessage, MessageInfo } from './jsonrpc/transport.js';
export { Peer } from './engine/peer.js';
export type { PeerOptions } from './engine/peer.js';
export { ClientSession } from './session/client.js';
export type { ClientSessionOptions } from './session/client.js';
export { ServerSession } from './session/server.js';
export type { ServerSessionOptions } from './session/server.js';
export type { CapabilityShape, ProtocolMaps, ProtocolTable, MethodEntry } from './protocol/table.js';
export { batchProtocolVersions, capabilitiesOf } from './protocol/table.js';
