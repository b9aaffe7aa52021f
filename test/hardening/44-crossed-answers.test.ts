/**
 * Issue 44, crossed answers: in a deployment of several `mcpgen serve --redis` processes sharing
 * sessions, a client's answer to a server → client request is handed to the process it was
 * POSTed to and published on the bus to every other process of the session (the request may be
 * awaited anywhere). Each process numbered its requests from 0, so two processes of one session
 * could both await `sampling/createMessage` id 0 and ONE answer completed BOTH calls. Ids are
 * unique per session across the processes now: each call gets its own answer, an answer whose
 * id matches no pending request is dropped, and an answer POSTed within another session never
 * completes a request of this one (in the same process or through another). Real redis-server,
 * two real `serve` processes, fetch.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SseParser } from '../../runtime/codec/sse.js';
import type { Served } from '../runtime/tasks/serve-process.js';
import { startRedis, startRedisServe, type RedisServer } from '../scale/support.js';

type Obj = Record<string, unknown>;
const V = '2025-11-25';

let redis: RedisServer | undefined;
let serves: Served[] = [];

test.before(async () => {
  redis = await startRedis();
  serves = await Promise.all([0, 1].map(() => startRedisServe(redis!.url)));
});

test.after(async () => {
  await Promise.all(serves.map((s) => s.stop()));
  await redis?.stop();
});

const headers = (sid?: string): Record<string, string> => ({
  Accept: 'application/json, text/event-stream',
  'Content-Type': 'application/json',
  'MCP-Protocol-Version': V,
  ...(sid ? { 'Mcp-Session-Id': sid } : {}),
});

/** A session that declares `sampling`, initialized at `url`; its id. */
async function open(url: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: V, capabilities: { sampling: {} }, clientInfo: { name: 'crossed', version: '1' } },
    }),
  });
  await res.arrayBuffer();
  const sid = res.headers.get('mcp-session-id');
  if (res.status !== 200 || !sid) throw new Error(`initialize: HTTP ${res.status}`);
  const ack = await fetch(url, {
    method: 'POST',
    headers: headers(sid),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await ack.arrayBuffer();
  return sid;
}

/** The SSE reply of one POSTed request, read message by message. */
class Reply {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly parser = new SseParser();
  private readonly queue: Obj[] = [];
  constructor(res: Response) {
    assert.is(res.status, 200);
    assert.ok((res.headers.get('content-type') ?? '').startsWith('text/event-stream'), 'an SSE reply');
    this.reader = (res.body as ReadableStream<Uint8Array>).getReader();
  }
  /** The next JSON-RPC message of the stream (priming events skipped). */
  async next(): Promise<Obj> {
    while (this.queue.length === 0) {
      const { done, value } = await this.reader.read();
      if (done) throw new Error('the reply stream ended');
      for (const e of this.parser.push(value)) if (e.data) this.queue.push(JSON.parse(e.data) as Obj);
    }
    return this.queue.shift()!;
  }
  /** Reads up to the next message that is `method`'s request. */
  async request(method: string): Promise<Obj> {
    for (;;) {
      const m = await this.next();
      if (m.method === method && 'id' in m) return m;
    }
  }
  /** Reads up to the response to `id`. */
  async response(id: number): Promise<Obj> {
    for (;;) {
      const m = await this.next();
      if (m.method === undefined && m.id === id) {
        await this.reader.cancel().catch(() => undefined);
        return m;
      }
    }
  }
}

/** POSTs `tools/call test_sampling` with `prompt` at `url`: its reply stream. */
async function callSampling(url: string, sid: string, id: number, prompt: string): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: headers(sid),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'test_sampling', arguments: { prompt } },
    }),
  });
  return new Reply(res);
}

/** POSTs the client's answer to a sampling request (id `id`) whose text is `text`; the HTTP status. */
async function answer(url: string, sid: string, id: unknown, text: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: headers(sid),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: { role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' },
    }),
  });
  await res.arrayBuffer();
  return res.status;
}

const promptOf = (request: Obj): string =>
  ((request.params as { messages: Array<{ content: { text: string } }> }).messages[0].content.text as string) ?? '';
const textOf = (response: Obj): string => JSON.stringify(response.result ?? response.error);

const resultText = (response: Obj): string | undefined =>
  (response.result as { content?: Array<{ text?: string }> } | undefined)?.content?.[0]?.text;

test('two processes of one session each send sampling at once: each call gets its own answer', async () => {
  const [a, b] = serves.map((s) => s.url);
  const sid = await open(a);
  const ids = new Set<string>();
  let next = 1;
  // where each of the two answers is POSTed: each to the other process, each to its own, both to one
  for (const [round, answerAt] of [
    ['crossed', (i: number) => [b, a][i]],
    ['same', (i: number) => [a, b][i]],
    ['one', () => a],
  ] as Array<[string, (i: number) => string]>) {
    // both requests are sent and awaited before either is answered
    const calls = [next++, next++];
    const replies = await Promise.all([
      callSampling(a, sid, calls[0], `${round} from a`),
      callSampling(b, sid, calls[1], `${round} from b`),
    ]);
    const requests = await Promise.all(replies.map((r) => r.request('sampling/createMessage')));
    assert.equal(requests.map(promptOf), [`${round} from a`, `${round} from b`]);
    // one at a time, so that the first answer has reached every process before the second
    for (const i of [0, 1])
      assert.is(await answer(answerAt(i), sid, requests[i].id, `answer to ${promptOf(requests[i])}`), 202);
    const responses = await Promise.all(replies.map((r, i) => r.response(calls[i])));
    assert.equal(
      responses.map(resultText),
      [`LLM response: answer to ${round} from a`, `LLM response: answer to ${round} from b`],
      `${round}: ${responses.map(textOf).join(' | ')}`,
    );
    for (const r of requests) ids.add(JSON.stringify(r.id));
  }
  assert.is(ids.size, 6, `one id per request of the session: ${[...ids].join(' ')}`);
});

test('an answer with an unknown id, or POSTed within another session, completes nothing', async () => {
  const [a, b] = serves.map((s) => s.url);
  const sid = await open(a);
  const other = await open(a);
  // the other session holds a request of its own, pending with whatever id it has
  const otherReply = await callSampling(b, other, 1, 'other');
  const otherRequest = await otherReply.request('sampling/createMessage');
  const reply = await callSampling(a, sid, 1, 'mine');
  const request = await reply.request('sampling/createMessage');
  // within the other session, to the process awaiting the request and through the other one
  for (const url of [a, b]) assert.is(await answer(url, other, request.id, 'WRONG: another session'), 202);
  // ids it never sent, in the request's own session, at both processes
  for (const url of [a, b]) {
    for (const id of [`${String(request.id)}x`, 0, 1, 99, otherRequest.id])
      if (JSON.stringify(id) !== JSON.stringify(request.id))
        assert.is(await answer(url, sid, id, 'WRONG: unknown id'), 202);
  }
  // the right answer, through the other process (after the wrong ones it published)
  assert.is(await answer(b, sid, request.id, 'right'), 202);
  const response = await reply.response(1);
  assert.is(resultText(response), 'LLM response: right', textOf(response));
  // the other session's request was not completed by any of that: its own answer completes it
  assert.is(await answer(a, other, otherRequest.id, 'other right'), 202);
  const otherResponse = await otherReply.response(1);
  assert.is(resultText(otherResponse), 'LLM response: other right', textOf(otherResponse));
});

test.run();
