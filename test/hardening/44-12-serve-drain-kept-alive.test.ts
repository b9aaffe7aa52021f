import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { sendOnce, startHttpServeProcess } from '../runtime/tasks/serve-process.js';
import { TestSession } from '../scale/support.js';

type Obj = Record<string, unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request over a fresh connection: status, headers, body; or the connection error's code. */
const send = (...args: Parameters<typeof sendOnce>): Promise<Awaited<ReturnType<typeof sendOnce>> | string> =>
  sendOnce(...args).catch((e: NodeJS.ErrnoException) => e.code ?? e.message);

test('SIGTERM while 8 clients loop calls on kept-alive connections: none fails as "may have run"', async () => {
  const served = await startHttpServeProcess(['--rev', '2025-11-25']);
  const client = new Client({ clientInfo: { name: 'drain', version: '1' } });
  try {
    await client.connect(new HttpClientTransport({ url: served.url, retry: { maxRetries: 1, initialDelayMs: 50 } }));
    const tally: Record<string, number> = {};
    let ok = 0;
    let stop = false;
    const loop = async (): Promise<void> => {
      while (!stop) {
        try {
          await client.callTool({ name: 'echo', arguments: { text: 'x' } });
          ok++;
        } catch (e) {
          const k = (e as Error).name;
          tally[k] = (tally[k] ?? 0) + 1;
          await sleep(20);
        }
      }
    };
    const loops = Array.from({ length: 8 }, loop);
    for (let i = 0; i < 600 && ok < 40; i++) await sleep(50);
    assert.ok(ok >= 40, `calls before SIGTERM: ${ok}`);
    served.proc.kill('SIGTERM');
    assert.is(await served.exited, 0);
    const atExit = { ...tally };
    stop = true;
    await Promise.all(loops);
    assert.not.ok(atExit.ConnectionClosedError, `failures until the exit: ${JSON.stringify(atExit)}`);
  } finally {
    await client.close().catch(() => undefined);
    served.proc.kill('SIGKILL');
  }
});

test('draining with a call in flight: /readyz 503 draining, new work 503 with Connection: close, an answer goes on', async () => {
  const served = await startHttpServeProcess(['--rev', '2025-11-25', '--reply', 'sse', '--shutdown-grace-ms', '30000']);
  try {
    const s = new TestSession(served.url);
    await s.initialize();
    const call = s.request('tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 3 },
      _meta: { progressToken: 'p' },
    });
    void call.catch(() => undefined);
    for (let i = 0; i < 600 && ![...s.inflight].some((ex) => ex.events.length > 1); i++) await sleep(50);
    served.proc.kill('SIGTERM');
    const base = served.url.replace(/\/mcp$/, '');
    let ready = await send(`${base}/readyz`, 'GET');
    for (let i = 0; i < 200 && typeof ready !== 'string' && ready.status === 200; i++) {
      await sleep(25);
      ready = await send(`${base}/readyz`, 'GET');
    }
    assert.ok(typeof ready !== 'string', `/readyz while draining: ${ready}`);
    assert.is(ready.status, 503);
    assert.equal(JSON.parse(ready.body), { status: 'draining' });
    assert.is(ready.headers.connection, 'close');
    const json = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
    };
    const session = { ...json, 'Mcp-Session-Id': s.sessionId as string };
    const refused = [
      await send(
        served.url,
        'POST',
        json,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      ),
      await send(
        served.url,
        'POST',
        session,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'x' } },
        }),
      ),
    ];
    for (const r of refused) {
      assert.ok(typeof r !== 'string', String(r));
      assert.is(r.status, 503, r.body);
      assert.is(r.headers['retry-after'], '1');
      assert.is(r.headers.connection, 'close');
      assert.equal(JSON.parse(r.body), {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Service Unavailable: the server is shutting down' },
      });
    }
    // a notification of the running session (no id: nothing to refuse) reaches the endpoint
    const note = await send(
      served.url,
      'POST',
      session,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } }),
    );
    assert.ok(typeof note !== 'string', String(note));
    assert.is(note.status, 202, note.body);
    assert.is(note.headers.connection, 'close');
    const ex = await call;
    const result = (ex.response as Obj).result as Obj;
    assert.ok(result, JSON.stringify(ex.response));
    assert.is(await served.exited, 0);
  } finally {
    served.proc.kill('SIGKILL');
  }
});

test.run();
