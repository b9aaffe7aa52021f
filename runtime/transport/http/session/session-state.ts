/**
 * The state of one Streamable HTTP server session (./session.ts): the collections it holds (each
 * made on first use and dropped when it empties out, so that an idle session holds only its id,
 * settings and negotiated version), when it is idle, the queue its sends take turns in, and the
 * inbound messages held until the engine starts it. The parts of the session build on it in this
 * order: stream bookkeeping (./session-streams.ts), resumption and the shared standalone stream
 * (./session-resumption.ts), request routing (./session-routing.ts).
 */
import type { EventStore, SharedEventStore } from './event-store.js';
import { type OutStream, StreamIds } from './stream.js';
import type { FewMap } from '../../../jsonrpc/few.js';
import { decimal } from '../../../jsonrpc/decimal.js';
import type { JSONRPCMessage, MessageInfo, TransportEvents } from '../../../jsonrpc/transport.js';
import type { SessionSettings } from './settings.js';

export const isThenable = <T>(v: T | Promise<T>): v is Promise<T> =>
  typeof (v as Promise<T> | undefined)?.then === 'function';

export const isShared = (store: EventStore): store is SharedEventStore =>
  typeof (store as SharedEventStore).follow === 'function' &&
  typeof (store as SharedEventStore).streamOpened === 'function';

/** A JSON-RPC request id. */
export type Id = string | number | bigint;

// (a number id counts up on most clients: its text made outside the number-to-string cache)
export const idKey = (id: Id): string => (typeof id === 'number' ? `number:${decimal(id)}` : `${typeof id}:${id}`);

/** What the session core writes back on the session's public face: the negotiated protocol version. */
export interface SessionOwner {
  protocolVersion: string | undefined;
}

/** The state every part of a session shares (see the module docs). */
export class SessionState {
  // An idle session holds only its id, settings and negotiated version: the collections below
  // are allocated on first use and dropped when they empty out or the session ends (the two
  // stream maps are FewMaps: a request answered alone makes two small objects and no Map).
  events: TransportEvents | undefined;
  /** Inbound messages that arrived before `start`. */
  held: Array<[JSONRPCMessage, MessageInfo]> | undefined;
  /** Open streams by key of the request they answer. */
  requests: FewMap<string, OutStream> | undefined;
  /** POST streams not finished yet (a client may resume them), by stream id. */
  postStreams: FewMap<string, OutStream> | undefined;
  standaloneStream: OutStream | undefined;
  /**
   * Standalone messages a client without a cursor has not provably received: with an event
   * store, every one sent since the last resumption (a client that got any of them holds an
   * event ID and resumes with it); without, those sent while no GET was connected.
   */
  backlog: Array<{ eventId?: string; message: JSONRPCMessage }> | undefined;
  /** Tail of the send queue while sends are pending. */
  queue: Promise<void> | undefined;
  initKey: string | undefined;
  ended = false;
  /** Ids of this session's streams (made with its first stream). */
  streamIds: StreamIds | undefined;
  /** When the session last did something (ms since the epoch; see HttpServerSession.lastActive). */
  lastActiveAt = Date.now();
  /** POST bodies of this session being read. */
  readingCount = 0;
  /** Connections following streams of other processes (see `follow`). */
  followers = 0;
  followStops: Set<() => void> | undefined;
  /** {@link idle} as last told to `onIdleChange`. */
  protected wasIdle = true;
  /** Shared standalone stream: the last event ID written on its connection (where the store is read from on a relayed message). */
  standaloneCursor: string | undefined;
  /** Shared standalone stream: the event IDs written on it lately (at most 256), so that none goes out twice. */
  standaloneSeen: Set<string> | undefined;

  constructor(
    readonly sessionId: string,
    readonly settings: SessionSettings,
    /** The session's public face, told the negotiated version. */
    protected readonly owner: SessionOwner,
    /** Called once when the session ends (the handler forgets it). */
    protected readonly onEnd: () => void,
  ) {}

  get ids(): StreamIds {
    return (this.streamIds ??= new StreamIds(this.settings.standalone?.id));
  }

  reading(started: boolean): void {
    if (started) this.readingCount++;
    else {
      this.readingCount--;
      this.lastActiveAt = Date.now();
    }
    this.checkIdle();
  }

  get idle(): boolean {
    return (
      !this.ended &&
      this.requests === undefined &&
      this.queue === undefined &&
      this.readingCount === 0 &&
      !this.standaloneStream?.sink &&
      this.followers === 0
    );
  }

  /** Tells `onIdleChange` when {@link idle} changed (an ended session counts as idle: nothing more is under way). */
  protected checkIdle(): void {
    const idle = this.ended || this.idle;
    if (idle === this.wasIdle || !this.settings.onIdleChange) return;
    this.wasIdle = idle;
    this.settings.onIdleChange(idle);
  }

  async start(events: TransportEvents): Promise<void> {
    if (this.events) throw new Error('HttpServerSession already started');
    this.events = events;
    const held = this.held ?? [];
    this.held = undefined;
    for (const [m, info] of held) events.onMessage(m, info);
  }

  protected deliver(message: JSONRPCMessage, info: MessageInfo): void {
    if (this.events) this.events.onMessage(message, info);
    else (this.held ??= []).push([message, info]);
  }

  /** Runs `task` after the tasks queued before it; the queue is dropped once it drains. */
  protected enqueue(task: () => void | Promise<void>): Promise<void> {
    return this.chain((this.queue ?? Promise.resolve()).then(task));
  }

  /** Makes `run` (begun after everything queued so far) the tail of the queue. */
  protected chain(run: Promise<void>): Promise<void> {
    const tail: Promise<void> = run.then(
      () => this.drained(tail),
      () => this.drained(tail),
    );
    this.queue = tail;
    this.checkIdle();
    return run;
  }

  /** Reports `e` (a store call's failure) to `onStoreError`, as an Error. */
  protected storeError(e: unknown): void {
    this.settings.onStoreError?.(e instanceof Error ? e : new Error(String(e)));
  }

  /** Request `key` of stream `s` has its answer: no longer pending there, nor routed. */
  protected settle(s: OutStream, key: string): void {
    s.pending.delete(key);
    this.requests!.delete(key);
    if (this.requests!.size === 0) this.requests = undefined;
  }

  protected drained(tail: Promise<void>): void {
    if (this.queue === tail) this.queue = undefined;
    this.checkIdle();
  }
}
