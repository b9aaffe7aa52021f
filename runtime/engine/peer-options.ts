/** The peer engine's options and hooks (./peer.ts). */
import type { MessageInfo, Transport } from '../jsonrpc/transport.js';
import type { RpcError } from '../jsonrpc/errors.js';
import type { JSONRPCRequest } from '../jsonrpc/message.js';
import type { MethodEntry, ProtocolTable } from '../protocol/table.js';
import type { Logger, NotificationHandler, RequestHandler } from './context.js';

/** Which side of the connection a peer is. */
export type Side = 'client' | 'server';

/** Refuses a request before dispatch (e.g. before initialization) by returning the error to send. */
export type PreDispatch = (
  request: JSONRPCRequest,
  entry: MethodEntry | undefined,
  info: MessageInfo | undefined,
) => RpcError | undefined;

/** Options of a `Peer` (./peer.ts): its side, its protocol table, the lifecycle's hooks; times in ms. */
export interface PeerOptions {
  side: Side;
  table: ProtocolTable;
  transport: Transport;
  requestHandlers?: Record<string, RequestHandler>;
  notificationHandlers?: Record<string, NotificationHandler>;
  /** This side's declared capabilities; while undefined, no method is gated. */
  capabilities?: Record<string, unknown>;
  /** Replaces the capability check: may this side serve `entry`? False → -32601. */
  canHandle?: (entry: MethodEntry) => boolean;
  preDispatch?: PreDispatch;
  logger?: Logger;
  /** Default request timeout in ms (default 60000). */
  timeout?: number;
  /** Validate results of outbound requests (default true). */
  validateResults?: boolean;
  /** Methods for which no `notifications/cancelled` is ever sent (default `['initialize']`). */
  uncancellable?: readonly string[];
  /** Stateless revisions: methods outside the table that an extension serves (e.g. `tasks/get`). */
  extensionMethods?: readonly string[];
  onClose?: (error?: Error) => void;
  onError?: (error: Error) => void;
  /** What handlers see as `ctx.session` (e.g. the ServerSession on top of this engine). */
  session?: object;
}

/**
 * A request handler flagged `true` under this key answers only results it has already checked
 * against the result schema of the table the engine serves (the `result` validator of
 * `ctx.table`'s entry for its method), so the engine does not check them a second time before
 * answering. A wrapper that changes a flagged handler's results must not carry the flag over:
 * the results of an unflagged handler are checked by the engine.
 */
export const RESULTS_CHECKED: unique symbol = Symbol('mcpgen.resultsChecked');

/**
 * A request handler may carry under this key its direct form, `direct(params, table)`: what
 * `handler(params, ctx)` does (the same value, promise or throw) for a request whose answer
 * needs nothing of the context but `ctx.table`, given as `table` (the table the engine serves).
 * For any other request it returns {@link NOT_DIRECT}, having done nothing, and the engine calls
 * the handler. The engine calls the direct form, making no context and no in-flight entry for
 * an answer given at once, when nothing else needs them: a request outside a batch, that came
 * without transport facts (`MessageInfo`: stdio and the memory pair give none), while no
 * OpenTelemetry SDK records spans. ServerFeatures' `tools/call` has one for tools whose handler
 * declares exactly one parameter (`(args) => …`: it cannot read a context; a handler declaring
 * none, such as a wrapper `(...a) => inner(...a)`, may read it through its rest parameter and gets
 * it). A wrapper that changes what a
 * handler does must not carry its direct form over.
 */
export const DIRECT_CALL: unique symbol = Symbol('mcpgen.directCall');
/** What a {@link DIRECT_CALL} form returns for a request it does not answer (the handler is called instead). */
export const NOT_DIRECT: unique symbol = Symbol('mcpgen.notDirect');
/** The {@link DIRECT_CALL} form of a request handler. */
// biome-ignore lint/suspicious/noExplicitAny: as RequestHandler, a form of every request's params
export type DirectCall = (params: any, table: ProtocolTable) => unknown;
