/**
 * `@mcpgen/runtime/codec`: byte framing: newline-delimited JSON and server-sent events (the codec layer).
 *
 * @module
 */
export * from './ndjson.js';
export * from './sse.js';
