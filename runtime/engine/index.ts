/**
 * `@mcpgen/runtime/engine`: the peer under every session: outbound and inbound requests, cancellation, progress, request contexts (the engine layer).
 *
 * @module
 */
export * from './peer.js';
export * from './context.js';
export * from './outbound.js';
export * from './cancellation.js';
export * from './progress.js';
