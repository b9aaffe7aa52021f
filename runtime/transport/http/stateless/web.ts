/**
 * `@mcpgen/runtime/http/stateless` under the `browser`, `worker`, `workerd` and `deno` export
 * conditions: the stateless revisions' HTTP endpoint (its `.fetch`), the client over `fetch`
 * (./fetch-client.ts) and the request metadata headers, with no `node:` import. On Node the same
 * subpath is ./index.ts (the client over `node:http`).
 */
export * from './server.js';
export * from './fetch-client.js';
export * from './headers.js';
