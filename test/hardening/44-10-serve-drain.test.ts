/**
 * Issue 44, operations: `mcpgen serve --http` drains on SIGTERM. `/readyz` turns 503, no session
 * begins (a POST to /mcp without `Mcp-Session-Id`, a GET of /sse: 503 with `Retry-After` and
 * -32000, before the body is read, nothing run), requests of running sessions go on, and calls in
 * flight finish within `--shutdown-grace-ms` (longer than the 2-s default here), after which the
 * process exits 0. A grace that is no whole number is a usage error.
 */
import { execFile, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { healthEndpoints } from '../../cli/serve/http.js';
import { requestPath } from '../../runtime/transport/http/io/node.js';
import { bin, root, sendOnce, startHttpServeProcess } from '../runtime/tasks/serve-process.js';
import { TestSession } from '../scale/support.js';

type Obj = Record<string, unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('draining: /readyz 503, a request that would begin a session 503 with Retry-After, requests of a session pass', async () => {
  const health = healthEndpoints(undefined);
  let passed = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (health.route(requestPath(req.url), req, res)) return;
    passed++;
    res.writeHead(202).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    const json = { 'Content-Type': 'application/json' };
    assert.is((await sendOnce(`${base}/readyz`, 'GET')).status, 200);
    assert.is((await sendOnce(`${base}/mcp`, 'POST', json, init)).status, 202);
    health.drain();
    const ready = await sendOnce(`${base}/readyz`, 'GET');
    assert.is(ready.status, 503);
    assert.equal(JSON.parse(ready.body), { status: 'draining' });
    assert.is((await sendOnce(`${base}/healthz`, 'GET')).status, 200);
    for (const [method, path] of [
      ['POST', '/mcp'],
      ['GET', '/sse'],
    ]) {
      const r = await sendOnce(`${base}${path}`, method, json, method === 'POST' ? init : undefined);
      assert.is(r.status, 503, `${method} ${path}`);
      assert.is(r.headers['retry-after'], '1');
      assert.equal(JSON.parse(r.body), {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Service Unavailable: the server is shutting down' },
      });
    }
    assert.is(passed, 1, 'nothing that begins a session reached the endpoint');
    // a request of a running session (an answer to the server, a cancellation, a call) goes on
    const r = await sendOnce(`${base}/mcp`, 'POST', { ...json, 'Mcp-Session-Id': 's1' }, init);
    assert.is(r.status, 202);
    assert.is(passed, 2);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('serve --shutdown-grace-ms 30000: a 3-s call in flight at SIGTERM gets its result, then the process exits 0', async () => {
  const served = await startHttpServeProcess(['--rev', '2025-11-25', '--reply', 'sse', '--shutdown-grace-ms', '30000']);
  try {
    const s = new TestSession(served.url);
    await s.initialize();
    const call = s.request('tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 3 },
      _meta: { progressToken: 'p' },
    });
    // SIGTERM once the call reported progress: it is running, whatever the machine's load
    for (let i = 0; i < 600 && ![...s.inflight].some((ex) => ex.events.length > 1); i++) await sleep(50);
    const signalled = Date.now();
    served.proc.kill('SIGTERM');
    // a new session is refused: 503 (the listener stays open while draining)
    await sleep(200);
    const fresh = await fetch(served.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    }).then(
      (r) => r.status,
      () => 'refused',
    );
    assert.is(fresh, 503, 'a new session after SIGTERM');
    const ex = await call;
    const result = (ex.response as Obj).result as Obj;
    assert.ok(result, JSON.stringify(ex.response));
    assert.match(String(((result.content as Obj[])[0] as Obj).text), /^Computed sum 1\.\.\d+ = \d+/);
    assert.ok(Date.now() - signalled > 2000, 'the call ran past the default grace of 2 s');
    assert.is(await served.exited, 0);
  } finally {
    served.proc.kill('SIGKILL');
  }
});

test('serve --shutdown-grace-ms that is no whole number: usage error, exit 2', async () => {
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [bin, 'serve', '--http', '0', '--shutdown-grace-ms', '2s'],
      { cwd: root, timeout: 60_000 },
      (err, _out, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
    ),
  );
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /--shutdown-grace-ms needs a whole number of at least 0, got 2s/);
});

test('serve --shutdown-grace-ms above 2^31-1 (a timer Node.js would fire after 1 ms): usage error, exit 2', async () => {
  for (const value of ['2147483648', '99999999999']) {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const proc = spawn(process.execPath, [bin, 'serve', '--http', '0', '--shutdown-grace-ms', value], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      proc.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        // (before the fix it serves: stop it, the assertion below fails)
        if (stderr.includes('listening on')) proc.kill('SIGKILL');
      });
      proc.once('exit', (code) => resolve({ code, stderr }));
    });
    assert.is(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      `--shutdown-grace-ms is at most 2147483647 ms (about 24.8 days: the longest timer Node.js keeps), got ${value}`,
    );
  }
});

test.run();
