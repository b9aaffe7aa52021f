/**
 * The endpoint of the issue-44 Redis stall tests (44-9-*): `serveHttp` (the endpoint of
 * `mcpgen serve --http --redis`) at revision {@link V} over a real redis-server, with a `steps`
 * tool whose progress and result go through the Redis event store.
 */
import type { Test } from 'uvu';
import { loadRevision } from '../../cli/revisions.js';
import { serveHttp, type HttpServe } from '../../cli/serve/http.js';
import type { ServerFeatures } from '../../runtime/features/index.js';
import { connectRedisStores, type RedisStores } from '../../runtime/stores/redis/redis.js';
import { startRedis, V, type RedisServer } from '../scale/support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `steps`: `n` progress notifications `ms` apart, then a result naming `key`. */
export const steps = (f: ServerFeatures): void => {
  f.tool<{ key: string; n: number; ms: number }>({
    name: 'steps',
    description: 'n progress notifications ms apart, then a result naming key',
    inputSchema: {
      type: 'object',
      properties: { key: { type: 'string' }, n: { type: 'integer' }, ms: { type: 'integer' } },
      required: ['key', 'n', 'ms'],
    },
    handler: async (a, ctx) => {
      for (let i = 1; i <= a.n; i++) {
        await ctx.sendProgress(i, a.n);
        await sleep(a.ms);
      }
      return { content: [{ type: 'text', text: `done ${a.key}` }] };
    },
  });
};

export interface StepsServe {
  redis: RedisServer;
  stores: RedisStores;
  served: HttpServe;
}

/**
 * Before the tests of `suite`: a redis-server, Redis stores (keys prefixed `prefix` plus the time,
 * commands failing after `commandTimeoutMs` ms) and `serveHttp` on a free port with {@link steps}
 * and those stores as sessions, bus and events. After them the redis-server is continued (if
 * paused) and all is closed. The call returns them (from the first test on); it throws before.
 */
export function suiteStepsServe(suite: Test, prefix: string, commandTimeoutMs: number): () => StepsServe {
  let redis: RedisServer | undefined;
  let stores: RedisStores | undefined;
  let served: HttpServe | undefined;
  suite.before(async () => {
    redis = await startRedis();
    stores = await connectRedisStores(redis.url, { prefix: `${prefix}${Date.now()}:`, commandTimeoutMs });
    served = await serveHttp(await loadRevision(V), {
      port: 0,
      shared: { sessions: stores.sessions, bus: stores.bus, events: stores.events },
      extend: steps,
      logger: { warn: () => undefined },
    });
  });
  suite.after(async () => {
    redis?.pause(false);
    await served?.close();
    await stores?.close();
    await redis?.stop();
  });
  return () => {
    if (!redis || !stores || !served) throw new Error('suiteStepsServe: no endpoint before the first test');
    return { redis, stores, served };
  };
}
