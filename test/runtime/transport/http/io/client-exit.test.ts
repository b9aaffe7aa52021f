/**
 * A Node process whose 2025-11-25 client (node:http form) is done exits on its own: the
 * standalone GET stream, open and answered, holds its socket unref'd (test/fixtures/
 * http-client-exit.ts connects, waits for that stream to open, calls a tool, and returns
 * without closing anything). The server runs in this process, the client in a child; the child
 * is given 20 s, and killed past them (it used to stay alive until killed). The fetch form's
 * connections are undici's: that form needs `await client.close()` (docs/guide/http.md).
 */
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDualEra } from '../stateless/helpers.js';

test('node:http: a client done with its work, its GET stream open, lets the process exit', async () => {
  const s = await startDualEra();
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/http-client-exit.ts', s.url, 'node'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | string | null>((resolve) => {
      const bound = setTimeout(() => {
        child.kill();
        resolve('still running after 20 s: killed');
      }, 20_000);
      child.on('exit', (c) => {
        clearTimeout(bound);
        resolve(c);
      });
    });
    assert.is(out.trim(), 'done true', 'its GET stream opened and the call was answered');
    assert.is(code, 0);
  } finally {
    await s.close();
  }
});

test.run();
