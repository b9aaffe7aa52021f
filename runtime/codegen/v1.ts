/**
 * The one entry point generated code may import (version 1). Everything generated files use
 * from the runtime is listed here, and nothing else; a test enforces that generated/ reaches no
 * further into runtime/ and that runtime/ never imports generated/.
 *
 * @module
 */
export type {
  Direction,
  MethodEntry,
  MethodFacts,
  NotificationShape,
  ProtocolMaps,
  ProtocolTable,
  RequestShape,
  ValidationError,
  Validator,
} from '../protocol/table.js';
export { methodGroup } from '../protocol/table.js';
export { createDispatcher, describeErrors } from '../protocol/dispatch.js';
export { dispatchBatch } from '../engine/batch.js';
export type { Dispatch, DispatcherOptions, Handler, Handlers } from '../protocol/dispatch.js';
export { formats } from '../protocol/formats.js';
export { compactFast, compactValidators } from '../protocol/compact.js';
export type { CompactOptions, CompactSchema } from '../protocol/compact.js';
export { ClientSession } from '../session/client.js';
export { handshakeClient } from '../session/lifecycle/handshake.js';
export { statelessClient } from '../session/lifecycle/stateless.js';
export type { ClientParams, ClientSessionOptions, RequestOptions } from '../session/client.js';
export { ServerSession } from '../session/server.js';
export type { ServerSessionOptions } from '../session/server.js';
export { statelessHandlers } from '../features/server-features.js';
