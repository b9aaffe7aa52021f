/**
 * The Redis {@link TaskStore} (2025-11-25 basic/utilities/tasks): tasks created through one
 * process are got, awaited (`tasks/result`), listed and cancelled through any other. Every
 * change is applied atomically by a Lua script that checks the lifecycle ({@link canTransition})
 * and is published, so a receiver anywhere hears it (a `tasks/cancel` on one process aborts the
 * task running on another; `tasks/result` waiting on one wakes when another completes it).
 *
 * Keys, under the stores' prefix: `t:<owner>:<taskId>` a hash (`task`, `outcome`, `seq`) that
 * expires with the task's `ttl` (a `null` ttl is capped at `maxTtlMs`); `to:<owner>` the owner's
 * task ids by creation sequence (trimmed of expired ids when listed, capped at
 * `maxTasksPerOwner`, the oldest dropped); `tx:<owner>:<taskId>` a marker that outlives the task
 * by `expiredMemoryMs`, for the "Task has expired" message; `tseq` the creation counter; channel
 * `tasks` the change events.
 */
import type { Redis } from 'ioredis';
import {
  canTransition,
  InvalidCursorError,
  isTerminal,
  TaskNotFoundError,
  TaskTransitionError,
  type Task,
  type TaskEvent,
  type TaskInit,
  type TaskOutcome,
  type TaskPage,
  type TaskStatus,
  type TaskStore,
  type TaskUpdate,
} from '../tasks.js';
import { STATUSES, newTask } from '../task-record.js';

// KEYS[1] task hash; ARGV status, froms (JSON), message mode (keep|drop|set), message, now ISO, outcome JSON or '', channel, owner
const UPDATE = `
local raw = redis.call('HGET', KEYS[1], 'task')
if not raw then return {0} end
local task = cjson.decode(raw)
local allowed = false
for _, s in ipairs(cjson.decode(ARGV[2])) do if s == task.status then allowed = true end end
if not allowed then return {2, task.status} end
task.status = ARGV[1]
if ARGV[3] == 'drop' then task.statusMessage = nil elseif ARGV[3] == 'set' then task.statusMessage = ARGV[4] end
task.lastUpdatedAt = ARGV[5]
local out = cjson.encode(task)
redis.call('HSET', KEYS[1], 'task', out)
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'outcome', ARGV[6]) end
redis.call('PUBLISH', ARGV[7], cjson.encode({type = 'updated', owner = ARGV[8], task = task}))
return {1, out}`;

/** Options of {@link RedisTaskStore}. */
export interface RedisTaskStoreOptions {
  /** Key and channel prefix (the same as the other stores'). Default `mcp:`. */
  prefix?: string;
  /** Retention of a task whose `ttl` is null (unlimited), ms: Redis keeps nothing forever. Default 86 400 000 (one day). */
  maxTtlMs?: number;
  /** Tasks listed per owner at most; creating more drops the oldest from the list. Default 1000. */
  maxTasksPerOwner?: number;
  /** How long an expired task is remembered for the "Task has expired" message, ms. Default 600 000. */
  expiredMemoryMs?: number;
  /** Page size of `list` when none is given. Default 50. */
  pageSize?: number;
}

/**
 * A {@link TaskStore} in Redis. `client` runs commands (no offline queue wanted: a store call
 * fails at once while Redis is away); `listen(channel, fn)` subscribes (see ./redis.ts, whose
 * `RedisStores.tasks` is one of these).
 */
export class RedisTaskStore implements TaskStore {
  private readonly prefix: string;
  private readonly maxTtlMs: number;
  private readonly maxPerOwner: number;
  private readonly expiredMemoryMs: number;
  private readonly pageSize: number;
  private readonly listeners = new Set<(event: TaskEvent) => void>();
  private unlisten: (() => void) | undefined;

  constructor(
    private readonly client: Redis,
    private readonly listen: (channel: string, listener: (message: string) => void) => () => void,
    options: RedisTaskStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? 'mcp:';
    this.maxTtlMs = Math.max(1000, options.maxTtlMs ?? 86_400_000);
    this.maxPerOwner = Math.max(1, options.maxTasksPerOwner ?? 1000);
    this.expiredMemoryMs = Math.max(0, options.expiredMemoryMs ?? 600_000);
    this.pageSize = Math.max(1, options.pageSize ?? 50);
    client.defineCommand('mcpTaskUpdate', { numberOfKeys: 1, lua: UPDATE });
  }

  private key(owner: string, taskId: string): string {
    return `${this.prefix}t:${owner}:${taskId}`;
  }

  private get channel(): string {
    return `${this.prefix}tasks`;
  }

  async create(owner: string, init: TaskInit): Promise<Task> {
    const task: Task = newTask(init, Date.now());
    const keep = Math.max(1, Math.min(init.ttl ?? this.maxTtlMs, this.maxTtlMs));
    const seq = await this.client.incr(`${this.prefix}tseq`);
    const index = `${this.prefix}to:${owner}`;
    await this.client
      .multi()
      .hset(this.key(owner, task.taskId), 'task', JSON.stringify(task), 'seq', String(seq))
      .pexpire(this.key(owner, task.taskId), keep)
      .set(`${this.prefix}tx:${owner}:${task.taskId}`, '1', 'PX', keep + this.expiredMemoryMs)
      .zadd(index, seq, task.taskId)
      .zremrangebyrank(index, 0, -this.maxPerOwner - 1)
      .pexpire(index, this.maxTtlMs)
      .publish(this.channel, JSON.stringify({ type: 'created', owner, task }))
      .exec();
    return task;
  }

  async get(owner: string, taskId: string): Promise<Task | undefined> {
    if (typeof taskId !== 'string') return undefined;
    const raw = await this.client.hget(this.key(owner, taskId), 'task');
    return raw === null ? undefined : (JSON.parse(raw) as Task);
  }

  async update(owner: string, taskId: string, update: TaskUpdate): Promise<Task> {
    const froms = STATUSES.filter((s) => canTransition(s, update.status));
    const mode = update.statusMessage === null ? 'drop' : update.statusMessage === undefined ? 'keep' : 'set';
    const outcome = isTerminal(update.status) && update.outcome ? JSON.stringify(update.outcome) : '';
    const r = await (
      this.client as Redis & { mcpTaskUpdate(...a: string[]): Promise<[number, string?]> }
    ).mcpTaskUpdate(
      this.key(owner, taskId),
      update.status,
      JSON.stringify(froms),
      mode,
      update.statusMessage ?? '',
      new Date().toISOString(),
      outcome,
      this.channel,
      owner,
    );
    if (r[0] === 0) throw new TaskNotFoundError(taskId, await this.expired(owner, taskId));
    if (r[0] === 2) throw new TaskTransitionError(taskId, r[1] as TaskStatus, update.status);
    return JSON.parse(r[1] as string) as Task;
  }

  async outcome(owner: string, taskId: string): Promise<TaskOutcome | undefined> {
    const [raw, out] = await this.client.hmget(this.key(owner, taskId), 'task', 'outcome');
    if (raw === null || out === null) return undefined;
    return isTerminal((JSON.parse(raw) as Task).status) ? (JSON.parse(out) as TaskOutcome) : undefined;
  }

  async list(owner: string, options: { cursor?: string; limit?: number } = {}): Promise<TaskPage> {
    let after = 0;
    if (options.cursor !== undefined) {
      const m = /^tasks:([1-9][0-9]*)$/.exec(Buffer.from(options.cursor, 'base64url').toString());
      if (!m) throw new InvalidCursorError(options.cursor);
      after = Number(m[1]);
    }
    const limit = Math.max(1, Math.floor(options.limit ?? this.pageSize));
    const index = `${this.prefix}to:${owner}`;
    const tasks: Task[] = [];
    let last = after;
    let more = false;
    let from = after;
    for (;;) {
      const flat = await this.client.zrangebyscore(index, `(${from}`, '+inf', 'WITHSCORES', 'LIMIT', 0, 100);
      if (flat.length === 0) break;
      const pairs: Array<[string, number]> = [];
      for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], Number(flat[i + 1])]);
      const raws = await Promise.all(pairs.map(([id]) => this.client.hget(this.key(owner, id), 'task')));
      const gone: string[] = [];
      for (let i = 0; i < pairs.length && !more; i++) {
        if (raws[i] === null) gone.push(pairs[i][0]);
        else if (tasks.length === limit) more = true;
        else {
          tasks.push(JSON.parse(raws[i] as string) as Task);
          last = pairs[i][1];
        }
      }
      // expired tasks leave the owner's index as they are met
      if (gone.length) await this.client.zrem(index, ...gone);
      if (more || pairs.length < 100) break;
      from = pairs[pairs.length - 1][1];
    }
    const page: TaskPage = { tasks };
    if (more) page.nextCursor = Buffer.from(`tasks:${last}`).toString('base64url');
    return page;
  }

  async delete(owner: string, taskId: string): Promise<boolean> {
    const task = await this.get(owner, taskId);
    if (!task) return false;
    const [[, n]] = (await this.client
      .multi()
      .del(this.key(owner, taskId))
      .zrem(`${this.prefix}to:${owner}`, taskId)
      .del(`${this.prefix}tx:${owner}:${taskId}`)
      .publish(this.channel, JSON.stringify({ type: 'deleted', owner, task }))
      .exec()) as [[null, number]];
    return n === 1;
  }

  async expired(owner: string, taskId: string): Promise<boolean> {
    if (typeof taskId !== 'string') return false;
    const [exists, remembered] = await Promise.all([
      this.client.exists(this.key(owner, taskId)),
      this.client.exists(`${this.prefix}tx:${owner}:${taskId}`),
    ]);
    return exists === 0 && remembered === 1;
  }

  subscribe(listener: (event: TaskEvent) => void): () => void {
    this.listeners.add(listener);
    this.unlisten ??= this.listen(this.channel, (text) => {
      let ev: TaskEvent;
      try {
        ev = JSON.parse(text) as TaskEvent;
      } catch {
        return;
      }
      for (const l of [...this.listeners]) l(ev);
    });
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.unlisten?.();
        this.unlisten = undefined;
      }
    };
  }
}
