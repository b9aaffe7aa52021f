/**
 * The public runtime entry. Generated revisions (`generated/<rev>/index.ts`) give the typed
 * `Client` and `Server`; this module gives what they are used with. Generated code itself
 * imports only `./codegen/v1.js`.
 *
 * @module
 */

// ---- for users: connecting, serving, errors ------------------------------------------------
export { NotJsonRpcError, StdioClientTransport, StdioServerTransport, WriteQueueFullError } from './transport/stdio.js';
export type { StdioClientOptions, StdioServerOptions } from './transport/stdio.js';
export { HttpClientTransport, SessionExpiredError, HttpStatusError } from './transport/http/session/client.js';
export { createStreamableHttpHandler, MemoryEventStore } from './transport/http/session/server.js';
export { continueAfterChecks } from './transport/http/io/node.js';
export type { SharedSessions, SessionInfo } from './transport/http/session/server.js';
export { MemorySessionStore, SessionLimitError } from './stores/sessions.js';
export type { SessionRecord, SessionStore, SessionStoreOptions } from './stores/sessions.js';
export { MemoryNotificationBus } from './stores/bus.js';
export type { BusMessage, NotificationBus } from './stores/bus.js';
export type { EventStore, SharedEventStore, FollowEnd } from './stores/events.js';
export { MemorySessionRegistry } from './transport/http/session/registry.js';
export type { SessionRegistry } from './transport/http/session/registry.js';
export { createLegacySseHandler, LegacySseClientTransport, LegacySseServerTransport } from './transport/http/legacy-sse/legacy-sse.js';
export type { LegacySseClientOptions, LegacySseHandler, LegacySseOptions } from './transport/http/legacy-sse/legacy-sse.js';
export { connectHttp, FallbackHttpClientTransport } from './transport/http/legacy-sse/fallback.js';
export { createMemoryPair, MemoryTransport } from './transport/memory.js';
export { createStatelessHttpHandler, StatelessHttpServerTransport } from './transport/http/stateless/server.js';
export type { StatelessHttpHandler, StatelessHttpOptions } from './transport/http/stateless/server.js';
export { StatelessHttpClientTransport } from './transport/http/stateless/client.js';
export { createDualEraHttpHandler, EraRouter, isModernRequest } from './stateless/dual-era.js';
export { Cors, DEFAULT_EXPOSED_HEADERS } from './transport/http/io/cors.js';
export type { CorsOptions } from './transport/http/io/cors.js';
export { codeGenerationAllowed, schemaEngine, useSchemaEngine } from './protocol/json-schema.js';
export type { SchemaEngine } from './protocol/json-schema.js';
export type { DualEraHttpHandler } from './stateless/dual-era.js';
export { decodeHeaderValue, encodeHeaderValue, paramHeaders } from './transport/http/stateless/headers.js';
export type { ParamHeader } from './transport/http/stateless/headers.js';
export { bearerAuth, protectedResourceMetadata, resourceMetadataEndpoint, resourceMetadataUrl, bearerChallenge } from './auth/resource.js';
export type { BearerAuthOptions, ProtectedResourceMetadata, ResourceMetadataEndpoint } from './auth/resource.js';
export { oauthFetch, MemoryTokenStore, AuthorizationError, parseBearerChallenge } from './auth/client.js';
export type { ClientRegistration, OAuthClientOptions, OAuthFetch, StoredTokens, TokenStore, UserAgent } from './auth/client.js';
export { startLoopbackRedirect } from './auth/loopback-redirect.js';
export type { LoopbackRedirect, LoopbackRedirectOptions } from './auth/loopback-redirect.js';
export { discoverAuthorizationServer, discoverResourceMetadata, DiscoveryError } from './auth/discovery.js';
export type { AuthRefusal, Authorizer, AuthRequest, AuthVerdict } from './auth/types.js';
export type { AuthInfo } from './jsonrpc/transport.js';
export { ServerFeatures } from './features/server-features.js';
export { paginate } from './features/pagination.js';
export { callWithTask, TaskNotSupportedError } from './tasks/requestor.js';
export { TaskHandle } from './tasks/handle.js';
export { attachTaskReceiver, TaskReceiver, taskOf } from './tasks/receiver.js';
export type { TaskReceiverOptions, TaskSupport } from './tasks/receiver.js';
export { InMemoryTaskStore } from './tasks/store.js';
export type { Task, TaskStatus, TaskStore } from './tasks/store.js';
export { declaresTasksExtension, TASKS_EXTENSION, TasksExtension } from './tasks/extension.js';
export { isCreateTaskResult, TaskCancelledError, TasksExtensionClient } from './tasks/extension-client.js';
export type { TasksExtensionClientOptions } from './tasks/extension-client.js';
export type { CreateTaskResult, DetailedTask, TaskContext, TasksExtensionOptions } from './tasks/extension.js';
export { inputRequired, inputRequest, readInput, requireClientCapabilities, RequestStateSealer } from './stateless/mrtr.js';
export type { Subscription, SubscriptionFilter } from './stateless/subscriptions.js';
export {
  CapabilityNotDeclaredError,
  ConnectionClosedError,
  ErrorCode,
  InvalidResultError,
  RequestAbortedError,
  RequestTimeoutError,
  RpcError,
} from './jsonrpc/errors.js';
export type { ErrorObject } from './jsonrpc/errors.js';
export { OutputSchemaError, UnsupportedVersionError } from './session/client.js';
export type { Implementation, RequestOptions, ServerDescription } from './session/client.js';
export type { LogLevel } from './session/server.js';
export type { RequestContext } from './engine/peer.js';
export type { Transport, TransportEvents, JSONRPCMessage, MessageInfo } from './jsonrpc/transport.js';

// ---- for library authors: the engine and the sessions under the generated classes ----------
export { Peer } from './engine/peer.js';
export type { PeerOptions } from './engine/peer.js';
export { ClientSession } from './session/client.js';
export type { ClientSessionOptions } from './session/client.js';
export { ServerSession } from './session/server.js';
export type { ServerSessionOptions } from './session/server.js';
export type { CapabilityShape, ProtocolMaps, ProtocolTable, MethodEntry } from './protocol/table.js';
export { batchProtocolVersions, capabilitiesOf } from './protocol/table.js';
