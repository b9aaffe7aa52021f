/**
 * Issue 44, `serve --http` draining with nothing in flight, found by a new-user trial: an idle
 * process stopped listening at once on SIGTERM, so a load balancer still sending during its
 * deregistration window got connection refused (not the 503 with Retry-After a draining process
 * answers), and never saw `/readyz` turn 503. `--drain-min-ms` keeps the drain, and the
 * listener, at least that long. The real CLI over real sockets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sendOnce, startHttpServeProcess } from '../runtime/tasks/serve-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
});

test('--drain-min-ms: an idle process keeps listening after SIGTERM, /readyz 503 and new work 503 + Retry-After, then exits 0', async () => {
  const served = await startHttpServeProcess(['--rev', '2025-11-25', '--drain-min-ms', '3000']);
  let stderr = '';
  served.proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  try {
    served.proc.kill('SIGTERM');
    for (let i = 0; i < 1200 && !stderr.includes('still listening'); i++) await sleep(25);
    assert.match(stderr, /mcpgen serve: shutting down; still listening for 3000 ms \(--drain-min-ms\)/);
    const ready = await sendOnce(served.url.replace(/\/mcp$/, '/readyz'), 'GET');
    assert.is(ready.status, 503, ready.body);
    assert.equal(JSON.parse(ready.body), { status: 'draining' });
    const work = await sendOnce(
      served.url,
      'POST',
      { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      initialize,
    );
    assert.is(work.status, 503, work.body);
    assert.ok(work.headers['retry-after'], 'Retry-After');
    assert.is(work.headers.connection, 'close');
    assert.is(await served.exited, 0);
  } finally {
    served.proc.kill('SIGKILL');
  }
});

test('--drain-min-ms takes a whole number of ms up to 2^31 - 1 (exit 2 naming it otherwise)', async () => {
  for (const bad of ['-1', '1.5', 'soon', String(2 ** 31)]) {
    const r = await startHttpServeProcess(['--drain-min-ms', bad]).then(
      async (s) => {
        await s.stop();
        return 'started';
      },
      (e: Error) => e.message,
    );
    assert.match(r, /^serve exited 2 .*--drain-min-ms/s, `${bad}: ${r}`);
  }
});

test.run();
