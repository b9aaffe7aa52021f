/**
 * `mcpgen serve --http --redis <url>` where no Redis answers: a one-line message naming the URL and
 * exit 3 (as for a port in use), no stack trace; both eras (the session store and the listen bus).
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bin, root } from '../runtime/tasks/serve-process.js';

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

for (const rev of ['2025-11-25', 'draft']) {
  test(`serve --rev ${rev} --redis to a closed port: exit 3, one line, no stack`, async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, [bin, 'serve', '--rev', rev, '--http', '0', '--redis', url], { cwd: root, timeout: 60_000 }, (err, _out, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr })));
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, new RegExp(`^mcpgen serve: --redis: cannot reach Redis at ${url.replace(/[.]/g, '\\.')}`, 'm'));
    assert.not.match(r.stderr, /\n\s+at /, 'a stack trace');
    assert.not.match(r.stderr, /listening on/);
  });
}

test.run();
