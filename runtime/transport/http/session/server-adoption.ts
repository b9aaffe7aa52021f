/**
 * Shared-store adoption in a Streamable HTTP endpoint (./server.ts): with `shared` stores, the
 * processes of a deployment serve one set of sessions. A session another process initialized is
 * adopted here from its record (`restore`); a session initialized here is recorded once its
 * `initialize` succeeds (`recorder`); a session's end reaches every process (`ended`); and the
 * bus carries what one process holds for another: answers and cancellations POSTed elsewhere,
 * standalone messages sent where the stream's connection is not, and the claims of standalone
 * GETs (one connection per stream across the deployment). Also the settings each session is
 * made with (`settingsFor`), which wire a session to the bus.
 */
import type { JSONRPCMessage } from '../../../jsonrpc/transport.js';
import type { BusMessage } from '../../../stores/bus.js';
import type { SessionRecord } from '../../../stores/sessions.js';
import type { SessionInfo, StreamableHttpOptions } from './server-options.js';
import { EndpointState } from './server-state.js';
import { HttpServerSession, type SessionSettings } from './session.js';
import { isObject } from '../../../jsonrpc/message.js';

/** Session objects of shared deployments made in this process, by every endpoint (each names its own request id prefix). */
let sessionObjects = 0;

/** The endpoint's state with what a shared deployment adds (see the module docs). */
export class SharedAdoption extends EndpointState {
  readonly restoring = new Map<string, Promise<HttpServerSession | undefined>>();
  /** Standalone GETs opened here whose claim (`standalone-opened`) has not come back over the bus yet: session id → token. */
  readonly claims = new Map<string, number>();
  claimed = 0;
  readonly unsubscribe: (() => void) | undefined;
  /** The settings of every session when they name no session (one deployment process, the default event store). */
  common: SessionSettings | undefined;

  constructor(options: StreamableHttpOptions) {
    super(options);
    // messages of the bus for sessions this process holds: answers POSTed elsewhere, ends decided elsewhere
    this.unsubscribe = this.shared?.bus.subscribe((m: BusMessage) => this.onBus(m));
  }

  private onBus(m: BusMessage): void {
    const shared = this.shared!;
    // the claims of standalone GETs: the bus delivers them in one order to every process (as
    // Redis pub/sub does), so a claim that comes after this process's own is the newer one
    if (m.topic === 'standalone-opened' && m.from === shared.bus.processId) {
      if (isObject(m.payload) && this.claims.get(m.sessionId) === m.payload.token) this.claims.delete(m.sessionId);
      return;
    }
    const local = this.sessions.get(m.sessionId);
    if (!local) return;
    if (m.topic === 'ended') void local.close();
    else if (m.topic === 'standalone-opened') {
      if (!this.claims.has(m.sessionId)) void local.dropStandalone().catch((e: Error) => this.options.onError?.(e));
    } else if (m.topic === 'inbound' && m.from !== shared.bus.processId && isObject(m.payload))
      local.deliverRemote(m.payload as unknown as JSONRPCMessage);
    else if (
      m.topic === 'standalone' &&
      m.from !== shared.bus.processId &&
      isObject(m.payload) &&
      isObject(m.payload.message)
    ) {
      const eventId = typeof m.payload.eventId === 'string' ? m.payload.eventId : undefined;
      void local
        .deliverStandalone(eventId, m.payload.message as unknown as JSONRPCMessage)
        .catch((e: Error) => this.options.onError?.(e));
    }
  }

  /** Makes the local session object of a session another process initialized (one at a time per id). */
  restore(
    sessionId: string,
    record: SessionRecord,
    headers: SessionInfo['headers'],
  ): Promise<HttpServerSession | undefined> {
    let pending = this.restoring.get(sessionId);
    if (pending) return pending;
    pending = (async () => {
      const fresh = new HttpServerSession(
        sessionId,
        this.settingsFor(sessionId, undefined, record.standaloneStreamId),
        this.removed,
      );
      fresh.protocolVersion = record.protocolVersion;
      if (record.owner !== undefined) this.owners.set(fresh, record.owner);
      this.added(fresh);
      this.opening.add(fresh);
      try {
        await this.options.onSession(fresh, { sessionId, headers, restored: record });
        return fresh;
      } catch (e) {
        this.report(e);
        await fresh.close();
        return undefined;
      } finally {
        this.opening.delete(fresh);
        this.restoring.delete(sessionId);
      }
    })();
    this.restoring.set(sessionId, pending);
    return pending;
  }

  /** Records a session once its `initialize` succeeded; sessions the cap evicted end everywhere. */
  recorder(
    sessionId: string,
    params: Record<string, unknown> | undefined,
    standaloneStreamId: () => string,
    owner: string | undefined,
  ): (response: JSONRPCMessage) => Promise<void> {
    return async (response) => {
      const result = response.result as { protocolVersion?: unknown } | undefined;
      const record: SessionRecord = {
        protocolVersion:
          typeof result?.protocolVersion === 'string' ? result.protocolVersion : (this.facts.assumed ?? ''),
        capabilities: isObject(params?.capabilities) ? params.capabilities : {},
        createdAt: Date.now(),
        standaloneStreamId: standaloneStreamId(),
      };
      if (isObject(params?.clientInfo)) record.clientInfo = params.clientInfo;
      if (owner !== undefined) record.owner = owner;
      const evicted = await this.shared!.sessions.create(sessionId, record);
      for (const id of evicted) void this.ended(id).catch(this.busFailed);
    };
  }

  /** Session `sessionId` ended for every process: its streams' events go, every process drops it. */
  async ended(sessionId: string): Promise<void> {
    const store = this.storeFor?.(sessionId) as { dropSession?(id: string): Promise<void> } | undefined;
    await store?.dropSession?.(sessionId);
    await this.shared!.bus.publish({ topic: 'ended', sessionId });
  }

  /** The settings a session is made with (one object for all of them when they name no session). */
  settingsFor(
    sessionId: string,
    onNegotiated?: SessionSettings['onNegotiated'],
    standaloneId?: string,
  ): SessionSettings {
    const { options, shared } = this;
    const alike =
      !shared && onNegotiated === undefined && standaloneId === undefined && typeof options.eventStore !== 'function';
    if (alike && this.common) return this.common;
    const eventStore = this.storeFor?.(sessionId);
    const made: SessionSettings = {
      // the standalone stream spans the processes: a message sent where its GET is not held goes over the bus
      standalone: shared
        ? {
            id: standaloneId,
            relay: (eventId, message) => {
              shared.bus
                .publish({ topic: 'standalone', sessionId, payload: { eventId, message } })
                .catch(this.busFailed);
            },
            // the other processes end their connection of the stream, unless theirs is newer
            opened: () => {
              const token = ++this.claimed;
              this.claims.set(sessionId, token);
              shared.bus.publish({ topic: 'standalone-opened', sessionId, payload: { token } }).catch((e: Error) => {
                if (this.claims.get(sessionId) === token) this.claims.delete(sessionId);
                this.busFailed(e);
              });
            },
          }
        : undefined,
      // ids of requests to the client unique across the processes and this process's session objects
      requestIdPrefix: shared ? `${shared.bus.processId}.${(++sessionObjects).toString(36)}.` : undefined,
      onNegotiated,
      // sessions with work under way here are not evicted by the deployment's cap
      onIdleChange: shared ? (idle) => shared.sessions.markBusy(sessionId, !idle) : undefined,
      onStoreError: (e) => options.onError?.(new Error(`event store: ${e.message}`)),
      replyMode: options.replyMode ?? 'auto',
      eventStore,
      requestReplay: options.requestReplay,
      retryMs: options.retryMs,
      keepAliveMs: options.keepAliveMs ?? 15000,
      maxBacklog: options.maxBacklog ?? 100,
      assumedVersion: this.facts.assumed,
      priming: this.facts.priming,
    };
    if (alike) this.common = made;
    return made;
  }

  /** Ends every session (`reason` to the requests awaiting their response) and leaves the bus. */
  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.unsubscribe?.();
    await Promise.all([...this.sessions.values()].map((s) => s.close('server shutting down')));
  }
}
