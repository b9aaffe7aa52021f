/**
 * Issue 44, finding 7: Redis credentials never printed, and a refused password named as such.
 * `serve --redis 'redis://:password@host'` printed the password in its errors, and a wrong
 * password was reported as "Connection is closed". Against a real `redis-server
 * --requirepass`: a wrong password (and none) is a RedisAuthenticationError that names
 * authentication and not the password, from the runtime and from `mcpgen serve` (exit 3); the
 * right one connects; a bad URL's refusal hides the password too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRedisStores, RedisAuthenticationError, redactRedisUrl } from '../../runtime/stores/redis/redis.js';
import { type RedisServer, startRedis } from '../scale/support.js';
import { bin, root, startHttpServeProcess } from '../runtime/tasks/serve-process.js';

const password = 'pw-4f1c9e-not-to-be-printed';
let redis: RedisServer;
let port: number;

test.before(async () => {
  redis = await startRedis({ password });
  port = redis.port;
});
test.after(() => redis?.stop());

const url = (pw?: string) => `redis://${pw === undefined ? '' : `:${encodeURIComponent(pw)}@`}127.0.0.1:${port}/0`;

test('redactRedisUrl hides the password and the user name', () => {
  assert.is(redactRedisUrl('redis://:secret@h:6379/0'), 'redis://:***@h:6379/0');
  assert.is(redactRedisUrl('rediss://user:secret@h/1'), 'rediss://***:***@h/1');
  assert.is(redactRedisUrl('redis://h:6379'), 'redis://h:6379');
  assert.is(redactRedisUrl('not a url:secret@h'), '***@h');
});

test('a wrong password, or none, is named an authentication failure, without the password', async () => {
  for (const given of [`${password}-wrong`, undefined]) {
    try {
      const stores = await connectRedisStores(url(given), { connectTimeoutMs: 3000 });
      await stores.close();
      assert.unreachable(`connected with ${given === undefined ? 'no' : 'a wrong'} password`);
    } catch (e) {
      assert.instance(e, RedisAuthenticationError, String(e));
      const message = (e as Error).message;
      // none given: said so (it read "refused the credentials" though none were sent)
      assert.match(
        message,
        given === undefined
          ? /requires a password and none was given: NOAUTH/
          : /refused the credentials: WRONGPASS|invalid/i,
      );
      assert.not.match(message, /pw-4f1c9e/);
      assert.not.match(message, /Connection is closed/);
    }
  }
});

test('the right password connects', async () => {
  const stores = await connectRedisStores(url(password));
  assert.is(await stores.client.ping(), 'PONG');
  await stores.close();
});

const serve = (...args: string[]) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [bin, 'serve', '--rev', '2025-11-25', '--http', '0', ...args],
      { cwd: root, timeout: 60_000 },
      (e, _out, stderr) => resolve({ code: e ? ((e as { code?: number }).code ?? null) : 0, stderr }),
    );
  });

test('mcpgen serve: a wrong password exits 3 naming authentication; a bad URL is refused without its password', async () => {
  const wrong = await serve('--redis', url(`${password}-wrong`));
  assert.is(wrong.code, 3, wrong.stderr);
  assert.match(wrong.stderr, /refused the credentials/);
  assert.not.match(wrong.stderr, /pw-4f1c9e/);
  const bad = await serve('--redis', `redis://:${password}@127.0.0.1:${port}/x`);
  assert.is(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--redis must be/);
  assert.not.match(bad.stderr, /pw-4f1c9e/);
});

test('--redis-password-file: the password read from a file (not on the command line, where ps shows it)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-redis-pw-'));
  try {
    const right = join(dir, 'right');
    const wrong = join(dir, 'wrong');
    writeFileSync(right, `${password}\n`);
    writeFileSync(wrong, `${password}-wrong\n`);
    // the right one: serve starts, its command line holds no password
    const served = await startHttpServeProcess([
      '--rev',
      '2025-11-25',
      '--redis',
      url(),
      '--redis-password-file',
      right,
    ]);
    try {
      assert.not.match(served.proc.spawnargs.join(' '), /pw-4f1c9e/);
    } finally {
      await served.stop();
    }
    const refused = await serve('--redis', url(), '--redis-password-file', wrong);
    assert.is(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /refused the credentials/);
    assert.not.match(refused.stderr, /pw-4f1c9e/);
    const twice = await serve('--redis', url(password), '--redis-password-file', right);
    assert.is(twice.code, 2, twice.stderr);
    assert.match(twice.stderr, /--redis-password-file: the --redis URL has a password already/);
    assert.not.match(twice.stderr, /pw-4f1c9e/);
    const missing = await serve('--redis', url(), '--redis-password-file', join(dir, 'none'));
    assert.is(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /--redis-password-file: cannot read /);
    const alone = await serve('--redis-password-file', right);
    assert.is(alone.code, 2, alone.stderr);
    assert.match(alone.stderr, /--redis-password-file needs --redis/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
