/**
 * Issue 44: `serve --redis` names a Redis failure after start-up. When Redis starts requiring a
 * password while the server runs (`CONFIG SET requirepass`, `CLIENT KILL TYPE normal`), stderr
 * and `/readyz` said only "Stream isn't writeable…" and ioredis's text once a second. Now the
 * state change is logged once, named (authentication refused, with host:port and never a
 * password), `/readyz` is 503 with a generic reason (no host:port, no cause: it needs no token),
 * and the recovery is logged once too. Against a
 * real `redis-server`.
 */
import { execFile } from 'node:child_process';
import { Redis } from 'ioredis';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { redisFailure } from '../../cli/serve/redis.js';
import { bin, root, startHttpServeProcess } from '../runtime/tasks/serve-process.js';
import { freePort, type RedisServer, startRedis } from '../scale/support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const password = 'pw-7e2d-not-to-be-printed';
let redis: RedisServer;
let port: number;

test.before(async () => {
  redis = await startRedis({ args: ['--enable-debug-command', 'local'] });
  port = redis.port;
});
test.after(() => redis?.stop());

test('redisFailure names refused credentials, a refused connection, an unknown host, a TLS mismatch', () => {
  const where = 'h:6379';
  const named = (message: string, code?: string) => redisFailure(Object.assign(new Error(message), { code }), where);
  assert.match(
    named('WRONGPASS invalid username-password pair or user is disabled.'),
    /^authentication refused by Redis at h:6379/,
  );
  assert.match(named('Ready check failed: NOAUTH Authentication required.'), /^authentication refused/);
  assert.is(
    named('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED'),
    'Redis at h:6379 is unreachable: connection refused',
  );
  assert.match(
    named('getaddrinfo ENOTFOUND h', 'ENOTFOUND'),
    /unreachable: the host name does not resolve \(ENOTFOUND\)/,
  );
  assert.match(
    named('SSL routines::wrong version number', 'ERR_SSL_WRONG_VERSION_NUMBER'),
    /^TLS with Redis at h:6379 failed/,
  );
});

test('Redis starts requiring a password while serve runs: named once on stderr, /readyz 503 without host or cause, recovery logged once', async () => {
  const served = await startHttpServeProcess(['--redis', `redis://127.0.0.1:${port}/0`]);
  let stderr = '';
  served.proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const admin = new Redis(port, '127.0.0.1', { retryStrategy: () => null });
  admin.on('error', () => undefined);
  const readyz = served.url.replace(/\/mcp$/, '/readyz');
  try {
    assert.is((await fetch(readyz)).status, 200);
    await admin.config('SET', 'requirepass', password);
    await admin.call('CLIENT', 'KILL', 'TYPE', 'normal').catch(() => undefined);
    let ready = await fetch(readyz);
    for (let i = 0; i < 200 && (ready.status === 200 || !stderr.includes('authentication refused')); i++) {
      await sleep(50);
      ready = await fetch(readyz);
    }
    assert.is(ready.status, 503);
    assert.equal(await ready.json(), { status: 'unavailable', reason: 'redis unavailable' }, stderr);
    assert.match(stderr, /redis: authentication refused by Redis at 127\.0\.0\.1:\d+/);
    // some reconnection attempts (one every second at most) pass
    await sleep(3000);
    const named = stderr.split('\n').filter((l) => l.includes('authentication refused'));
    assert.is(named.length, 1, stderr);
    assert.not.match(stderr, /Stream isn't writeable|max retries per request/, stderr);
    const fixer = new Redis(port, '127.0.0.1', { password, retryStrategy: () => null });
    fixer.on('error', () => undefined);
    await fixer.config('SET', 'requirepass', '');
    fixer.disconnect();
    let back = await fetch(readyz);
    for (let i = 0; i < 200 && back.status !== 200; i++) {
      await sleep(50);
      back = await fetch(readyz);
    }
    assert.is(back.status, 200);
    for (let i = 0; i < 100 && !stderr.includes('connected again'); i++) await sleep(50);
    assert.is(stderr.split('\n').filter((l) => l.includes('connected again')).length, 1, stderr);
    assert.not.ok(stderr.includes(password));
  } finally {
    admin.disconnect();
    await served.stop();
  }
});

test('at start-up: a refused connection and rediss:// to a plain Redis are named, exit 3', async () => {
  const closed = await freePort();
  for (const [url, named] of [
    [`redis://127.0.0.1:${closed}/0`, `Redis at 127.0.0.1:${closed} is unreachable: connection refused`],
    [`rediss://127.0.0.1:${port}/0`, `TLS with Redis at 127.0.0.1:${port} failed`],
  ] as const) {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [bin, 'serve', '--http', '0', '--redis', url],
        { cwd: root, timeout: 60_000 },
        (err, _o, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
      ),
    );
    assert.is(r.code, 3, r.stderr);
    assert.ok(r.stderr.includes(named), r.stderr);
    assert.not.match(r.stderr, /Connection is closed/);
  }
});

test('/readyz while Redis stalls (DEBUG SLEEP): 503 within 1 s (not the 5-s command timeout), the unanswered PING named once on stderr; the stall named once, and its end', async () => {
  const served = await startHttpServeProcess(['--redis', `redis://127.0.0.1:${port}/0`]);
  let stderr = '';
  served.proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const admin = new Redis(port, '127.0.0.1', { retryStrategy: () => null, commandTimeout: 60_000 });
  admin.on('error', () => undefined);
  const readyz = served.url.replace(/\/mcp$/, '/readyz');
  try {
    assert.is((await fetch(readyz)).status, 200);
    await admin.ping();
    const sleeping = admin.call('DEBUG', 'SLEEP', '8');
    void sleeping.catch(() => undefined);
    await sleep(100);
    const r = await fetch(readyz);
    assert.is(r.status, 503);
    assert.equal(await r.json(), { status: 'unavailable', reason: 'redis unavailable' });
    // the cause goes to stderr, once however many probes
    assert.is((await fetch(readyz)).status, 503);
    const cause = (): string[] =>
      stderr.split('\n').filter((l) => l.endsWith('redis: /readyz: no answer to PING within 1000 ms'));
    for (let i = 0; i < 100 && cause().length === 0; i++) await sleep(20);
    assert.is(cause().length, 1, stderr);
    await sleeping;
    // 8 s without an answer: the heartbeat (every livenessMs / 3) timed out more than once
    for (let i = 0; i < 200 && !stderr.includes('answers again'); i++) await sleep(50);
    const lines = stderr.split('\n').filter((l) => l.includes('redis'));
    assert.equal(
      lines.filter((l) => /stalled|answers again|timed out/.test(l)).map((l) => l.replace(/^.*redis: /, '')),
      [
        `Redis at 127.0.0.1:${port} gives no answer within the command timeout (stalled)`,
        `Redis at 127.0.0.1:${port} answers again`,
      ],
      stderr,
    );
  } finally {
    admin.disconnect();
    await served.stop();
  }
});

test.run();
