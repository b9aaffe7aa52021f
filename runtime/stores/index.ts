/**
 * `@mcpgen/runtime/stores`: what a deployment shares (sessions, stream events, the notification bus, tasks): the interfaces and their memory implementations (the stores layer). Redis: `@mcpgen/runtime/stores/redis`.
 *
 * @module
 */
export * from './bus.js';
export * from './events.js';
export * from './events-memory.js';
export * from './sessions.js';
export * from './tasks.js';
