/**
 * The one entry point generated code may import (version 1). Everything generated files use
 * from the runtime is listed here, and nothing else; a test enforces that generated/ reaches no
 * further into runtime/ and that runtime/ never imports generated/.
 */
export type { Direction, MethodEntry, NotificationShape, ProtocolMaps, ProtocolTable, RequestShape, ValidationError, Validator } from '../table.js';
export { createDispatcher, describeErrors } from '../dispatch.js';
export type { Dispatch, DispatcherOptions, Handler, Handlers } from '../dispatch.js';
export { formats } from '../formats.js';
export { ClientSession } from '../client.js';
export type { ClientParams, ClientSessionOptions, RequestOptions } from '../client.js';
export { ServerSession } from '../server.js';
export type { ServerSessionOptions } from '../server.js';
