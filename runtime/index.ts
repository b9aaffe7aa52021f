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
export { HttpClientTransport, SessionExpiredError, HttpStatusError } from './transport/http/session/node-client.js';
export { continueAfterChecks } from './transport/http/io/node.js';
export type { SharedSessions, SessionInfo } from './transport/http/session/server.js';
export { MemorySessionStore, SessionLimitError } from './stores/sessions.js';
export type { SessionRecord, SessionStore, SessionStoreOptions } from './stores/sessions.js';
export { MemoryNotificationBus } from './stores/bus.js';
export type { BusMessage, NotificationBus } from './stores/bus.js';
export type { EventStore, SharedEventStore, FollowEnd } from './stores/events.js';
export {
  createLegacySseHandler,
  LegacySseClientTransport,
  LegacySseServerTransport,
} from './transport/http/legacy-sse/legacy-sse.js';
export type {
  LegacySseClientOptions,
  LegacySseHandler,
  LegacySseOptions,
} from './transport/http/legacy-sse/legacy-sse.js';
export { connectHttp, FallbackHttpClientTransport } from './transport/http/legacy-sse/fallback.js';
export { StatelessHttpClientTransport } from './transport/http/stateless/node-client.js';
export {
  bearerAuth,
  protectedResourceMetadata,
  resourceMetadataEndpoint,
  resourceMetadataUrl,
  bearerChallenge,
} from './auth/resource.js';
export type { BearerAuthOptions, ProtectedResourceMetadata, ResourceMetadataEndpoint } from './auth/resource.js';
export { oauthFetch, MemoryTokenStore, AuthorizationError, parseBearerChallenge } from './auth/client.js';
export type {
  ClientRegistration,
  OAuthClientOptions,
  OAuthFetch,
  StoredTokens,
  TokenStore,
  UserAgent,
} from './auth/client.js';
export { startLoopbackRedirect } from './auth/loopback-redirect.js';
export type { LoopbackRedirect, LoopbackRedirectOptions } from './auth/loopback-redirect.js';
export { discoverAuthorizationServer, discoverResourceMetadata, DiscoveryError } from './auth/discovery.js';
export type { AuthRefusal, Authorizer, AuthRequest, AuthVerdict } from './auth/types.js';
export type { AuthInfo } from './jsonrpc/transport.js';

// ---- what runs anywhere (the same list as ./web.ts): the endpoints, features, tasks, errors;
// for library authors, the engine and the sessions under the generated classes
export * from './portable.js';
