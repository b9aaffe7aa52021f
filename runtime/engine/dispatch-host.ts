/**
 * The engine state inbound dispatch (./dispatch.ts) and answering (./answer.ts) read and
 * change: a `Peer`'s private members (./peer.ts), structurally.
 */
import type { Direction, MethodEntry, ProtocolTable } from '../protocol/table.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { ProgressRouter } from './progress.js';
import type { InboundRequest, InboundRequests } from './cancellation.js';
import type { BatchReply } from './batch.js';
import type { Logger, NotificationHandler, RequestHandler } from './context.js';
import type { DirectCall, PeerOptions, PreDispatch } from './peer-options.js';

/** What dispatch reads and changes of the engine: a `Peer`'s private state, structurally. */
export interface DispatchHost {
  readonly table: ProtocolTable;
  readonly in: Direction;
  readonly log: Logger;
  readonly session: object | undefined;
  readonly options: PeerOptions;
  readonly transport: Transport;
  readonly inbound: InboundRequests;
  readonly progress: ProgressRouter;
  readonly handlers: Map<string, RequestHandler | undefined> | undefined;
  readonly notificationHandlers: Map<string, NotificationHandler | undefined> | undefined;
  readonly capabilities: Record<string, unknown> | undefined;
  readonly preDispatch: PreDispatch | undefined;
  readonly ended: { error: Error | undefined } | undefined;
  readonly closedWith: { error?: Error } | undefined;
  batchOf: WeakMap<InboundRequest, BatchReply> | undefined;
  /** Methods already looked up (./dispatch.ts `prepare`); emptied (undefined) when the table or a handler changes. */
  prepared: Map<string, PreparedMethod> | undefined;
  closeIfDone(): void;
}

/** A method's table row, handler and its direct form, as dispatch found them (./dispatch.ts `prepare`). */
export interface PreparedMethod {
  readonly entry: MethodEntry | undefined;
  readonly handler: RequestHandler | undefined;
  /** The handler's `DIRECT_CALL` form when it has one (./peer-options.ts). */
  readonly direct: DirectCall | undefined;
}
