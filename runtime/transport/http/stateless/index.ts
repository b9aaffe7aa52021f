/**
 * `@mcpgen/runtime/http/stateless`: the stateless revisions' HTTP endpoint and client, and their request metadata headers.
 *
 * @module
 */
export * from './server.js';
export * from './node-client.js';
export * from './headers.js';
