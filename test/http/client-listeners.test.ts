/**
 * HttpClientTransport keeps nothing per finished request for close() to abort: an abort
 * listener per POST on one long-lived signal piled up until garbage collection
 * (MaxListenersExceededWarning after 1500 calls on one session).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../runtime/transport/http-client.js';
import { startServer } from './helpers.js';

for (const replyMode of ['json', 'sse'] as const) {
  test(`no abort listener left per POST (${replyMode} replies); close still aborts open streams`, async () => {
    const srv = await startServer({
      replyMode,
      onSession: (t) => new Server({
        serverInfo: { name: 's', version: '1' },
        capabilities: { tools: {} },
        handlers: { 'tools/list': () => ({ tools: [] }), 'tools/call': (p) => ({ content: [{ type: 'text', text: p.name }] }) },
      }).connect(t),
    });
    const transport = new HttpClientTransport({ url: srv.url, standaloneStream: false });
    const client = new Client({ clientInfo: { name: 'c', version: '0' } });
    try {
      await client.connect(transport);
      for (let i = 0; i < 200; i++) await client.callTool({ name: `t${i}` });
      const posts = (transport as unknown as { posts: Set<AbortController> }).posts;
      // at most the last one, whose SSE stream may still be ending after its response came
      assert.ok(posts.size <= 1, `${posts.size} POSTs still tracked`);
    } finally {
      await client.close();
      await srv.close();
    }
  });
}

test.run();
