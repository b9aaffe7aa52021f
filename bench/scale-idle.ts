/**
 * Child of bench/scale.ts (run with `--expose-gc`): serves the reference server in process with
 * the memory or the Redis stores, opens IDLE sessions through real HTTP, and prints one JSON line
 * `{ heapPerSession, redisPerSession? }` (bytes; V8 heap used after full collections, growth
 * over the baseline, divided by the sessions; Redis: `MEMORY USAGE` of a session's record).
 * Arguments: `memory|redis <redis-url> <sessions>`.
 */
import { loadRevision } from '../cli/revisions.js';
import { serveHttp } from '../cli/serve/http.js';
import { connectRedisStores } from '../runtime/stores/redis/redis.js';
import { TestSession } from '../test/scale/support.js';

const [store, url, count] = process.argv.slice(2);
const n = Number(count);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const heap = (): number => {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
};
const stores = store === 'redis' ? await connectRedisStores(url, { prefix: `idle${process.pid}:` }) : undefined;
const served = await serveHttp(await loadRevision('2025-11-25'), {
  port: 0,
  ...(stores ? { shared: { sessions: stores.sessions, bus: stores.bus, events: stores.events } } : {}),
});
const open = async (k: number): Promise<string[]> => {
  const ids: string[] = [];
  for (let i = 0; i < k; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, k - i) }, async () => {
        const s = new TestSession(served.url);
        await s.initialize();
        return s.sessionId!;
      }),
    );
    ids.push(...batch);
  }
  return ids;
};
// warm: code compiled, caches filled; those sessions end again
const warm = await open(200);
for (const id of warm)
  await fetch(served.url, {
    method: 'DELETE',
    headers: { 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '2025-11-25' },
  }).then((r) => r.arrayBuffer());
await new Promise((r) => setTimeout(r, 200));
const before = heap();
const ids = await open(n);
await new Promise((r) => setTimeout(r, 200));
const after = heap();
let redisPerSession: number | undefined;
if (stores) {
  const sample = ids.slice(0, 20);
  let total = 0;
  for (const id of sample) total += Number(await stores.client.call('MEMORY', 'USAGE', `idle${process.pid}:s:${id}`));
  redisPerSession = total / sample.length;
}
console.log(JSON.stringify({ heapPerSession: (after - before) / n, redisPerSession, sessions: ids.length }));
await served.close();
await stores?.close();
process.exit(0);
