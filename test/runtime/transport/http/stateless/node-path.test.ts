/**
 * The node:http path of the stateless endpoint beyond the status table: a chunked body over
 * the limit (no Content-Length) → 413; a body a middleware already parsed (`req.body`) is
 * served as sent; a client that goes away before a JSON answer aborts the handler with the
 * reason "response stream closed by the client" and leaves nothing in flight; ids restored
 * on the way out whatever their type.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import type { RequestContext } from '../../../../../runtime/engine/context.js';
import { createStatelessHttpHandler } from '../../../../../runtime/transport/http/stateless/server.js';
import { headersFor, post, request, tick } from './helpers.js';
import { STATELESS_TABLES } from '../tables.js';

const reasons: unknown[] = [];
const handler = createStatelessHttpHandler({ tables: STATELESS_TABLES, maxBodyBytes: 2048, replyMode: 'json' });
const server = new draft.Server({
  serverInfo: { name: 'node-path', version: '1' },
  capabilities: { tools: {} },
  handlers: {
    'tools/call': async (p: { name: string; arguments?: { text?: string } }, ctx: RequestContext) => {
      if (p.name === 'wait') {
        await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
        if (ctx.signal.aborted) reasons.push(ctx.signal.reason);
      }
      return { content: [{ type: 'text', text: `${p.name}:${p.arguments?.text ?? ''}` }] };
    },
  } as never,
});
await server.connect(handler.transport);
// a "middleware" parses JSON bodies under /parsed before the endpoint sees them
const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
  if (req.url === '/parsed') {
    let text = '';
    for await (const c of req) text += c;
    (req as IncomingMessage & { body?: unknown }).body = JSON.parse(text);
  }
  await handler(req, res);
});
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const port = (http.address() as AddressInfo).port;
const url = `http://127.0.0.1:${port}/mcp`;

test('a chunked body over maxBodyBytes (no Content-Length) → 413 -32000', async () => {
  const body = JSON.stringify(request(1, 'tools/call', { name: 'echo', arguments: { text: 'x'.repeat(4000) } }));
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { ...headersFor('tools/call', 'echo'), 'Transfer-Encoding': 'chunked' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 500) req.write(body.slice(i, i + 500));
    req.end();
  });
  assert.is(status, 413);
  assert.is(JSON.parse(text).error.code, -32000);
});

test('a body already parsed by a middleware is served as sent', async () => {
  const r = await post(
    `http://127.0.0.1:${port}/parsed`,
    headersFor('tools/call', 'echo'),
    request('p-1', 'tools/call', { name: 'echo', arguments: { text: 'pre-read' } }),
  );
  assert.is(r.status, 200);
  assert.equal(r.body.id, 'p-1');
  assert.is(r.body.result.content[0].text, 'echo:pre-read');
});

test('the client id comes back as sent: strings that look like numbers, numbers, zero', async () => {
  for (const id of ['1', 1, 0, 'h1', -5]) {
    const r = await post(
      url,
      headersFor('tools/call', 'echo'),
      request(id, 'tools/call', { name: 'echo', arguments: { text: String(id) } }),
    );
    assert.is(r.body.id, id);
    assert.is(r.body.result.content[0].text, `echo:${id}`);
  }
});

test('a client gone before the JSON answer: the handler is aborted with the reason, nothing stays in flight', async () => {
  const abort = new AbortController();
  const pending = fetch(url, {
    method: 'POST',
    headers: headersFor('tools/call', 'wait'),
    body: JSON.stringify(request(9, 'tools/call', { name: 'wait' })),
    signal: abort.signal,
  }).catch((e: Error) => e);
  for (let i = 0; i < 100 && handler.transport.inFlight === 0; i++) await tick(5);
  assert.is(handler.transport.inFlight, 1);
  abort.abort();
  await pending;
  for (let i = 0; i < 100 && reasons.length === 0; i++) await tick(5);
  assert.equal(reasons, ['response stream closed by the client']);
  assert.is(handler.transport.inFlight, 0);
  // a later request still gets its answer
  const r = await post(
    url,
    headersFor('tools/call', 'echo'),
    request(10, 'tools/call', { name: 'echo', arguments: { text: 'after' } }),
  );
  assert.is(r.body.result.content[0].text, 'echo:after');
});

test.after(async () => {
  await server.close();
  http.closeAllConnections();
  await new Promise<void>((r) => http.close(() => r()));
});

test.run();
