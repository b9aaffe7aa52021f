/**
 * The wait for a `serve --http` process's URL (test/runtime/tasks/serve-process.ts) follows the
 * process: it ends when the URL is printed, however late, or at once when the process exits
 * without one; a process that does neither within the bound is killed, never left running.
 */
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitForUrl } from './serve-process.js';

/** A node process running `code`, its stderr piped, and its exit. */
function child(code: string) {
  const proc = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  return { proc, exited };
}

test('the URL printed after a slow start (a build first) is the answer', async () => {
  const { proc, exited } = child(
    "process.stderr.write('building\\n'); setTimeout(() => { process.stderr.write('listening on http://127.0.0.1:1234/mcp\\n'); setTimeout(() => {}, 60000); }, 1500);",
  );
  try {
    assert.is(await waitForUrl(proc, exited, 60_000), 'http://127.0.0.1:1234/mcp');
  } finally {
    proc.kill('SIGKILL');
    await exited;
  }
});

test('a process that exits without a URL fails the wait at once, with its code and stderr', async () => {
  const { proc, exited } = child("process.stderr.write('go build failed: x.go:1\\n'); process.exit(3);");
  const t0 = performance.now();
  const e = await waitForUrl(proc, exited, 60_000).then(
    () => undefined,
    (x: Error) => x,
  );
  assert.ok(e, 'rejected');
  assert.match(e!.message, /^serve exited 3 after \d+ ms without a URL: go build failed: x\.go:1/);
  assert.ok(performance.now() - t0 < 30_000, 'not held to the bound');
});

test('a process that neither prints a URL nor exits within the bound is killed, and the wait fails naming the bound', async () => {
  const { proc, exited } = child("process.stderr.write('starting\\n'); setInterval(() => {}, 1000);");
  const e = await waitForUrl(proc, exited, 1_000).then(
    () => undefined,
    (x: Error) => x,
  );
  assert.match(
    e?.message ?? '',
    /^serve --http did not print its URL within 1000 ms \(still running: killed\): starting/,
  );
  const ended = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 10_000))]);
  assert.ok(ended, 'the process is not left running');
  assert.is(proc.signalCode, 'SIGKILL');
});

test.run();
