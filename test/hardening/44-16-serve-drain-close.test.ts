/**
 * Issue 44, `serve --http` draining, found by new-user trials: a call in flight when SIGTERM came
 * was answered with `Connection: keep-alive` (the drain marked only responses to requests that
 * came after it), so a client sent its next request on a connection about to close. Every
 * response whose head is sent after the drain starts now says `Connection: close`. And a second
 * SIGTERM during the drain stops at once (exit 0): the call still running is cut, not waited for.
 * The real CLI over real sockets; a call counts as in flight once the server answered a probe
 * sent after it and said so on stderr at the drain.
 */
import { type IncomingMessage, request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sendOnce, startHttpServeProcess } from '../runtime/tasks/serve-process.js';
import { TestSession } from '../scale/support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Answer = { status: number; headers: IncomingMessage['headers']; body: string };

/** A POST on a kept-alive connection of its own; `written` resolves once it is sent, `answer` with its response (or the connection error's code). */
function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): { written: Promise<void>; answer: Promise<Answer | string> } {
  let written!: () => void;
  const sent = new Promise<void>((r) => (written = r));
  const answer = new Promise<Answer | string>((resolve) => {
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, Connection: 'keep-alive' }, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.on('finish', () => written());
    req.end(body);
  });
  return { written: sent, answer };
}

/** serve with a JSON reply, a session and a `slow_compute` call of `seconds` in flight (its head not sent); stderr collected. */
async function callInFlight(seconds: number, graceMs: number) {
  const served = await startHttpServeProcess([
    '--rev',
    '2025-11-25',
    '--reply',
    'json',
    '--shutdown-grace-ms',
    String(graceMs),
  ]);
  let stderr = '';
  served.proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const s = new TestSession(served.url);
  await s.initialize();
  const call = post(
    served.url,
    {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
      'Mcp-Session-Id': s.sessionId as string,
    },
    JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'slow_compute', arguments: { seconds } },
    }),
  );
  await call.written;
  // the server answered a request sent after the call: it has read the call's head by then
  const probe = await sendOnce(served.url.replace(/\/mcp$/, '/healthz'), 'GET');
  assert.is(probe.status, 200);
  await sleep(200);
  return { served, call, stderr: () => stderr };
}

test('a call in flight at SIGTERM is answered with Connection: close (it said keep-alive)', async () => {
  const { served, call, stderr } = await callInFlight(2, 30_000);
  try {
    served.proc.kill('SIGTERM');
    const answer = await call.answer;
    assert.ok(typeof answer !== 'string', `the call: ${answer}`);
    assert.ok(stderr().includes('for 1 request(s) in flight'), `the call was in flight at the drain: ${stderr()}`);
    assert.is(answer.status, 200, answer.body);
    assert.match(answer.body, /Computed sum/);
    assert.is(answer.headers.connection, 'close');
    assert.is(await served.exited, 0);
  } finally {
    served.proc.kill('SIGKILL');
  }
});

test('a second SIGTERM while draining stops at once, exit 0, not after the grace period: the call still running gets no result', async () => {
  const { served, call, stderr } = await callInFlight(60, 600_000);
  try {
    served.proc.kill('SIGTERM');
    for (let i = 0; i < 600 && !stderr().includes('in flight'); i++) await sleep(50);
    assert.ok(stderr().includes('waiting up to 600000 ms for 1 request(s) in flight'), stderr());
    served.proc.kill('SIGTERM');
    // exits while the 60-s call (600-s grace) is still running, before either ends
    const exited = await Promise.race([served.exited, sleep(120_000).then(() => 'still running after 120 s')]);
    assert.is(exited, 0);
    const answer = await call.answer;
    if (typeof answer !== 'string') {
      assert.not.match(answer.body, /Computed sum/);
      assert.match(answer.body, /server shutting down/i, answer.body);
    }
  } finally {
    served.proc.kill('SIGKILL');
  }
});

test.run();
