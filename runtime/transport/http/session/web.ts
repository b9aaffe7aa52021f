/**
 * `@mcpgen/runtime/http` under the `browser`, `worker`, `workerd` and `deno` export conditions:
 * Streamable HTTP with sessions with no `node:` import — the server endpoint (its `.fetch`), the
 * client transport over `fetch` and Web Streams (./fetch-client.ts), the event store and the
 * session registry. On Node the same subpath is ./index.ts (the client over `node:http`, and
 * the `node:http` adapter).
 */
export * from './server.js';
export * from './fetch-client.js';
export * from './session.js';
export * from './event-store.js';
export * from './registry.js';
export * from '../io/exchange.js';
export * from '../io/guard.js';
