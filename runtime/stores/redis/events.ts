// size: the event log and the request claims of request replay share their keys and one renewal loop
/**
 * The Redis {@link SharedEventStore} of ./redis.ts: every event of a stream in a Redis stream,
 * a follower on another process woken by a channel message and checking the owner's liveness.
 *
 * Request claims (request replay) and the bound of at most once: a claim's lease is
 * `eventTtlMs`, renewed every third of it while its request runs here. Another process takes a
 * claim over (and runs an identical re-send again) only when its lease lapsed and its process's
 * liveness record was missing at two checks `livenessMs` apart. So a request runs at most once
 * unless its process is cut off from Redis for at least two thirds of `eventTtlMs` (up to all
 * of it, as the last renewal fell) and a re-send reaches another process then; the process cut
 * off learns it at its next renewal (`onError`), and its call is not stopped. Redis losing
 * acknowledged writes (a restart without persistence, a failover) drops claims until their
 * processes' next renewal (at most a third of `eventTtlMs`): a re-send meanwhile runs again.
 * `livenessMs` and `commandTimeoutMs` are not part of that bound (docs/guide/several-processes.md,
 * "At most once, and its bound").
 */
import type { Redis } from 'ioredis';
import type { JSONRPCMessage } from '../../jsonrpc/transport.js';
import type { RequestId } from '../../jsonrpc/message.js';
import { serializeMessage } from '../../jsonrpc/message.js';
import { decimal } from '../../jsonrpc/decimal.js';
import { ClaimLimitError, type FollowEnd, type SharedEventStore } from '../events.js';
import type { RedisProcess, RedisStoresOptions } from './options.js';
import { CLAIM, DISCARD, FINISH, RELEASE, RENEW, STORE_AGAIN, TAKE_OVER } from './event-scripts.js';
import { parseStored } from '../stored-message.js';

const XID = /^([0-9]{1,20})-([0-9]{1,20})$/;
const U64_MAX = 2n ** 64n - 1n;

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
    stream: string,
    meta: string,
    value: string,
    ttl: string,
    now: string,
    max: string,
    requestKey: string,
    hold: string,
  ): Promise<[string, number] | number | null>;
  mcpTakeOverClaim(
    key: string,
    claims: string,
    stream: string,
    meta: string,
    prior: string,
    value: string,
    ttl: string,
    now: string,
    requestKey: string,
    hold: string,
  ): Promise<string | null>;
  mcpRenewClaims(...args: string[]): Promise<number[]>;
  mcpFinishClaim(
    stream: string,
    key: string,
    claims: string,
    meta: string,
    max: string,
    ttl: string,
    channel: string,
    value: string,
    now: string,
    requestKey: string,
  ): Promise<number>;
  mcpDiscardEvent(key: string, token: string, maxEvents: string): Promise<number>;
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
   * How long a claim whose request runs is held (ms), whatever its lease: as long as a session
   * may stay idle (`sessionIdleMs`, 30 minutes when sessions do not expire), at least the TTL.
   */
  private readonly holdMs: number;
  /**
   * The claims this process holds whose stream is live here, by `<session> <stream>` (`value`:
   * the claim's stored value): their leases renewed, and the claims set again when they lapsed
   * (a Redis stall or restart), every third of the TTL until the stream finishes, so that a
   * claim lasts as long as its request runs, however long that is. `finished`: the stream
   * finished but storing that failed; tried again with each renewal until the store answers.
   */
  private readonly running = new Map<string, RunningClaim>();
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  /** A renewal tried again soon after one failed. */
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Each message's token (field `k` of its entry), so that a message offered again after a
   * command Redis did not answer in time (it may have stored it) is stored once.
   */
  private readonly tokens = new WeakMap<JSONRPCMessage, string>();
  private stored = 0;
  /** Discards to try again once the connection is back (see `discardLater`), oldest first. */
  private readonly discards: PendingDiscard[] = [];
  private discardTimer: ReturnType<typeof setInterval> | undefined;
  private onReady: (() => void) | undefined;

  constructor(
    private readonly owner: RedisProcess,
    private readonly client: Redis,
    private readonly prefix: string,
    options: RedisStoresOptions,
  ) {
    client.defineCommand('mcpStoreAgain', { numberOfKeys: 3, lua: STORE_AGAIN });
    client.defineCommand('mcpDiscardEvent', { numberOfKeys: 1, lua: DISCARD });
    client.defineCommand('mcpClaim', { numberOfKeys: 4, lua: CLAIM });
    client.defineCommand('mcpReleaseClaim', { numberOfKeys: 3, lua: RELEASE });
    client.defineCommand('mcpTakeOverClaim', { numberOfKeys: 4, lua: TAKE_OVER });
    client.defineCommand('mcpRenewClaims', { numberOfKeys: 0, lua: RENEW });
    client.defineCommand('mcpFinishClaim', { numberOfKeys: 4, lua: FINISH });
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1000);
    this.ttlMs = Math.max(1000, options.eventTtlMs ?? 300_000);
    const idle = Math.max(0, options.sessionIdleMs ?? 1_800_000);
    this.holdMs = Math.max(this.ttlMs, idle > 0 ? idle : 1_800_000);
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
    const ttl = String(this.expiryOf(sessionId, streamId));
    if (again !== undefined) {
      const xid = await (this.client as EventCommands).mcpStoreAgain(
        key,
        meta,
        streams,
        String(this.maxEvents),
        ttl,
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
      .pexpire(key, ttl)
      .hset(meta, 'owner', this.owner.processId)
      .pexpire(meta, ttl)
      .sadd(streams, streamId)
      .pexpire(streams, this.ttlMs)
      .publish(this.channel(sessionId, streamId), '1')
      .exec();
    const xid = r?.[0]?.[1];
    if (r === null || r[0][0] || typeof xid !== 'string') throw r?.[0]?.[0] ?? new Error('redis: event not stored');
    return `${streamId}_${xid}`;
  }

  /** How long the keys of stream `streamId` are kept from now, ms: held while a claimed request runs on it here. */
  private expiryOf(sessionId: string, streamId: string): number {
    const r = this.running.size === 0 ? undefined : this.running.get(`${sessionId} ${streamId}`);
    return r !== undefined && !r.finished ? this.holdMs : this.ttlMs;
  }

  /**
   * {@link SharedEventStore.claimRequest}: one key `rq:<session>:<request key>` per claim (the
   * request key is a hash of the id: no id is stored) holding the claim and this process's id,
   * set only when absent (one script), and a lease: the key's score in `rqs:<session>` (at most
   * `maxClaims` live leases per session: past it a new claim is refused; a finished request's
   * claim holds none, it is kept `eventTtlMs` for its re-sends and never taken over). The lease ends
   * `eventTtlMs` after the claim, renewed by this process while stream `streamId` is live here
   * (and ends `eventTtlMs` after the stream finished); the key is held as long as a session may
   * stay idle while the request runs, and set again by this process when it lapsed anyway (a
   * Redis restart), so that a Redis stall longer than the lease cannot let another claim run the
   * request again. A claim whose lease lapsed is taken over only when its process is gone (its
   * liveness record missing at two checks `livenessMs` apart, see `RedisProcess.gone`): a process
   * killed while its request ran, whose request may then run again; until then its text is
   * returned (the re-send follows its stream, and learns when its process is gone).
   *
   * @throws ClaimLimitError when the session holds `maxClaims` live claims (nothing claimed);
   *   its `retryAfterMs`: until the soonest of their leases ends, ms (at least 1).
   */
  async claimRequest(
    sessionId: string,
    requestKey: string,
    claim: string,
    streamId?: string,
  ): Promise<string | undefined> {
    const key = this.claimKey(sessionId, requestKey);
    const claims = `${this.prefix}rqs:${sessionId}`;
    const value = `${claim}\n${this.owner.processId}`;
    const commands = this.client as EventCommands;
    const ttl = String(this.ttlMs);
    const hold = String(this.holdMs);
    const stream = this.key(sessionId, streamId ?? '');
    const meta = this.meta(sessionId, streamId ?? '');
    const prior = await commands.mcpClaim(
      key,
      claims,
      stream,
      meta,
      value,
      ttl,
      String(Date.now()),
      String(this.maxClaims),
      requestKey,
      hold,
    );
    if (typeof prior === 'number')
      throw Object.assign(
        new ClaimLimitError(`too many requests in flight in this session (${this.maxClaims} claimed)`),
        { retryAfterMs: prior },
      );
    if (Array.isArray(prior)) {
      const [held, lapsed] = prior;
      if (lapsed !== 1 || !(await this.ownerGone(sessionId, held))) return textOf(held);
      const now = await commands.mcpTakeOverClaim(
        key,
        claims,
        stream,
        meta,
        held,
        value,
        ttl,
        String(Date.now()),
        requestKey,
        hold,
      );
      if (typeof now === 'string') return textOf(now);
    }
    if (streamId !== undefined) {
      this.running.set(`${sessionId} ${streamId}`, { sessionId, streamId, requestKey, value, finished: false });
      this.renewTimer ??= setInterval(() => void this.renew(), this.renewEvery());
      this.renewTimer.unref?.();
    }
    return undefined;
  }

  /** Whether the process that made claim value `held` (lease lapsed) is gone: for this process, whether its stream is no longer live here. */
  private async ownerGone(sessionId: string, held: string): Promise<boolean> {
    const cut = held.lastIndexOf('\n');
    if (cut < 0) return true;
    const owner = held.slice(cut + 1);
    if (owner !== this.owner.processId) return this.owner.gone(owner);
    const primingId = held.slice(held.indexOf(' ') + 1, cut);
    const streamId = primingId.slice(0, primingId.lastIndexOf('_'));
    return this.running.get(`${sessionId} ${streamId}`)?.finished !== false;
  }

  private renewEvery(): number {
    return Math.max(100, Math.floor(this.ttlMs / 3));
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
      `${claim}\n${this.owner.processId}`,
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

  /**
   * Renews the claims of the streams live here, and those streams' keys, setting again a claim
   * that lapsed (see `running`); stores again the end of those whose finish failed. A failure
   * is tried again within a second; a claim another process holds now is reported to `onError`
   * (its request may run twice: this process could not reach Redis for longer than the lease,
   * and that process found this one gone).
   */
  private async renew(): Promise<void> {
    if (this.running.size === 0) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
      return;
    }
    const live: RunningClaim[] = [];
    const args = [this.prefix, String(this.ttlMs), String(Date.now()), String(this.holdMs)];
    const finishing: RunningClaim[] = [];
    for (const r of this.running.values()) {
      if (r.finished) finishing.push(r);
      else {
        live.push(r);
        args.push(r.sessionId, r.streamId, r.requestKey, r.value);
      }
    }
    try {
      if (live.length > 0) {
        const lost = await (this.client as EventCommands).mcpRenewClaims(...args);
        for (const n of lost) {
          const r = live[n - 1];
          this.running.delete(`${r.sessionId} ${r.streamId}`);
          this.onError?.(
            new Error(
              `request replay: the claim of a request running on stream ${r.streamId} of session ${r.sessionId} is held by another process (Redis could not be reached for longer than the claim's lease)`,
            ),
          );
        }
      }
      for (const r of finishing) await this.finishClaim(r);
    } catch (e) {
      this.onError?.(e instanceof Error ? e : new Error(String(e)));
      this.retryTimer ??= setTimeout(
        () => {
          this.retryTimer = undefined;
          void this.renew();
        },
        Math.min(1000, this.renewEvery()),
      );
      this.retryTimer.unref?.();
    }
  }

  /** Stops renewing claims (the stores are closing). */
  stopRenewing(): void {
    this.stopDiscarding();
    this.discards.length = 0;
    clearInterval(this.renewTimer);
    clearTimeout(this.retryTimer);
    this.renewTimer = undefined;
    this.retryTimer = undefined;
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

  /**
   * {@link SharedEventStore.discardEvent}: the entry of `message` (found by the token its store
   * call carried, anywhere in the stream: at most `maxEventsPerStream` entries read) deleted. Sent on the same connection after that
   * call, so Redis runs it after the call's queued command; a message this process never offered
   * is left alone. When it fails (the connection dropped: Redis may have run the store just
   * before), it is tried again once the connection is back (see `discardLater`); resolves either
   * way.
   */
  async discardEvent(sessionId: string, streamId: string, message: JSONRPCMessage): Promise<void> {
    const token = this.tokens.get(message);
    if (token === undefined) return;
    this.tokens.delete(message);
    const key = this.key(sessionId, streamId);
    try {
      await (this.client as EventCommands).mcpDiscardEvent(key, token, String(this.maxEvents));
    } catch {
      this.discardLater({ key, token, since: Date.now() });
    }
  }

  /**
   * A discard that failed (the connection dropped: the failed store may have been run by Redis
   * just before it, and the discard could not be sent) kept, with its token, to be tried again:
   * first on the command connection's next `ready` (before any other command of this process
   * on the new connection), then every second, each one until it succeeds or
   * {@link DISCARD_RETRY_MS} after its first failure (then reported to `onError`: a client
   * resuming from before that event may get it twice). At most {@link DISCARDS_KEPT} are kept;
   * the oldest is dropped (and reported) for a new one.
   */
  private discardLater(d: PendingDiscard): void {
    if (this.discards.length >= DISCARDS_KEPT) this.gaveUp(this.discards.shift()!);
    this.discards.push(d);
    if (!this.onReady) {
      this.onReady = () => void this.retryDiscards();
      this.client.on('ready', this.onReady);
    }
    this.discardTimer ??= setInterval(() => void this.retryDiscards(), 1000);
    this.discardTimer.unref?.();
  }

  /** Tries the kept discards again (see {@link discardLater}). */
  private async retryDiscards(): Promise<void> {
    const now = Date.now();
    const batch = this.discards.splice(0);
    const tries = batch.map(async (d) => {
      if (now - d.since > DISCARD_RETRY_MS) return this.gaveUp(d);
      try {
        await (this.client as EventCommands).mcpDiscardEvent(d.key, d.token, String(this.maxEvents));
      } catch {
        this.discardLater(d);
      }
    });
    await Promise.all(tries);
    if (this.discards.length === 0) this.stopDiscarding();
  }

  private gaveUp(d: PendingDiscard): void {
    this.onError?.(
      new Error(
        `event store: an event sent without an ID (its store failed) could not be discarded from ${d.key} (Redis unreachable); a client resuming from before it may get it twice`,
      ),
    );
  }

  private stopDiscarding(): void {
    clearInterval(this.discardTimer);
    this.discardTimer = undefined;
    if (this.onReady) this.client.off('ready', this.onReady);
    this.onReady = undefined;
  }

  async replayEventsAfter(
    sessionId: string,
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): Promise<string | undefined> {
    const at = await this.entryOf(sessionId, lastEventId);
    if (!at) return undefined;
    for (const [xid, fields] of await this.client.xrange(at.key, `(${at.xid}`, '+')) {
      const m = fieldOf(fields, 'm');
      if (m) await send(`${at.streamId}_${xid}`, parseStored(m));
    }
    return at.streamId;
  }

  /**
   * The stream of event ID `<streamId>_<redis stream id>` and that entry's id, when the entry is
   * still stored; undefined when it is gone or the ID is not one (a Redis stream id is two
   * unsigned 64-bit integers `<ms>-<seq>`: a larger one Redis would refuse).
   */
  private async entryOf(
    sessionId: string,
    eventId: string,
  ): Promise<{ streamId: string; xid: string; key: string } | undefined> {
    const cut = eventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const xid = eventId.slice(cut + 1);
    const m = XID.exec(xid);
    if (!m || BigInt(m[1]) > U64_MAX || BigInt(m[2]) > U64_MAX) return undefined;
    const streamId = eventId.slice(0, cut);
    const key = this.key(sessionId, streamId);
    return (await this.client.xrange(key, xid, xid)).length === 0 ? undefined : { streamId, xid, key };
  }

  /**
   * {@link SharedEventStore.streamFinished}; the stream's claim, if any, and its lease expire
   * `eventTtlMs` from now. When that fails, it is stored again with the next renewal (see
   * `running`) until the store answers, and the claim is held until then.
   */
  async streamFinished(sessionId: string, streamId: string): Promise<void> {
    const claimed = this.running.get(`${sessionId} ${streamId}`);
    if (claimed) {
      claimed.finished = true;
      return this.finishClaim(claimed);
    }
    const key = this.key(sessionId, streamId);
    await this.client
      .multi()
      .xadd(key, 'MAXLEN', String(this.maxEvents), '*', 'end', '1')
      .pexpire(key, this.ttlMs)
      .publish(this.channel(sessionId, streamId), '1')
      .exec();
  }

  /** Stores the end of claimed stream `r` (one script), then forgets it. */
  private async finishClaim(r: RunningClaim): Promise<void> {
    await (this.client as EventCommands).mcpFinishClaim(
      this.key(r.sessionId, r.streamId),
      this.claimKey(r.sessionId, r.requestKey),
      `${this.prefix}rqs:${r.sessionId}`,
      this.meta(r.sessionId, r.streamId),
      String(this.maxEvents),
      String(this.ttlMs),
      this.channel(r.sessionId, r.streamId),
      r.value,
      String(Date.now()),
      r.requestKey,
    );
    if (this.running.get(`${r.sessionId} ${r.streamId}`) === r) this.running.delete(`${r.sessionId} ${r.streamId}`);
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
    const at = await this.entryOf(sessionId, lastEventId);
    if (!at) return undefined;
    const { streamId, key } = at;
    let cursor = at.xid;
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
      if (dirty) return;
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

/** Most discards kept to try again (`RedisEventStore.discardLater`). */
const DISCARDS_KEPT = 1024;
/** How long a failed discard is tried again, ms. */
const DISCARD_RETRY_MS = 60_000;

/** A discard to try again: stream key, the token of the event's store call, when it first failed (ms). */
interface PendingDiscard {
  key: string;
  token: string;
  since: number;
}

/** A claim this process holds whose stream is live here (see `RedisEventStore.running`). */
interface RunningClaim {
  sessionId: string;
  streamId: string;
  requestKey: string;
  /** The claim's stored value: `<claim text>\n<process id>`. */
  value: string;
  finished: boolean;
}

/** The claim text of a stored claim value (`<claim text>\n<process id>`). */
function textOf(value: string): string {
  const cut = value.lastIndexOf('\n');
  return cut < 0 ? value : value.slice(0, cut);
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
