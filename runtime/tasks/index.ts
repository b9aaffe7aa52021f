/**
 * `@mcpgen/runtime/tasks`: tasks: the store, the receiver and requestor of handshake revisions, the tasks extension of stateless ones (the tasks layer).
 *
 * @module
 */
export * from '../stores/tasks.js';
export * from './receiver.js';
export * from './requestor.js';
export { TaskHandle } from './handle.js';
export * from './context.js';
export * from './extension.js';
export * from './extension-wire.js';
export * from './extension-client.js';
