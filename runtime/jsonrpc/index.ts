/**
 * `@mcpgen/runtime/jsonrpc`: JSON-RPC 2.0 messages, errors and the transport contract (the jsonrpc layer).
 *
 * @module
 */
export * from './errors.js';
export * from './message.js';
export * from './peek.js';
export * from './own.js';
export * from './sent.js';
export * from './transport.js';
