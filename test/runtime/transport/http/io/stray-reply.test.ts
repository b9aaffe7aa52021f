/**
 * A response on a request's SSE reply that answers no request of that reply (another id) is
 * told to the client's logger once ("transport error", naming the id, its text bounded), and the
 * call still gets its own response; in both eras (session and stateless transports) and both
 * forms (node:http, fetch), against the real dual-era endpoint on 127.0.0.1 behind a front.
 */
import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eraClient, startDualEraBehind } from '../stateless/helpers.js';

const event = (m: unknown) => `event: message\ndata: ${JSON.stringify(m)}\n\n`;
const LONG = 'z'.repeat(500);

for (const era of ['session', 'stateless'] as const)
  for (const form of ['node:http', 'fetch'] as const)
    test(`${era}, ${form}: a stray response on an SSE reply is logged once, bounded; the call gets its own`, async () => {
      const s = await startDualEraBehind((method, _req, res: ServerResponse, message) => {
        if (method !== 'tools/call') return false;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          event({ jsonrpc: '2.0', id: LONG, result: {} }) +
            event({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'mine' }] } }),
        );
        return true;
      });
      const warnings: string[] = [];
      const logger = { warn: (msg: string, data?: { error?: string }) => void warnings.push(`${msg}: ${data?.error}`) };
      const { c, transport } = eraClient(era, form, s.url, { logger });
      try {
        await c.connect(transport);
        const r = (await c.callTool({ name: 'echo', arguments: { text: 'x' } } as never, { retry: false })) as {
          content: { text: string }[];
        };
        assert.is(r.content[0].text, 'mine');
        const strays = warnings.filter((w) => w.includes('answers no request'));
        assert.equal(strays, [
          `transport error: SSE response stream: a response to id "${'z'.repeat(79)} answers no request of that stream`,
        ]);
      } finally {
        await c.close().catch(() => {});
        await s.close();
      }
    });

test.run();
