/**
 * `@mcpgen/runtime/protocol`: protocol tables, dispatch, formats, JSON Schema validation, revision facts (the protocol layer).
 *
 * @module
 */
export * from './table.js';
export * from './dispatch.js';
export * from './formats.js';
export * from './json-schema.js';
export * from './versions.js';
