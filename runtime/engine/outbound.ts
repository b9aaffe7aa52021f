/**
 * The outbound half of the peer engine: requests this side sent and still waits for, by id
 * (ids compare by type and value: `"1"` is not `1`), and their timeouts (2025-11-25
 * `basic/lifecycle.mdx`, Timeouts).
 *
 * A request costs no timer of its own unless it asked for timeout resets on progress or a total
 * cap: requests sharing one timeout value wait in one lane, in send order (which is deadline
 * order), under one timer armed for the oldest deadline. Per request that is a Set insert and
 * delete instead of a `setTimeout`/`clearTimeout` pair.
 */
import type { MethodEntry } from '../protocol/table.js';
import type { ProgressToken, RequestId } from '../jsonrpc/message.js';

/** Largest delay `setTimeout` honours; a larger timeout means none. */
const MAX_DELAY = 2 ** 31 - 1;
/** Lanes kept (with their timer) after they empty; more distinct timeout values are dropped when idle. */
const IDLE_LANES = 4;
/** Slots of a {@link PendingById} ring (a power of two: twice 64 in flight, whose ids never collide in it). */
const RING = 128;

/** Timeout settings of one outbound request, all in milliseconds. */
export interface TimeoutOptions {
  /** Time without a response (or without progress, with `resetOnProgress`). */
  timeout: number;
  /** Progress restarts the `timeout` clock. */
  resetOnProgress?: boolean;
  /** Hard cap from the start, even while progress keeps arriving. */
  maxTotal?: number;
}

/**
 * The timeout clock of one outbound request. Calls `onTimeout(ms, total)` once: `ms` is the limit
 * that fired, `total` is true when it was `maxTotal`. A `timeout` of `Infinity` (or above about
 * 24.8 days) means none.
 */
export class RequestTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly started = Date.now();
  private done = false;

  constructor(
    private readonly options: TimeoutOptions,
    private readonly onTimeout: (ms: number, total: boolean) => void,
  ) {
    this.arm(options.timeout);
  }

  /** Progress arrived: restart the clock when `resetOnProgress` is set. */
  progress(): void {
    if (this.done || !this.options.resetOnProgress) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.arm(this.options.timeout);
  }

  clear(): void {
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(timeout: number): void {
    const maxTotal = this.options.maxTotal;
    let delay = timeout;
    let total = false;
    if (maxTotal !== undefined && maxTotal <= MAX_DELAY) {
      const left = maxTotal - (Date.now() - this.started);
      if (left < delay) {
        delay = Math.max(0, left);
        total = true;
      }
    }
    if (!(delay <= MAX_DELAY)) {
      this.timer = undefined;
      return;
    }
    this.timer = setTimeout(() => {
      if (this.done) return;
      this.done = true;
      this.onTimeout(total ? maxTotal! : timeout, total);
    }, delay);
  }
}

/**
 * One request sent and not yet answered, timed out, aborted or failed. Settling it drops its
 * references to the caller's promise and callbacks: an object that outlives its request (e.g.
 * promoted to the old generation just before it settled) then holds nothing young alive.
 */
export class PendingRequest<R = unknown> {
  /** The caller's promise; the engine takes it (see {@link take}) when it hands it out. */
  private promise: Promise<R> | undefined;
  private res: ((value: unknown) => void) | undefined;
  private rej: ((error: unknown) => void) | undefined;
  /** With resetOnProgress or maxTotal: the request's own clock. */
  timer: RequestTimer | undefined;
  /** In a lane: `Date.now()` ms at which the request times out (set in a microtask after it joins the lane). */
  deadline = 0;
  lane: Lane | undefined;
  /** When it was added among its engine's requests (0, 1, …): what `ids()` orders by. */
  order = 0;
  /** The lane's neighbours (a lane is a list in send order). */
  lanePrev: PendingRequest | undefined;
  laneNext: PendingRequest | undefined;
  /** The progress token routed to the caller's `onProgress`. */
  token: ProgressToken | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /**
   * A step of the caller's applied to the result (after the result check) before the promise
   * settles: the promise resolves with what it returns (a value, or a promise it then follows)
   * and rejects with what it throws. Where a caller would otherwise chain a `.then` on the
   * promise (a `tools/call` output check), this costs no promise of its own.
   */
  after: ((result: unknown) => unknown) | undefined;
  /**
   * A step of the caller's applied to the request's failure once it was sent (an error
   * response, a timeout, an abort, a lost connection): the promise resolves with what it
   * returns (a value, or a promise it then follows) and rejects with what it throws (the error
   * itself, when it has no answer to it). Where a caller would otherwise chain a `.catch` on the
   * promise (a resend on -32022), this costs no promise of its own.
   */
  recover: ((error: unknown) => unknown) | undefined;
  /**
   * What `after` and `recover` are called on (their `this`): a caller's per-request object whose
   * methods they are, so that it needs no closure (nor bound function) per request.
   */
  self: unknown;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    /** The method's table entry (undefined for a method the table does not know). */
    readonly entry: MethodEntry | undefined,
    /** Check the result against `entry.result`. */
    readonly validate: boolean,
  ) {
    // one executor for every request (no closure, nor a context for it, per request)
    PendingRequest.making = this as PendingRequest;
    this.promise = new Promise<R>(PendingRequest.capture as unknown as ConstructorParameters<typeof Promise<R>>[0]);
    PendingRequest.making = undefined;
  }

  /** The request whose promise is being made: `new Promise` runs its executor at once. */
  private static making: PendingRequest | undefined;

  private static capture(this: void, resolve: (value: unknown) => void, reject: (error: unknown) => void): void {
    const p = PendingRequest.making!;
    p.res = resolve;
    p.rej = reject;
  }

  /** The promise of the result, once (later calls get undefined). */
  take(): Promise<R> {
    const promise = this.promise!;
    this.promise = undefined;
    return promise;
  }

  resolve(value: unknown): void {
    const f = this.res;
    const after = this.after;
    if (after === undefined) {
      this.drop();
      f?.(value);
      return;
    }
    const rej = this.rej;
    const self = this.self;
    this.drop();
    if (f === undefined) return;
    let out: unknown;
    try {
      out = after.call(self, value);
    } catch (e) {
      rej!(e);
      return;
    }
    f(out);
  }

  reject(error: unknown): void {
    const f = this.rej;
    const recover = this.recover;
    if (recover === undefined) {
      this.drop();
      f?.(error);
      return;
    }
    const res = this.res;
    const self = this.self;
    this.drop();
    if (f === undefined) return;
    let out: unknown;
    try {
      out = recover.call(self, error);
    } catch (e) {
      f(e);
      return;
    }
    res!(out);
  }

  private drop(): void {
    this.res = this.rej = this.promise = this.signal = this.onAbort = this.after = this.recover = this.self = undefined;
  }
}

/**
 * Requests with the same plain timeout, oldest first, under one timer: a doubly linked list
 * through the requests (a `Set` that fills and empties with every request rebuilds its table
 * as it shrinks, and keeps deleted entries before its first live one until it rehashes).
 *
 * The clock is read once for the requests that joined in one run of code: a microtask queued by
 * the first of them gives them all the deadline `Date.now() + ms` read then, after each was sent,
 * so that a request never times out early (it may time out as late as that run of code is long).
 */
class Lane {
  private first: PendingRequest | undefined;
  private last: PendingRequest | undefined;
  /** The oldest request without a deadline yet (it and every later one wait for {@link stamp}). */
  private unstamped: PendingRequest | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly ms: number,
    private readonly expire: (p: PendingRequest, ms: number) => void,
  ) {}

  add(p: PendingRequest): void {
    p.lane = this;
    const wasEmpty = this.first === undefined;
    p.lanePrev = this.last;
    p.laneNext = undefined;
    if (this.last) this.last.laneNext = p;
    else this.first = p;
    this.last = p;
    if (this.unstamped === undefined) {
      this.unstamped = p;
      queueMicrotask(this.stamp);
    }
    // An armed timer is set for a deadline no later than this one: keep it, but let it hold the loop again.
    if (this.timer === undefined) this.arm(this.ms);
    else if (wasEmpty) this.timer.ref?.(); // a number in browsers and workers: no ref/unref there
  }

  /** Removes `p`; true when the lane is now empty (its timer then no longer holds the process). */
  remove(p: PendingRequest): boolean {
    if (p.lane !== this) return false;
    this.unlink(p);
    if (this.first !== undefined) return false;
    this.timer?.unref?.();
    return true;
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private unlink(p: PendingRequest): void {
    const { lanePrev: prev, laneNext: next } = p;
    if (p === this.unstamped) this.unstamped = next;
    if (prev) prev.laneNext = next;
    else this.first = next;
    if (next) next.lanePrev = prev;
    else this.last = prev;
    p.lane = p.lanePrev = p.laneNext = undefined;
  }

  private readonly stamp = (): void => {
    const deadline = Date.now() + this.ms;
    for (let p = this.unstamped; p; p = p.laneNext) p.deadline = deadline;
    this.unstamped = undefined;
  };

  private arm(delay: number): void {
    this.timer = setTimeout(this.fire, Math.max(1, delay));
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    const now = Date.now();
    for (let p = this.first; p; p = this.first) {
      // (one sent by an expiry's own step, in this loop, has no deadline yet)
      if (p === this.unstamped) return this.arm(this.ms);
      if (p.deadline > now) return this.arm(p.deadline - now);
      this.unlink(p);
      this.expire(p, this.ms);
    }
  };
}

/**
 * The pending requests by id, compared as a `Map` compares keys. The ids an engine mints are
 * consecutive integers, and the requests in flight a window of them: a number id sits in the slot
 * of a ring its low bits name (a read is an index and an id comparison, no hashing, and nothing
 * is allocated as requests come and go, where a `Map` that fills and empties rebuilds its table
 * every few dozen inserts). An id whose slot is taken by another request (one still pending from
 * long ago, a window wider than the ring) or that is not a number (a `<prefix><n>` string) sits
 * in a `Map` beside the ring, made while it holds any. The ring's array grows as ids reach its
 * slots, up to {@link RING} (an engine that sent a few requests holds a few slots).
 */
class PendingById {
  private readonly ring: Array<PendingRequest | undefined> = [];
  private more: Map<RequestId, PendingRequest> | undefined;
  size = 0;

  get(id: RequestId): PendingRequest | undefined {
    if (typeof id === 'number') {
      const p = this.ring[id & (RING - 1)];
      if (p !== undefined && p.id === id) return p;
    }
    return this.more?.get(id);
  }

  /** Adds `p` under `p.id`, replacing a request pending under the same id. */
  set(p: PendingRequest): void {
    const id = p.id;
    // (NaN, equal to itself as a Map key only, is kept in the map)
    if (typeof id === 'number' && !Number.isNaN(id)) {
      const at = id & (RING - 1);
      const held = this.ring[at];
      if (held === undefined ? this.more?.has(id) !== true : held.id === id) {
        if (held === undefined) this.size++;
        this.ring[at] = p;
        return;
      }
    }
    const more = (this.more ??= new Map());
    const n = more.size;
    more.set(id, p);
    this.size += more.size - n;
  }

  /** Removes the request pending under `id`; false when none is. */
  delete(id: RequestId): boolean {
    if (typeof id === 'number') {
      const at = id & (RING - 1);
      const p = this.ring[at];
      if (p !== undefined && p.id === id) {
        this.ring[at] = undefined;
        this.size--;
        return true;
      }
    }
    const more = this.more;
    if (more === undefined || !more.delete(id)) return false;
    if (more.size === 0) this.more = undefined;
    this.size--;
    return true;
  }

  values(): PendingRequest[] {
    const all: PendingRequest[] = [];
    for (const p of this.ring) if (p !== undefined) all.push(p);
    if (this.more) for (const p of this.more.values()) all.push(p);
    return all;
  }
}

/**
 * The pending requests of one peer. `onTimeout(p, ms, total)` is called once for a pending
 * request whose clock ran out (`total`: it was the `maxTotal` cap); it is expected to settle it.
 */
export class OutboundRequests {
  // Both are made on first use: most engines of an idle server session never send a request.
  private pending: PendingById | undefined;
  private lanes: Map<number, Lane> | undefined;
  private added = 0;
  private readonly expire: (p: PendingRequest, ms: number, total?: boolean) => void;

  constructor(private readonly onTimeout: (p: PendingRequest, ms: number, total: boolean) => void) {
    this.expire = (p, ms, total = false) => {
      if (this.pending?.get(p.id) === p) this.onTimeout(p, ms, total);
    };
  }

  get size(): number {
    return this.pending?.size ?? 0;
  }

  /**
   * Starts waiting for `p`'s response, with its clock: `timeout` ms without a response (or
   * without progress, with `resetOnProgress`), capped at `maxTotal` ms from now when given.
   */
  add(p: PendingRequest, timeout: number, resetOnProgress?: boolean, maxTotal?: number): void {
    p.order = this.added++;
    (this.pending ??= new PendingById()).set(p);
    if (resetOnProgress || maxTotal !== undefined) {
      p.timer = new RequestTimer({ timeout, resetOnProgress, maxTotal }, (ms, total) => this.expire(p, ms, total));
    } else if (timeout <= MAX_DELAY) {
      const lanes = (this.lanes ??= new Map());
      let lane = lanes.get(timeout);
      if (!lane) lanes.set(timeout, (lane = new Lane(timeout, this.expire)));
      lane.add(p);
    }
  }

  /** Progress arrived for `p`: restarts its clock when it asked for that. */
  progress(p: PendingRequest): void {
    p.timer?.progress();
  }

  /**
   * Removes the request `id` and its clock, progress route (via `dropToken`, when given; the
   * caller may drop the returned request's `token` itself) and abort listener; undefined when it
   * is not pending (unknown, late, or a duplicate response).
   */
  settle(id: RequestId, dropToken?: (token: ProgressToken) => void): PendingRequest | undefined {
    const p = this.pending?.get(id);
    if (p === undefined) return undefined;
    this.remove(p);
    if (p.token !== undefined) dropToken?.(p.token);
    if (p.onAbort) p.signal!.removeEventListener('abort', p.onAbort);
    return p;
  }

  /** The ids of every pending request, oldest first. */
  ids(): RequestId[] {
    return this.pending
      ? this.pending
          .values()
          .sort((a, b) => a.order - b.order)
          .map((p) => p.id)
      : [];
  }

  /** Stops every clock (the connection closed); pending requests stay until settled. */
  stopClocks(): void {
    if (!this.lanes) return;
    for (const lane of this.lanes.values()) lane.clear();
    this.lanes = undefined;
  }

  private remove(p: PendingRequest): void {
    this.pending!.delete(p.id);
    p.timer?.clear();
    const lane = p.lane;
    if (lane?.remove(p) && (this.lanes?.size ?? 0) > IDLE_LANES) {
      lane.clear();
      this.lanes!.delete(lane.ms);
    }
  }
}
