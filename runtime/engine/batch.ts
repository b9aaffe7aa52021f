/**
 * Inbound JSON-RPC batches (JSON-RPC 2.0 §6) for the revisions that have them (2025-03-26): each
 * entry dispatched as if it came alone, the responses collected and sent as one array once every
 * request of the batch is answered. Generated tables of such revisions carry
 * {@link dispatchBatch} (`batchDispatch`), so a bundle of other revisions does not; a hand-built
 * table with `batches` names it too (without it the engine answers a batch with -32603).
 */
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import {
  type JSONRPCErrorResponse,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type RequestId,
  classify,
  kindOf,
  type InvalidMessage,
  type MessageKind,
} from '../jsonrpc/message.js';
import type { JSONRPCMessage, MessageInfo, Transport } from '../jsonrpc/transport.js';
import type { Logger } from './context.js';

type Response = JSONRPCResultResponse | JSONRPCErrorResponse;

/** What a batch needs of the engine (a `Peer`, structurally). */
export interface BatchHost {
  readonly log: Logger;
  onRequest(req: JSONRPCRequest, info: MessageInfo | undefined, batch: BatchReply): void;
  onMessage(m: JSONRPCMessage, info: MessageInfo | undefined, kind: MessageKind): void;
  settle(id: RequestId): { reject(e: Error): void } | undefined;
  readonly closedWith: unknown;
  readonly transport: Transport;
  /** Hands one response to the transport (./answer.ts `reply`). */
  reply(m: Response): void;
}

/** Collects the responses to one inbound batch and sends them as one array when all are in. */
export class BatchReply {
  private readonly responses: Array<Response> = [];
  private pending = 0;
  private sealed = false;
  constructor(private readonly send: (responses: Array<Response>) => void) {}
  /** A response known at once (a refusal, an invalid entry's error). */
  add(m: Response): void {
    this.responses.push(m);
  }
  /** A request of the batch now runs; its answer (or skip) is due. */
  expect(): void {
    this.pending++;
  }
  answer(m: Response): void {
    this.responses.push(m);
    this.done();
  }
  /** A request of the batch ended without a response (cancelled). */
  skip(): void {
    this.done();
  }
  /** Every entry was dispatched. */
  seal(): void {
    this.sealed = true;
    this.flush();
  }
  private done(): void {
    this.pending--;
    this.flush();
  }
  private flush(): void {
    if (!this.sealed || this.pending > 0 || this.responses.length === 0) return;
    this.send(this.responses.splice(0));
  }
}

/**
 * Dispatches the entries of a non-empty batch `items` on `host` (the engine checked that the
 * revision has batches): requests through `onRequest` with one `BatchReply`, notifications
 * and responses through `onMessage`; an invalid entry's -32600 joins the batch's responses, and a
 * malformed response with a readable id fails that pending request.
 */
export function dispatchBatch(host: BatchHost, items: unknown[], info: MessageInfo | undefined): void {
  const batch = new BatchReply((responses) => replyBatch(host, responses));
  for (const item of items) {
    const kind = kindOf(item);
    if (kind === 'request') host.onRequest(item as JSONRPCRequest, info, batch);
    else if (kind !== null) host.onMessage(item as JSONRPCMessage, info, kind);
    else {
      // (kindOf found no message kind: classify says what is invalid)
      const c = classify(item) as InvalidMessage;
      host.log.warn?.('invalid message in batch', { reason: c.reason });
      if (c.reply) batch.add(c.reply);
      if (c.responseId !== undefined)
        host.settle(c.responseId)?.reject(new RpcError(ErrorCode.InternalError, `Malformed response: ${c.reason}`));
    }
  }
  batch.seal();
}

/**
 * Sends the responses of one batch as one array (`transport.sendBatch`), or one by one where
 * the transport sends no arrays; nothing once the engine closed.
 */
function replyBatch(host: BatchHost, responses: Response[]): void {
  if (host.closedWith) return;
  if (!host.transport.sendBatch) {
    for (const m of responses) host.reply(m);
    return;
  }
  host.transport
    .sendBatch(responses)
    .catch((e: Error) => host.log.debug?.('could not send batch response', { error: e.message }));
}
