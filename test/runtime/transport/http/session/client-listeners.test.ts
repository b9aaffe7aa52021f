/**
 * HttpClientTransport keeps no per-request abort state once a POST is answered: a listener per
 * POST on one long-lived close signal piled up until garbage collection
 * (MaxListenersExceededWarning after 1500 calls on one session).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { startServer } from './helpers.js';

for (const replyMode of ['json', 'sse'] as const) {
  test(`no abort listener left per POST (${replyMode} replies); close still aborts open streams`, async () => {
    const srv = await startServer({
      replyMode,
      onSession: (t) =>
        new Server({
          serverInfo: { name: 's', version: '1' },
          capabilities: { tools: {} },
          handlers: {
            'tools/list': () => ({ tools: [] }),
            'tools/call': (p) => ({ content: [{ type: 'text', text: p.name }] }),
          },
        }).connect(t),
    });
    const transport = new HttpClientTransport({ url: srv.url, standaloneStream: false });
    const client = new Client({ clientInfo: { name: 'c', version: '0' } });
    try {
      await client.connect(transport);
      for (let i = 0; i < 200; i++) await client.callTool({ name: `t${i}` });
      const inFlight = (transport as unknown as { core: { inFlight: Set<unknown> } }).core.inFlight;
      // the last SSE reply may still be winding down as its response is delivered
      assert.ok(inFlight.size <= 1, `${inFlight.size} POST controllers left`);
    } finally {
      await client.close();
      await srv.close();
    }
  });
}

test.run();
