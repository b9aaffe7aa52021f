/**
 * `@mcpgen/runtime/http/legacy-sse`: the deprecated HTTP+SSE transport (2024-11-05) and the client's fallback to it.
 *
 * @module
 */
export * from './legacy-sse.js';
export * from './fallback.js';
