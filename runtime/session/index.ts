/** `@mcpgen/runtime/session`: the client and server sessions (lifecycle, capabilities) the generated `Client` and `Server` extend (the session layer). */
export * from './client.js';
export * from './server.js';
