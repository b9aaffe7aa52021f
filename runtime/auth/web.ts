/**
 * `@mcpgen/runtime/auth` for browsers, workers, Deno and Bun (export conditions `browser`,
 * `worker`, `workerd`, `deno`): web-standard only (fetch, WebCrypto, jose), no `node:` import:
 * the resource server's checks (`bearerAuth`, DPoP, metadata) for a worker, and the OAuth 2.1
 * client (`oauthFetch`) for a browser login. The same exports as the Node entry (./index.ts)
 * less `startLoopbackRedirect`, the command-line user-agent step on a `node:http` listener
 * (Node: `@mcpgen/runtime/auth` or `@mcpgen/runtime/auth/loopback`).
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
