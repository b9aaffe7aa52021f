/**
 * Keep-alive comments on the stateless endpoint's SSE replies (`keepAliveMs`), on the node:http
 * and the WHATWG `fetch` forms: a reply that takes longer than the interval gets `:` comments
 * before its response, a reply that ends in the tick it opened in gets none, and no comment
 * follows the response (the timer goes with the stream: nothing stays in flight).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import { createStatelessHttpHandler } from '../../../../../runtime/transport/http/stateless/server.js';
import { headersFor, request, tick } from './helpers.js';
import { STATELESS_TABLES } from '../tables.js';

const KEEP_ALIVE_MS = 20;
const SLOW_MS = 250;

const handler = createStatelessHttpHandler({ tables: STATELESS_TABLES, replyMode: 'sse', keepAliveMs: KEEP_ALIVE_MS });
const server = new draft.Server({
  serverInfo: { name: 'sse-keep-alive', version: '1' },
  capabilities: { tools: {} },
  handlers: {
    'tools/call': async (p: { name: string }) => {
      if (p.name === 'slow') await tick(SLOW_MS);
      return { content: [{ type: 'text', text: p.name }] };
    },
  } as never,
});
await server.connect(handler.transport);
const http = createServer((req, res) => void handler(req, res));
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

/** POSTs a `tools/call` of `name` and reads the whole SSE body as text. */
async function call(name: string, via: 'node' | 'fetch'): Promise<{ type: string | null; text: string }> {
  const init = {
    method: 'POST',
    headers: headersFor('tools/call', name),
    body: JSON.stringify(request(`${via}-${name}`, 'tools/call', { name })),
  };
  const res = via === 'node' ? await fetch(url, init) : await handler.fetch(new Request(url, init));
  return { type: res.headers.get('content-type'), text: await res.text() };
}

for (const via of ['node', 'fetch'] as const) {
  test(`${via}: a slow reply gets keep-alive comments before its response, none after`, async () => {
    const { type, text } = await call('slow', via);
    assert.is(type, 'text/event-stream');
    const data = text.indexOf('data: ');
    assert.ok(data > 0, `a comment came before the response: ${JSON.stringify(text)}`);
    assert.ok(/^(:\n\n)+$/.test(text.slice(0, data)), `only comments before the response: ${JSON.stringify(text)}`);
    const answer = JSON.parse(text.slice(data + 6, text.indexOf('\n', data)));
    assert.equal(answer.id, `${via}-slow`);
    assert.is(answer.result.content[0].text, 'slow');
    assert.ok(text.endsWith('}\n\n'), `nothing after the response: ${JSON.stringify(text)}`);
    assert.is(handler.transport.inFlight, 0);
  });

  test(`${via}: a reply that ends in its first tick gets no comment`, async () => {
    const { text } = await call('echo', via);
    assert.ok(text.startsWith('data: '), JSON.stringify(text));
    assert.is(JSON.parse(text.slice(6)).result.content[0].text, 'echo');
    assert.is(handler.transport.inFlight, 0);
  });
}

test.after(async () => {
  await handler.close();
  await new Promise<void>((r) => http.close(() => r()));
});

test.run();
