/**
 * `@mcpgen/runtime/http`: Streamable HTTP with sessions: the server endpoint, the client transport, the event store and session registry, and the `node:http` adapter they share.
 *
 * @module
 */
export * from './server.js';
export * from './node-client.js';
export * from './session.js';
export * from './event-store.js';
export * from './registry.js';
export * from '../io/node.js';
export * from '../io/exchange.js';
export * from '../io/guard.js';
