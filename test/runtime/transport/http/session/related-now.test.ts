/**
 * A notification about a request (`relatedRequestId`, e.g. a tool's `notifications/progress`)
 * whose POST stream is open as SSE is stored and written within `send` (which returns `SENT`)
 * when no send is queued, and behind the queue otherwise; either way in send order, each event
 * with its ID, before the response that ends the stream.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SENT } from '../../../../../runtime/jsonrpc/sent.js';
import type { JSONRPCMessage } from '../../../../../runtime/jsonrpc/transport.js';
import type { HttpServerSession } from '../../../../../runtime/transport/http/session/session.js';
import { initialize, messagesOf, post, readSse, req, startServer, V, waitFor } from './helpers.js';

const progress = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: n, total: 3 },
});

test('a message about a request on its open SSE stream: written within send when nothing is queued, else behind the queue', async () => {
  let session: HttpServerSession | undefined;
  const got: JSONRPCMessage[] = [];
  const srv = await startServer({
    replyMode: 'sse',
    onSession(t) {
      session = t;
      void t.start({
        onMessage(m) {
          got.push(m);
          if (m.method === 'initialize')
            void t.send({
              jsonrpc: '2.0',
              id: m.id as number,
              result: { protocolVersion: V, capabilities: {}, serverInfo: { name: 't', version: '1' } },
            });
        },
        onClose() {},
      });
    },
  });
  try {
    const sid = await initialize(srv.url);
    const reply = post(srv.url, req(2, 'work'), { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V });
    await waitFor('request 2 at the server', () => got.some((m) => m.id === 2));
    const s = session!;
    assert.is(s.send(progress(1), { relatedRequestId: 2 }), SENT, 'nothing queued: written within send');
    // a message for the standalone stream (no GET open) is queued; one about request 2 goes behind it
    const standalone = s.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const behind = s.send(progress(2), { relatedRequestId: 2 });
    assert.is.not(behind, SENT, 'a send queued before it: in turn');
    await Promise.all([standalone, behind]);
    assert.is(s.send(progress(3), { relatedRequestId: 2 }), SENT, 'the queue drained: written within send again');
    await s.send({ jsonrpc: '2.0', id: 2, result: {} });
    const events = await readSse(await reply);
    assert.equal(
      messagesOf(events).map((m) => (m.params as { progress?: number } | undefined)?.progress ?? m.id),
      [1, 2, 3, 2],
    );
    assert.ok(
      events.every((e) => e.id),
      'the priming event and each message stored, with an event ID',
    );
    assert.is(new Set(events.map((e) => e.id)).size, events.length);
  } finally {
    await srv.close();
  }
});

test.run();
