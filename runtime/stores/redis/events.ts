/**
 * The Redis {@link SharedEventStore} of ./redis.ts: every event of a stream in a Redis stream,
 * a follower on another process woken by a channel message and checking the owner's liveness.
 */
import type { Redis } from 'ioredis';
import type { JSONRPCMessage } from '../../jsonrpc/transport.js';
import type { RequestId } from '../../jsonrpc/message.js';
import { serializeMessage } from '../../jsonrpc/message.js';
import { decimal } from '../../jsonrpc/decimal.js';
import { ClaimLimitError, type FollowEnd, type SharedEventStore } from '../events.js';
import type { RedisProcess, RedisStoresOptions } from './options.js';
import { CLAIM, RELEASE, STORE_AGAIN } from './event-scripts.js';
import { parseStored } from '../stored-message.js';

const XID = /^([0-9]{1,20})-([0-9]{1,20})$/;
const U64_MAX = 2n ** 64n - 1n;

/**
 * Splits an event ID `<streamId>_<redis stream id>`; undefined when it is not one (a Redis
 * stream id is two unsigned 64-bit integers `<ms>-<seq>`: a larger one Redis would refuse).
 */
function parseEventId(eventId: string): { streamId: string; xid: string } | undefined {
  const cut = eventId.lastIndexOf('_');
  if (cut <= 0) return undefined;
  const xid = eventId.slice(cut + 1);
  const m = XID.exec(xid);
  if (!m || BigInt(m[1]) > U64_MAX || BigInt(m[2]) > U64_MAX) return undefined;
  return { streamId: eventId.slice(0, cut), xid };
}

const idKey = (id: RequestId): string => (typeof id === 'number' ? `number:${decimal(id)}` : `${typeof id}:${id}`);

type EventCommands = Redis & {
  mcpReleaseClaim(
    key: string,
    claims: string,
    stream: string,
    claim: string,
    requestKey: string,
    answer: string,
    max: string,
    ttl: string,
    channel: string,
  ): Promise<number>;
  mcpClaim(
    key: string,
    claims: string,
    claim: string,
    ttl: string,
    now: string,
    max: string,
    requestKey: string,
  ): Promise<string | number | null>;
  mcpStoreAgain(
    k1: string,
    k2: string,
    k3: string,
    max: string,
    ttl: string,
    owner: string,
    message: string,
    token: string,
    streamId: string,
    channel: string,
  ): Promise<string>;
};

/**
 * The event log of resumable streams on Redis (keys `e:<session>:<stream>`,
 * `m:<session>:<stream>`, `ss:<session>`, channels `ev:<session>:<stream>`, see ./redis.ts):
 * a stream begun on one process is resumed, and followed live, on any other.
 */
export class RedisEventStore implements SharedEventStore {
  private readonly maxEvents: number;
  private readonly ttlMs: number;
  private readonly maxClaims: number;
  /**
   * The claims this process holds whose stream is live here, by `<session> <stream>`: renewed
   * (with their stream's keys) every third of the TTL until the stream finishes, so that a claim
   * lasts as long as its request runs, however long that is.
   */
  private readonly running = new Map<string, { sessionId: string; streamId: string; requestKey: string }>();
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  /**
   * Each message's token (field `k` of its entry), so that a message offered again after a
   * command Redis did not answer in time (it may have stored it) is stored once.
   */
  private readonly tokens = new WeakMap<JSONRPCMessage, string>();
  private stored = 0;

  constructor(
    private readonly owner: RedisProcess,
    private readonly client: Redis,
    private readonly prefix: string,
    options: RedisStoresOptions,
  ) {
    client.defineCommand('mcpStoreAgain', { numberOfKeys: 3, lua: STORE_AGAIN });
    client.defineCommand('mcpClaim', { numberOfKeys: 2, lua: CLAIM });
    client.defineCommand('mcpReleaseClaim', { numberOfKeys: 3, lua: RELEASE });
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1000);
    this.ttlMs = Math.max(1000, options.eventTtlMs ?? 300_000);
    this.maxClaims = Math.max(0, options.maxClaims ?? 10_000);
    this.onError = options.onError;
  }

  private readonly onError: ((error: Error) => void) | undefined;

  private key(sessionId: string, streamId: string): string {
    return `${this.prefix}e:${sessionId}:${streamId}`;
  }

  private meta(sessionId: string, streamId: string): string {
    return `${this.prefix}m:${sessionId}:${streamId}`;
  }

  private channel(sessionId: string, streamId: string): string {
    return `${this.prefix}ev:${sessionId}:${streamId}`;
  }

  /**
   * Appends `message` (null: a priming event) to the stream's log and returns its event ID. A
   * message offered again (the same object, after a rejection: Redis may have stored it
   * without answering in time) is not stored twice: the ID of its entry is returned.
   */
  async storeEvent(sessionId: string, streamId: string, message: JSONRPCMessage | null): Promise<string> {
    const key = this.key(sessionId, streamId);
    const meta = this.meta(sessionId, streamId);
    const streams = `${this.prefix}ss:${sessionId}`;
    const again = message === null ? undefined : this.tokens.get(message);
    if (again !== undefined) {
      const xid = await (this.client as EventCommands).mcpStoreAgain(
        key,
        meta,
        streams,
        String(this.maxEvents),
        String(this.ttlMs),
        this.owner.processId,
        serializeMessage(message!),
        again,
        streamId,
        this.channel(sessionId, streamId),
      );
      return `${streamId}_${xid}`;
    }
    const token = message === null ? undefined : `${this.owner.processId}.${(++this.stored).toString(36)}`;
    if (message !== null) this.tokens.set(message, token!);
    const r = await this.client
      .multi()
      .xadd(
        key,
        'MAXLEN',
        String(this.maxEvents),
        '*',
        'm',
        message === null ? '' : serializeMessage(message),
        ...(token === undefined ? [] : ['k', token]),
      )
      .pexpire(key, this.ttlMs)
      .hset(meta, 'owner', this.owner.processId)
      .pexpire(meta, this.ttlMs)
      .sadd(streams, streamId)
      .pexpire(streams, this.ttlMs)
      .publish(this.channel(sessionId, streamId), '1')
      .exec();
    const xid = r?.[0]?.[1];
    if (r === null || r[0][0] || typeof xid !== 'string') throw r?.[0]?.[0] ?? new Error('redis: event not stored');
    return `${streamId}_${xid}`;
  }

  /**
   * {@link SharedEventStore.claimRequest}: one key `rq:<session>:<request key>` per claim (the
   * request key is a hash of the id: no id is stored), set only when absent (one script) and
   * listed in `rqs:<session>` (by expiry, at most `maxClaims` live ones: past it a new claim is
   * refused). It expires `eventTtlMs` after it was made, renewed by this process (with its
   * stream's keys) while stream `streamId` is live here, and `eventTtlMs` after the stream
   * finished.
   *
   * @throws ClaimLimitError when the session holds `maxClaims` live claims (nothing claimed).
   */
  async claimRequest(
    sessionId: string,
    requestKey: string,
    claim: string,
    streamId?: string,
  ): Promise<string | undefined> {
    const prior = await (this.client as EventCommands).mcpClaim(
      this.claimKey(sessionId, requestKey),
      `${this.prefix}rqs:${sessionId}`,
      claim,
      String(this.ttlMs),
      String(Date.now()),
      String(this.maxClaims),
      requestKey,
    );
    if (prior === 0)
      throw new ClaimLimitError(`too many requests in flight in this session (${this.maxClaims} claimed)`);
    if (typeof prior === 'string') return prior;
    if (streamId !== undefined) {
      this.running.set(`${sessionId} ${streamId}`, { sessionId, streamId, requestKey });
      this.renewTimer ??= setInterval(() => void this.renew(), Math.max(100, Math.floor(this.ttlMs / 3)));
      this.renewTimer.unref?.();
    }
    return undefined;
  }

  /** {@link SharedEventStore.releaseClaim}: one script (the claim deleted, the answer and the end stored on its stream). */
  async releaseClaim(
    sessionId: string,
    requestKey: string,
    claim: string,
    streamId: string,
    answer: JSONRPCMessage,
  ): Promise<boolean> {
    const released = await (this.client as EventCommands).mcpReleaseClaim(
      this.claimKey(sessionId, requestKey),
      `${this.prefix}rqs:${sessionId}`,
      this.key(sessionId, streamId),
      claim,
      requestKey,
      serializeMessage(answer),
      String(this.maxEvents),
      String(this.ttlMs),
      this.channel(sessionId, streamId),
    );
    return released === 1;
  }

  private claimKey(sessionId: string, requestKey: string): string {
    return `${this.prefix}rq:${sessionId}:${requestKey}`;
  }

  /** Renews the claims of the streams live here, and those streams' keys (see `running`). */
  private async renew(): Promise<void> {
    if (this.running.size === 0) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
      return;
    }
    const ttl = String(this.ttlMs);
    const at = String(Date.now() + this.ttlMs);
    const m = this.client.multi();
    for (const { sessionId, streamId, requestKey } of this.running.values()) {
      const claims = `${this.prefix}rqs:${sessionId}`;
      m.pexpire(this.claimKey(sessionId, requestKey), ttl)
        .zadd(claims, 'XX', at, requestKey)
        .pexpire(claims, ttl)
        .pexpire(this.key(sessionId, streamId), ttl)
        .pexpire(this.meta(sessionId, streamId), ttl)
        .pexpire(`${this.prefix}ss:${sessionId}`, ttl);
    }
    try {
      await m.exec();
    } catch (e) {
      this.onError?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** Stops renewing claims (the stores are closing). */
  stopRenewing(): void {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    this.running.clear();
  }

  async streamOpened(sessionId: string, streamId: string, requestIds: RequestId[]): Promise<void> {
    const meta = this.meta(sessionId, streamId);
    const ids = requestIds.map((id) => (typeof id === 'bigint' ? { b: String(id) } : id));
    await this.client
      .multi()
      .hset(meta, 'owner', this.owner.processId, 'requests', JSON.stringify(ids))
      .pexpire(meta, this.ttlMs)
      .exec();
  }

  async replayEventsAfter(
    sessionId: string,
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): Promise<string | undefined> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) return undefined;
    const key = this.key(sessionId, parsed.streamId);
    if ((await this.client.xrange(key, parsed.xid, parsed.xid)).length === 0) return undefined;
    for (const [xid, fields] of await this.client.xrange(key, `(${parsed.xid}`, '+')) {
      const m = fieldOf(fields, 'm');
      if (m) await send(`${parsed.streamId}_${xid}`, parseStored(m));
    }
    return parsed.streamId;
  }

  /** {@link SharedEventStore.streamFinished}; the stream's claim, if any, expires `eventTtlMs` from now. */
  async streamFinished(sessionId: string, streamId: string): Promise<void> {
    const key = this.key(sessionId, streamId);
    const m = this.client
      .multi()
      .xadd(key, 'MAXLEN', String(this.maxEvents), '*', 'end', '1')
      .pexpire(key, this.ttlMs)
      .publish(this.channel(sessionId, streamId), '1');
    const claimed = this.running.get(`${sessionId} ${streamId}`);
    if (claimed) {
      const claims = `${this.prefix}rqs:${sessionId}`;
      m.pexpire(this.claimKey(sessionId, claimed.requestKey), this.ttlMs)
        .zadd(claims, 'XX', String(Date.now() + this.ttlMs), claimed.requestKey)
        .pexpire(claims, this.ttlMs);
    }
    try {
      await m.exec();
    } finally {
      // (when that failed, the claim expires the TTL after its last renewal)
      if (claimed) this.running.delete(`${sessionId} ${streamId}`);
    }
  }

  /** Releases everything stored for `sessionId` (the session ended for every process). */
  async dropSession(sessionId: string): Promise<void> {
    const streams = `${this.prefix}ss:${sessionId}`;
    const claims = `${this.prefix}rqs:${sessionId}`;
    const ids = await this.client.smembers(streams);
    if (ids.length) await this.client.del(...ids.flatMap((s) => [this.key(sessionId, s), this.meta(sessionId, s)]));
    for (const [k, r] of this.running) if (r.sessionId === sessionId) this.running.delete(k);
    const claimed = await this.client.zrange(claims, '0', '-1');
    if (claimed.length) await this.client.del(...claimed.map((k) => this.claimKey(sessionId, k)));
    await this.client.del(streams, claims);
  }

  async follow(
    sessionId: string,
    lastEventId: string,
    write: (eventId: string, message: JSONRPCMessage) => void,
    signal: AbortSignal,
  ): Promise<{ streamId: string; ended: Promise<FollowEnd> } | undefined> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) return undefined;
    const { streamId } = parsed;
    const key = this.key(sessionId, streamId);
    if ((await this.client.xrange(key, parsed.xid, parsed.xid)).length === 0) return undefined;
    let cursor = parsed.xid;
    let settle!: (end: FollowEnd) => void;
    const ended = new Promise<FollowEnd>((r) => (settle = r));
    let done = false;
    let running: Promise<void> = Promise.resolve();
    let dirty = false;
    const finish = (end: FollowEnd): void => {
      if (done) return;
      done = true;
      unlisten();
      clearInterval(timer);
      signal.removeEventListener('abort', onAbort);
      settle(end);
    };
    /** Writes what was stored after the cursor; true when the end marker was read. */
    const drain = async (): Promise<boolean> => {
      for (;;) {
        const entries = await this.client.xrange(key, `(${cursor}`, '+', 'COUNT', 500);
        for (const [xid, fields] of entries) {
          cursor = xid;
          if (fieldOf(fields, 'end') !== undefined) return true;
          const m = fieldOf(fields, 'm');
          if (m && !done) write(`${streamId}_${xid}`, parseStored(m));
        }
        if (entries.length < 500) return false;
      }
    };
    const pull = (checkOwner: boolean): void => {
      if (running !== undefined && dirty) return;
      dirty = true;
      running = running.then(async () => {
        dirty = false;
        if (done) return;
        try {
          if (await drain()) return finish({ reason: 'finished' });
          if (!checkOwner) return;
          const owner = await this.client.hget(this.meta(sessionId, streamId), 'owner');
          if (owner !== null && !(await this.owner.gone(owner))) return;
          // the owner is gone: what it stored before it went, then the requests left unanswered
          if (await drain()) return finish({ reason: 'finished' });
          finish({ reason: 'owner-lost', pending: await this.unanswered(sessionId, streamId) });
        } catch {
          finish({ reason: 'aborted' });
        }
      });
    };
    const onAbort = (): void => finish({ reason: 'aborted' });
    signal.addEventListener('abort', onAbort);
    const unlisten = this.owner.listen(this.channel(sessionId, streamId), () => pull(false));
    const timer = setInterval(() => pull(true), Math.max(100, Math.floor(this.owner.liveness / 2)));
    timer.unref?.();
    if (signal.aborted) onAbort();
    // the owner checked at once too: a client whose connections break sooner than the timer's
    // first check would otherwise resume a stream of a lost process again and again
    pull(true);
    return { streamId, ended };
  }

  /** The requests of a stream whose response is not in its log. */
  private async unanswered(sessionId: string, streamId: string): Promise<RequestId[]> {
    const raw = await this.client.hget(this.meta(sessionId, streamId), 'requests');
    if (!raw) return [];
    const ids = (JSON.parse(raw) as Array<string | number | { b: string }>).map((id) =>
      typeof id === 'object' ? BigInt(id.b) : id,
    );
    const answered = new Set<string>();
    for (const [, fields] of await this.client.xrange(this.key(sessionId, streamId), '-', '+')) {
      const m = fieldOf(fields, 'm');
      if (!m) continue;
      const msg = parseStored(m);
      if (!('method' in msg) && msg.id !== undefined && msg.id !== null) answered.add(idKey(msg.id as RequestId));
    }
    return ids.filter((id) => !answered.has(idKey(id)));
  }
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
