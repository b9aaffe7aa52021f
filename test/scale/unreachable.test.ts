/**
 * `mcpgen serve --http --redis <url>` where no Redis answers: a one-line message naming its host and port once, and
 * exit 3 (as for a port in use), no stack trace; both eras (the session store and the listen bus).
 * A database the Redis does not have is exit 3 too (not database 0 instead), a path that is no
 * database number, or a query string, exit 2 (usage).
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bin, root } from '../runtime/tasks/serve-process.js';
import { startRedis } from './support.js';

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** `mcpgen serve --http 0 --rev <rev> --redis <url>`: its exit code and stderr. */
const serve = (rev: string, url: string) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [bin, 'serve', '--rev', rev, '--http', '0', '--redis', url],
      { cwd: root, timeout: 60_000 },
      (err, _out, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
    ),
  );

test('serve --redis with a database Redis does not have: exit 3 naming it; a path that is no database number: exit 2', async () => {
  const redis = await startRedis();
  try {
    for (const rev of ['2025-11-25', 'draft']) {
      const r = await serve(rev, `${redis.url}/99`);
      assert.is(r.code, 3, r.stderr);
      assert.match(r.stderr, /^mcpgen serve: --redis: Redis at redis:\/\/\S+\/99 has no database 99/m);
      assert.not.match(r.stderr, /\n\s+at /, 'a stack trace');
      for (const path of ['/abc', '/1/2', '/-1', '?db=99', '/?db=abc', '/7?keyPrefix=zz:']) {
        const bad = await serve(rev, `${redis.url}${path}`);
        assert.is(bad.code, 2, `${path}: ${bad.stderr}`);
        assert.match(
          bad.stderr,
          /--redis must be a redis:\/\/ or rediss:\/\/ URL, its path a database number if any, no query/,
        );
      }
    }
  } finally {
    await redis.stop();
  }
});

for (const rev of ['2025-11-25', 'draft']) {
  test(`serve --rev ${rev} --redis to a closed port: exit 3, one line, no stack`, async () => {
    const where = `127.0.0.1:${await closedPort()}`;
    const url = `redis://${where}`;
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [bin, 'serve', '--rev', rev, '--http', '0', '--redis', url],
        { cwd: root, timeout: 60_000 },
        (err, _out, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
      ),
    );
    assert.is(r.code, 3, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `^mcpgen serve: --redis: Redis at ${where.replace(/[.]/g, '\\.')} is unreachable: connection refused$`,
        'm',
      ),
    );
    assert.not.match(r.stderr, /\n\s+at /, 'a stack trace');
    assert.not.match(r.stderr, /listening on/);
  });
}

test.run();
