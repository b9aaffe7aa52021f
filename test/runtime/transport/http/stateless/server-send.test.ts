/**
 * StatelessHttpServerTransport.send: what the engine writes (a response, a notification about a
 * request, either after its request was answered or for no request) returns SENT, the engine's
 * sign that there is no failure to watch for; a server-to-client request still rejects.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SENT } from '../../../../../runtime/jsonrpc/sent.js';
import { StatelessHttpServerTransport } from '../../../../../runtime/transport/http/stateless/server-transport.js';
import type { ResponseSink } from '../../../../../runtime/transport/http/io/exchange.js';

/** A sink that records what the transport wrote. */
function recordingSink() {
  const out: string[] = [];
  const sink: ResponseSink = {
    respond: (status, _headers, body) => void out.push(`${status} ${body ?? ''}`),
    open: () => undefined,
    write: (text) => (out.push(text), true),
    end: () => void out.push('end'),
    closed: false,
    started: false,
    onClose: () => undefined,
  };
  return { out, sink };
}

for (const replyMode of ['json', 'sse'] as const) {
  test(`send returns SENT for responses and notifications (${replyMode} replies)`, async () => {
    const t = new StatelessHttpServerTransport({ replyMode, keepAliveMs: 0 });
    const inbound: Array<{ id?: unknown }> = [];
    await t.start({ onMessage: (m) => void inbound.push(m as { id?: unknown }), onClose: () => undefined });
    const { out, sink } = recordingSink();
    t.accept({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: {} }, sink, {} as never);
    const inner = inbound[0].id as number;
    assert.is(
      t.send({ jsonrpc: '2.0', method: 'notifications/progress', params: {} }, { relatedRequestId: inner }),
      SENT,
    );
    assert.is(t.send({ jsonrpc: '2.0', id: inner, result: { content: [] } }), SENT);
    assert.ok(
      out.some((x) => x.includes('"id":"c1"')),
      out.join('|'),
    );
    assert.is(t.send({ jsonrpc: '2.0', id: inner, result: {} }), SENT, 'a second answer: nowhere to go');
    assert.is(t.send({ jsonrpc: '2.0', method: 'notifications/message', params: {} }), SENT, 'no request');
    await t.send({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: {} }).then(
      () => assert.unreachable('a server-to-client request was sent'),
      (e: Error) => assert.match(e.message, /servers send no requests/),
    );
    await t.close();
  });
}

test.run();
