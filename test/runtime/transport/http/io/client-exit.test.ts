/**
 * A Node process whose 2025-11-25 client (node:http form) is done exits on its own: the
 * standalone GET stream, open and answered, holds its socket unref'd (test/fixtures/
 * http-client-exit.ts connects, waits for that stream to open, calls a tool, and returns
 * without closing anything). The server runs in this process, the client in a child; the child
 * is given 20 s, and killed past them (it used to stay alive until killed). So too when the
 * GET's response head never comes (the socket is unref'd from the start; it was only once answered). The fetch form's
 * connections are undici's: that form needs `await client.close()` (docs/guide/http.md).
 */
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDualEra, startDualEraBehind } from '../stateless/helpers.js';

/** Runs the fixture client against `url` (with `extra` arguments); its output and exit code (or that it was killed past 20 s). */
async function child(url: string, ...extra: string[]): Promise<{ out: string; code: number | string | null }> {
  const c = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/http-client-exit.ts', url, 'node', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  c.stdout.on('data', (d) => (out += d));
  c.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | string | null>((resolve) => {
    const bound = setTimeout(() => {
      c.kill();
      resolve('still running after 20 s: killed');
    }, 20_000);
    c.on('exit', (x) => {
      clearTimeout(bound);
      resolve(x);
    });
  });
  return { out: out.trim(), code };
}

test('node:http: a client done with its work, its GET stream open, lets the process exit', async () => {
  const s = await startDualEra();
  try {
    const { out, code } = await child(s.url);
    assert.is(out, 'done true', 'its GET stream opened and the call was answered');
    assert.is(code, 0);
  } finally {
    await s.close();
  }
});

test('node:http: a client done with its work, its GET never answered (no response head), lets the process exit', async () => {
  const s = await startDualEraBehind((_method, req) => req.method === 'GET');
  try {
    const { out, code } = await child(s.url, 'no-wait');
    assert.is(out, 'done unknown', 'the call was answered');
    assert.is(code, 0);
  } finally {
    await s.close();
  }
});

test.run();
