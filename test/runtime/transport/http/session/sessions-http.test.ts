/**
 * The generated 2025-11-25 Client and Server (the real peer engine and lifecycle) over the
 * Streamable HTTP transports: one Server per HTTP session.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client as Client1125, Server as Server1125 } from '../../../../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { startServer } from './helpers.js';

const tool = { name: 'echo', inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } } } };

function server(): Server1125 {
  return new Server1125({
    serverInfo: { name: 'http-server', version: '1.0.0' },
    capabilities: { tools: {} },
    handlers: {
      'tools/list': () => ({ tools: [tool] }),
      'tools/call': async (p) => {
        await new Promise((r) => setTimeout(r, 5));
        return { content: [{ type: 'text', text: String((p.arguments as { text?: string })?.text ?? '') }] };
      },
    },
  });
}

for (const replyMode of ['auto', 'json', 'sse'] as const) {
  test(`generated Client ↔ Server over Streamable HTTP (${replyMode})`, async () => {
    const srv = await startServer({ replyMode, onSession: (t) => server().connect(t) });
    const transport = new HttpClientTransport({ url: srv.url });
    const client = new Client1125({ clientInfo: { name: 'c', version: '0' } });
    try {
      const info = await client.connect(transport);
      assert.is(info.protocolVersion, '2025-11-25');
      assert.equal(info.serverInfo, { name: 'http-server', version: '1.0.0' });
      transport.setProtocolVersion(info.protocolVersion);
      assert.ok(transport.sessionId);
      assert.is(srv.sessions[0].protocolVersion, '2025-11-25');
      assert.equal(
        (await client.listTools()).tools.map((t) => t.name),
        ['echo'],
      );
      const texts = await Promise.all(
        Array.from({ length: 10 }, (_, i) => client.callTool({ name: 'echo', arguments: { text: `t${i}` } })),
      );
      assert.equal(
        texts.map((r) => r.content),
        Array.from({ length: 10 }, (_, i) => [{ type: 'text', text: `t${i}` }]),
      );
      await client.close();
      assert.is(srv.handler.sessions.size, 0, 'closing the client ended the HTTP session');
    } finally {
      await transport.close();
      await srv.close();
    }
  });
}

test.run();
