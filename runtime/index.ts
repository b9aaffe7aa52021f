/**
 * The public runtime entry. Generated revisions (`generated/<rev>/index.ts`) give the typed
 * `Client` and `Server`; this module gives what they are used with. Generated code itself
 * imports only `./codegen/v1.js`.
 */

// ---- for users: connecting, serving, errors ------------------------------------------------
export { StdioClientTransport, StdioServerTransport } from './transport/stdio.js';
export type { StdioClientOptions, StdioServerOptions } from './transport/stdio.js';
export { HttpClientTransport, SessionExpiredError, HttpStatusError } from './transport/http-client.js';
export { createStreamableHttpHandler, MemoryEventStore } from './transport/http-server.js';
export { continueAfterChecks } from './transport/http-node-io.js';
export { MemorySessionRegistry } from './transport/session-registry.js';
export type { SessionRegistry } from './transport/session-registry.js';
export { createLegacySseHandler, LegacySseClientTransport, LegacySseServerTransport } from './transport/http-sse-legacy.js';
export type { LegacySseClientOptions, LegacySseHandler, LegacySseOptions } from './transport/http-sse-legacy.js';
export { connectHttp, FallbackHttpClientTransport } from './transport/http-fallback.js';
export { createMemoryPair, MemoryTransport } from './transport/memory.js';
export { createStatelessHttpHandler, StatelessHttpServerTransport } from './transport/http-stateless.js';
export type { StatelessHttpHandler, StatelessHttpOptions } from './transport/http-stateless.js';
export { StatelessHttpClientTransport } from './transport/http-stateless-client.js';
export { createDualEraHttpHandler, EraRouter, isModernRequest } from './dual-era.js';
export type { DualEraHttpHandler } from './dual-era.js';
export { decodeHeaderValue, encodeHeaderValue, paramHeaders } from './transport/http-headers.js';
export type { ParamHeader } from './transport/http-headers.js';
export { ServerFeatures } from './features.js';
export { paginate } from './pagination.js';
export { callWithTask, TaskHandle, TaskNotSupportedError } from './task-requestor.js';
export { attachTaskReceiver, TaskReceiver, taskOf } from './task-receiver.js';
export type { TaskReceiverOptions, TaskSupport } from './task-receiver.js';
export { InMemoryTaskStore } from './tasks.js';
export type { Task, TaskStatus, TaskStore } from './tasks.js';
export { declaresTasksExtension, TASKS_EXTENSION, TasksExtension } from './tasks-extension.js';
export type { CreateTaskResult, DetailedTask, TaskContext, TasksExtensionOptions } from './tasks-extension.js';
export { inputRequired, inputRequest, readInput, requireClientCapabilities, RequestStateSealer } from './mrtr.js';
export type { Subscription, SubscriptionFilter } from './subscriptions.js';
export {
  CapabilityNotDeclaredError,
  ConnectionClosedError,
  ErrorCode,
  InvalidResultError,
  RequestAbortedError,
  RequestTimeoutError,
  RpcError,
} from './errors.js';
export type { ErrorObject } from './errors.js';
export { UnsupportedVersionError } from './client.js';
export type { Implementation, RequestOptions, ServerDescription } from './client.js';
export type { LogLevel } from './server.js';
export type { RequestContext } from './peer.js';
export type { Transport, TransportEvents, JSONRPCMessage, MessageInfo } from './transport/types.js';

// ---- for library authors: the engine and the sessions under the generated classes ----------
export { Peer } from './peer.js';
export type { PeerOptions } from './peer.js';
export { ClientSession } from './client.js';
export type { ClientSessionOptions } from './client.js';
export { ServerSession } from './server.js';
export type { ServerSessionOptions } from './server.js';
export type { CapabilityShape, ProtocolMaps, ProtocolTable, MethodEntry } from './table.js';
export { batchProtocolVersions, capabilitiesOf } from './table.js';
