/**
 * `@mcpgen/runtime/features`: server features: tools, resources, prompts, completion, pagination (the features layer).
 *
 * @module
 */
export * from './server-features.js';
export * from './pagination.js';
export * from './elicitation.js';
export * from './resources.js';
export * from './tools.js';
export * from './typed.js';
