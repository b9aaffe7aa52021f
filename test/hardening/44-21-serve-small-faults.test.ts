/**
 * Issue 44, small `serve` faults of the new-user trials: `--stdio --auth-jwks` named --auth, a
 * flag not given; `--allowed-host a:08` was taken though the Host check compares text (a client
 * sends `a:8`); an empty `--redis-password-file` meant no password, silently; a switch given twice
 * was taken while a flag with a value given twice is refused; a draining endpoint refused new
 * sessions but opened new GET streams (cut by the close moments later). The real CLI over real
 * sockets.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bin, root, sendOnce, startHttpServeProcess } from '../runtime/tasks/serve-process.js';
import { TestSession, V } from '../scale/support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `mcpgen serve <args>`: its exit code (-1: still running after 60 s, then killed) and stderr. */
function serve(...args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [bin, 'serve', ...args], { cwd: root, timeout: 60_000 }, (err, _out, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
    ),
  );
}

test('--stdio with --auth-jwks or --auth-scope: the usage error names the flags given', async () => {
  const jwks = await serve('--stdio', '--auth-jwks', 'https://keys.example/jwks');
  assert.is(jwks.code, 2, jwks.stderr);
  assert.ok(jwks.stderr.startsWith('mcpgen serve: --auth-jwks needs --http '), jwks.stderr);
  const two = await serve('--stdio', '--auth-scope', 'a', '--auth', 'https://auth.example');
  assert.is(two.code, 2, two.stderr);
  assert.ok(two.stderr.startsWith('mcpgen serve: --auth and --auth-scope need --http '), two.stderr);
});

test('--allowed-host with a port written with a leading zero: exit 2 (a client writes the port without)', async () => {
  for (const host of ['a.example:08', 'a.example:0443']) {
    const r = await serve('--http', '0', '--allowed-host', host);
    assert.is(r.code, 2, `${host}: ${r.stderr}`);
    assert.match(r.stderr, /--allowed-host needs .*: a port is written without leading zeros \((8|443)\), not "0/);
  }
});

test('an empty --redis-password-file: exit 2 naming the file (it meant no password)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-pw-'));
  try {
    for (const text of ['', '\n']) {
      const file = join(dir, 'password');
      writeFileSync(file, text);
      const r = await serve('--http', '0', '--redis', 'redis://127.0.0.1:1', '--redis-password-file', file);
      assert.is(r.code, 2, r.stderr);
      assert.ok(r.stderr.startsWith(`mcpgen serve: --redis-password-file: ${file} is empty`), r.stderr);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a switch given twice is a usage error, as a flag with a value is', async () => {
  const r = await serve('--stdio', '--stdio');
  assert.is(r.code, 2, r.stderr);
  assert.ok(r.stderr.startsWith('mcpgen serve: --stdio is given more than once; it is a switch'), r.stderr);
});

test('draining: a new GET stream gets 503 with Retry-After (not run); a GET resuming a stream does not', async () => {
  const served = await startHttpServeProcess(['--rev', V, '--drain-min-ms', '3000']);
  let stderr = '';
  served.proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  try {
    const s = new TestSession(served.url);
    await s.initialize();
    const headers = {
      Accept: 'text/event-stream',
      'MCP-Protocol-Version': V,
      'Mcp-Session-Id': s.sessionId as string,
    };
    served.proc.kill('SIGTERM');
    for (let i = 0; i < 1200 && !stderr.includes('still listening'); i++) await sleep(25);
    assert.match(stderr, /still listening for 3000 ms/);
    const stream = await sendOnce(served.url, 'GET', headers);
    assert.is(stream.status, 503, stream.body);
    assert.is(stream.headers['retry-after'], '1');
    assert.is(stream.headers.connection, 'close');
    assert.is(JSON.parse(stream.body).error.code, -32000);
    // (an event id of no stream here: answered by the endpoint, not refused by the drain)
    const resume = await sendOnce(served.url, 'GET', { ...headers, 'Last-Event-ID': 'nope' });
    assert.is.not(resume.status, 503, resume.body);
    assert.is(await served.exited, 0);
  } finally {
    served.proc.kill('SIGKILL');
  }
});

test.run();
