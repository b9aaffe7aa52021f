/**
 * Issue 44, new-user trials: `serve --redis rediss://…` pointed at a plain redis-server took
 * ~9.5 s to exit (ioredis's 5-s connect timeout, then a 3-s second look), and a Redis that
 * accepts TCP but never answers took as long and was reported as "Connection is closed.". Now
 * serve probes first, within 2 s for the whole (TCP, TLS handshake, an answer to PING), and
 * names what failed: exit 3. Against a real redis-server and a real listener that never answers.
 */
import { execFile } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bin, root } from '../runtime/tasks/serve-process.js';
import { type RedisServer, startRedis } from '../scale/support.js';

let redis: RedisServer;
test.before(async () => {
  redis = await startRedis();
});
test.after(() => redis?.stop());

/** `mcpgen serve --http 0 --redis <url>`: exit code (-1: killed after 60 s), stderr, and the run's wall time (printed, not asserted). */
function serveRedis(url: string): Promise<{ code: number; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [bin, 'serve', '--http', '0', '--redis', url],
      { cwd: root, timeout: 60_000 },
      (err, _o, stderr) =>
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : -1) : 0,
          stderr,
          ms: Math.round(performance.now() - started),
        }),
    ),
  );
}

test('rediss:// to a plain redis-server: exit 3 naming the TLS handshake that got no answer within 2000 ms', async () => {
  const r = await serveRedis(`rediss://127.0.0.1:${redis.port}/0`);
  console.log(`  rediss:// to plain Redis: exit ${r.code} after ${r.ms} ms (process start included)`);
  assert.is(r.code, 3, r.stderr);
  assert.ok(
    r.stderr.includes(
      `TLS with Redis at 127.0.0.1:${redis.port} failed (rediss:// to a server without TLS, or redis:// to one with it?): TLS handshake failed: no answer within 2000 ms (not a TLS server?)`,
    ),
    r.stderr,
  );
  assert.not.match(r.stderr, /Connection is closed/);
});

test('a Redis that accepts the connection and never answers: exit 3 naming the PING without answer within 2000 ms', async () => {
  const held = new Set<Socket>();
  const silent = createServer((s) => {
    held.add(s);
    s.on('close', () => held.delete(s));
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const port = (silent.address() as AddressInfo).port;
  try {
    for (const scheme of ['redis', 'rediss']) {
      const r = await serveRedis(`${scheme}://:pw-not-shown@127.0.0.1:${port}/0`);
      console.log(`  ${scheme}:// to a silent listener: exit ${r.code} after ${r.ms} ms (process start included)`);
      assert.is(r.code, 3, r.stderr);
      assert.match(
        r.stderr,
        scheme === 'redis'
          ? `Redis at 127.0.0.1:${port} accepted the connection but gave no answer to PING within 2000 ms (timed out)`
          : 'TLS handshake failed: no answer within 2000 ms (not a TLS server?)',
        r.stderr,
      );
      assert.not.match(r.stderr, /Connection is closed|pw-not-shown/);
    }
  } finally {
    for (const s of held) s.destroy();
    silent.close();
  }
});

test.run();
