/**
 * `@mcpgen/runtime/stateless`: what stateless revisions add: the dual-era endpoint, input-required (multi round-trip) helpers, subscriptions, the result cache (the stateless layer).
 *
 * @module
 */
export * from './dual-era.js';
export * from './mrtr.js';
export * from './request-state.js';
export { InputRequestError } from './input-rounds.js';
export * from './subscriptions.js';
export * from './cache.js';
