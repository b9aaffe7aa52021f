/**
 * Lines a stdio peer may send that the engine used to drop without a word, now answered as the
 * HTTP transports answer the same POST bodies (JSON-RPC 2.0 §5):
 * - a request reusing the id of a request still in flight gets -32600 with that id, and only the
 *   first request runs (ids are unique among a sender's requests, 2025-11-25 basic/index);
 * - an object with an id and no method, result or error gets -32600 without id (it is neither a
 *   request nor a response; an answer carrying its id could settle a request of the peer's own).
 * Checked on the engine over a wire, and against a real `mcpgen serve --stdio` process.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Peer } from '../../../runtime/engine/peer.js';
import { ErrorCode } from '../../../runtime/jsonrpc/errors.js';
import { recordingLogger, settle, table, wire } from '../support.js';
import { onLines, spawnStdioServe } from '../tasks/serve-process.js';

type Json = Record<string, unknown>;
const LIMIT = 30_000;

test('engine: a request reusing an in-flight id gets -32600 with that id; the handler runs once', async () => {
  const w = await wire();
  let calls = 0;
  let release: () => void = () => undefined;
  const peer = new Peer({
    side: 'server',
    table,
    transport: w.transport,
    logger: recordingLogger(),
    requestHandlers: {
      'tools/list': () => {
        calls++;
        return new Promise((resolve) => {
          release = () => resolve({ tools: [] });
        });
      },
    },
  });
  await peer.start();
  for (const id of [3, 'a']) {
    await w.send({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
    await w.send({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
    await settle();
    assert.is(calls, 1, `the second request ${JSON.stringify(id)} must not run`);
    const refused = w.received.at(-1) as Json & { error: { code: number; message: string } };
    assert.is(refused.id, id);
    assert.is(refused.error.code, ErrorCode.InvalidRequest);
    assert.match(refused.error.message, 'already in use');
    release();
    await settle();
    assert.equal(w.received.at(-1), { jsonrpc: '2.0', id, result: { tools: [] } });
    calls = 0;
  }
  // once answered, the id may be used again
  await w.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  await settle();
  assert.equal(w.received.at(-1), { jsonrpc: '2.0', id: 3, result: {} });
});

test('engine: an object with an id and no method, result or error gets -32600 without id', async () => {
  const w = await wire();
  const peer = new Peer({ side: 'server', table, transport: w.transport, logger: recordingLogger() });
  await peer.start();
  const lines = [{ jsonrpc: '2.0', id: 8 }, { jsonrpc: '2.0', id: 'x', params: {} }, { id: null }];
  for (const m of lines) await w.send(m as never);
  await settle();
  assert.is(w.received.length, lines.length, JSON.stringify(w.received));
  for (const m of w.received) {
    assert.is(m.error?.code, ErrorCode.InvalidRequest);
    assert.not.ok('id' in m, JSON.stringify(m));
  }
});

test('serve --stdio: a reused in-flight id and an id-only line are each answered -32600; the rest is served', async () => {
  const child = spawnStdioServe(['--rev', '2025-11-25'], { stderr: 'ignore' });
  const out: Json[] = [];
  onLines(child.stdout!, (line) => out.push(JSON.parse(line) as Json));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT);
  const send = (m: unknown) => child.stdin!.write(`${JSON.stringify(m)}\n`);
  const seen = (pred: (m: Json) => boolean) =>
    new Promise<void>((resolve) => {
      const poll = () => (out.some(pred) ? resolve() : setTimeout(poll, 10));
      poll();
    });
  try {
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    });
    await seen((m) => m.id === 1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // a tool that takes a while (progress steps): still in flight when the next lines arrive
    send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p' } },
    });
    await seen((m) => m.method === 'notifications/progress');
    send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    send({ jsonrpc: '2.0', id: 8 });
    send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    await seen((m) => m.id === 7 && 'result' in m);
    child.stdin!.end();
    await exited;
  } finally {
    clearTimeout(timer);
    child.kill();
  }
  const answers = out.filter((m) => m.method === undefined);
  const errors = answers.filter((m) => 'error' in m) as Array<Json & { error: { code: number } }>;
  assert.is(errors.length, 2, JSON.stringify(answers));
  assert.is(errors[0].id, 7);
  assert.is(errors[0].error.code, ErrorCode.InvalidRequest);
  assert.not.ok('id' in errors[1], JSON.stringify(errors[1]));
  assert.is(errors[1].error.code, ErrorCode.InvalidRequest);
  assert.equal(
    answers.filter((m) => 'result' in m).map((m) => m.id),
    [1, 9, 7],
  );
  assert.equal((answers.at(-1)!.result as { content: unknown }).content, [
    { type: 'text', text: 'Progress completed' },
  ]);
});

test.run();
