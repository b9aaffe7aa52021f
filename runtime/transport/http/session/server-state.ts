/**
 * The state of a Streamable HTTP endpoint (./server.ts): its sessions and how they expire (the
 * sweep of idle ones, eviction of the least recently used idle one at the cap), who initialized
 * each (protected endpoints), the versions and event stores it serves, and its request guard.
 * Shared-store adoption (./server-adoption.ts) and request routing (./server-routing.ts) build on it.
 */
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { type HttpVersionFacts, httpVersionFacts } from '../../../protocol/versions.js';
import { refuseOtherEra } from '../../../protocol/table.js';
import type { Exchange, HeaderMap } from '../io/exchange.js';
import { RequestGuard } from '../io/guard.js';
import { type EventStore, MemoryEventStore } from './event-store.js';
import { MemorySessionRegistry, type SessionRegistry } from './registry.js';
import type { SharedSessions, StreamableHttpOptions } from './server-options.js';
import type { HttpServerSession } from './session.js';
import { errorBody } from './settings.js';

/** The endpoint's sessions, settings and guard (see the module docs). */
export class EndpointState {
  readonly sessions: SessionRegistry<HttpServerSession>;
  readonly idleMs: number;
  readonly maxSessions: number;
  readonly sweepMs: number;
  sweeper: ReturnType<typeof setInterval> | undefined;
  /** Sessions inside `onSession`: their `initialize` is not delivered yet, so they are not idle. */
  readonly opening = new Set<HttpServerSession>();
  /** Who initialized each session (protected endpoints only). */
  readonly owners = new WeakMap<HttpServerSession, string | undefined>();
  readonly facts: HttpVersionFacts;
  readonly versions: readonly string[];
  /** The event store of a session; undefined when the endpoint keeps none. */
  readonly storeFor: ((sessionId: string) => EventStore) | undefined;
  readonly makeId: () => string;
  readonly shared: SharedSessions | undefined;
  readonly guard: RequestGuard;

  constructor(readonly options: StreamableHttpOptions) {
    this.sessions = options.sessionRegistry ?? new MemorySessionRegistry<HttpServerSession>();
    this.idleMs = Math.max(0, options.sessionIdleMs ?? 30 * 60 * 1000);
    this.maxSessions = Math.max(1, options.maxSessions ?? 10_000);
    this.sweepMs = Math.max(1, Math.min(60_000, Math.ceil(this.idleMs / 4)));
    if (!options.tables && !options.supportedProtocolVersions)
      throw new TypeError(
        'createStreamableHttpHandler: options.tables (the generated tables served) or options.supportedProtocolVersions is required',
      );
    // replay answers each request as a primed SSE stream: JSON replies would silently be none
    if (options.requestReplay === true && options.replyMode === 'json')
      throw new TypeError(
        "createStreamableHttpHandler: requestReplay answers each request as an SSE stream, which replyMode 'json' forbids: turn off one of them",
      );
    // a stateless table here would refuse its own clients at run time
    refuseOtherEra('createStreamableHttpHandler', 'handshake', options.tables ?? []);
    this.facts = httpVersionFacts(options.tables ?? []);
    this.versions = options.supportedProtocolVersions ?? this.facts.versions;
    const standalone = options.standaloneStream ?? true;
    const allowDelete = options.allowDelete ?? true;
    let sharedStore: MemoryEventStore | undefined;
    this.storeFor =
      options.eventStore === false
        ? undefined
        : (options.eventStore ?? (() => (sharedStore ??= new MemoryEventStore())));
    this.makeId = options.sessionIdGenerator ?? (() => globalThis.crypto.randomUUID());
    this.shared = options.shared;
    const { storeFor } = this;
    this.guard = new RequestGuard(options, {
      serves: (m, h) =>
        m === 'POST' ||
        (m === 'GET' && (standalone || (h['last-event-id'] !== undefined && storeFor !== undefined))) ||
        (m === 'DELETE' && allowDelete),
      allow: allowDelete ? 'GET, POST, DELETE' : 'GET, POST',
    });
  }

  /** Whether `s` is past its idle time at `now` (then it should end). */
  expired(s: HttpServerSession, now: number): boolean {
    return this.idleMs > 0 && s.idle && now - s.lastActive >= this.idleMs && !this.opening.has(s);
  }

  readonly sweep = (): void => {
    const now = Date.now();
    for (const s of [...this.sessions.values()]) if (this.expired(s, now)) void s.close();
  };

  /** A session ended (handed to every session as its `onEnd`). */
  readonly removed = (s: HttpServerSession): void => {
    if (this.sessions.get(s.sessionId) === s) this.sessions.delete(s.sessionId);
    if (this.sessions.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  };

  added(s: HttpServerSession): void {
    this.sessions.set(s.sessionId, s);
    if (this.idleMs > 0 && !this.sweeper) {
      this.sweeper = setInterval(this.sweep, this.sweepMs);
      this.sweeper.unref?.();
    }
  }

  /** Reports `e` to `onError`, as an Error. */
  report(e: unknown): void {
    this.options.onError?.(e instanceof Error ? e : new Error(String(e)));
  }

  /** Reports a failure of the shared deployment's bus to `onError` (`bus: <message>`). */
  readonly busFailed = (e: Error): void => this.options.onError?.(new Error(`bus: ${e.message}`));

  /** Reports a failure of the shared session store to `onError` and answers 503 (the store cannot be reached). */
  sessionStoreFailed(ex: Exchange, e: unknown): void {
    this.options.onError?.(new Error(`session store: ${(e as Error).message}`));
    fail(ex, 503, ErrorCode.ServerError, 'Service Unavailable: the session store cannot be reached', {
      'Retry-After': '1',
    });
  }

  /** Ends the least recently used idle session; false when every session is busy. */
  async evictIdle(): Promise<boolean> {
    // the least recently used: the idle one whose last activity (a request, or its work ending) is oldest
    let victim: HttpServerSession | undefined;
    for (const s of this.sessions.values()) {
      if (!s.idle || this.opening.has(s)) continue;
      if (!victim || s.lastActive < victim.lastActive) victim = s;
    }
    if (!victim) return false;
    await victim.close();
    return true;
  }
}

/** Answers `ex` with `status` and a JSON-RPC error body (no `id`). */
export function fail(ex: Exchange, status: number, code: number, message: string, extra: HeaderMap = {}): void {
  ex.sink.respond(status, { 'Content-Type': 'application/json', ...extra }, errorBody(code, message));
}
