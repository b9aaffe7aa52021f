/**
 * `@mcpgen/runtime/auth`: authorization (2025-11-25 and draft basic/authorization): the resource server's bearer-token checks and protected resource metadata, and the OAuth 2.1 client as a `fetch` for the HTTP client transports (the auth layer).
 *
 * @module
 */
export {
  bearerAuth,
  protectedResourceMetadata,
  resourceMetadataEndpoint,
  resourceMetadataUrl,
  bearerChallenge,
} from './resource.js';
export type { BearerAuthOptions, ProtectedResourceMetadata, ResourceMetadataEndpoint } from './resource.js';
export { oauthFetch, MemoryTokenStore, AuthorizationError, parseBearerChallenge } from './client.js';
export type {
  ClientRegistration,
  OAuthClientOptions,
  OAuthFetch,
  StoredTokens,
  TokenStore,
  UserAgent,
} from './client.js';
// Node only (a node:http listener): also `@mcpgen/runtime/auth/loopback`; not in ./web.ts
export { startLoopbackRedirect } from './loopback-redirect.js';
export type { LoopbackRedirect, LoopbackRedirectOptions } from './loopback-redirect.js';
export {
  AuthFetchError,
  discoverAuthorizationServer,
  discoverResourceMetadata,
  DiscoveryError,
  namingFetch,
} from './discovery.js';
export type { AuthRefusal, Authorizer, AuthRequest, AuthVerdict } from './types.js';
export { DPoPVerifier } from './dpop.js';
export type { DPoPOptions, DPoPRefusal } from './dpop.js';
export { MemoryReplayStore, ReplayStoreFullError } from './replay.js';
export type { ReplayStore } from './replay.js';
