/**
 * Issue 44, a new-user trial: during a Redis restart every store operation that failed was
 * logged in ioredis's words ("http: session store: Stream isn't writeable and
 * enableOfflineQueue options is false", six lines for six requests). Now `serve` says once per
 * outage that Redis is unavailable, in its own words, and that it is connected again. The real
 * CLI, a real redis-server stopped and started again on its port.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sendOnce } from '../runtime/tasks/serve-process.js';
import { startRedis, startRedisServe, TestSession, V } from '../scale/support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const IOREDIS_WORDS = /Stream isn't writeable|enableOfflineQueue|Connection is closed/;

test('a Redis restart: one "unavailable" line and one "connected again", no ioredis wording to the log or the client', async () => {
  const redis = await startRedis();
  const served = await startRedisServe(redis.url);
  let stderr = '';
  served.proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  try {
    const s = new TestSession(served.url);
    await s.initialize();
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': V,
      'Mcp-Session-Id': s.sessionId as string,
    };
    const post = (body: object) =>
      sendOnce(served.url, 'POST', headers, JSON.stringify(body)).then((r) => r.body, String);
    const calls = [1, 2, 3].map((id) =>
      post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 2 } } }),
    );
    await sleep(300);
    await redis.stop();
    const during: string[] = [];
    for (let id = 10; id < 16; id++) during.push(await post({ jsonrpc: '2.0', id, method: 'ping' }));
    await redis.start();
    for (let i = 0; i < 400 && !stderr.includes('connected again'); i++) await sleep(50);
    for (const body of [...during, ...(await Promise.all(calls))]) assert.not.match(body, IOREDIS_WORDS, body);
    assert.ok(
      during.every((b) => b.includes('the session store cannot be reached')),
      during.join('\n'),
    );
    const lines = stderr.split('\n');
    // one line for the outage: ours when a store operation saw it first, else the connection's
    // own error named (ioredis may report the refused reconnection first)
    const outage = lines.filter((l) => / is (unavailable|unreachable)/.test(l));
    assert.is(outage.length, 1, stderr);
    assert.match(
      outage[0],
      new RegExp(
        `^warn: redis: Redis at 127\\.0\\.0\\.1:${redis.port} is (unavailable: not connected \\(connecting again\\)|unreachable: connection refused)$`,
      ),
    );
    assert.is(lines.filter((l) => /connected again/.test(l)).length, 1, stderr);
    assert.not.match(stderr, IOREDIS_WORDS, stderr);
  } finally {
    await served.stop();
    await redis.stop();
  }
});

test.run();
