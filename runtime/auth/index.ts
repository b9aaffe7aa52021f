/**
 * `@mcpgen/runtime/auth`: authorization (2025-11-25 and draft basic/authorization): the resource server's bearer-token checks and protected resource metadata, and the OAuth 2.1 client as a `fetch` for the HTTP client transports (the auth layer).
 *
 * @module
 */
// everything of the web entry (./web.ts: the resource server's checks, the OAuth client, discovery, DPoP)
export * from './web.js';
// Node only (a node:http listener): also `@mcpgen/runtime/auth/loopback`; not in ./web.ts
export { startLoopbackRedirect } from './loopback-redirect.js';
export type { LoopbackRedirect, LoopbackRedirectOptions } from './loopback-redirect.js';
