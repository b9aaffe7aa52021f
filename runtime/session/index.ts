/**
 * `@mcpgen/runtime/session`: the client and server sessions (lifecycle, capabilities) the generated `Client` and `Server` extend (the session layer).
 *
 * @module
 */
export * from './client.js';
export * from './output-schema-error.js';
export * from './server.js';
