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
