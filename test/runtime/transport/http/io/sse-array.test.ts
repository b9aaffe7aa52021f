/**
 * An SSE event on a reply stream whose data is a JSON array (a batch: 2025-11-25 has none) or
 * another JSON value that is no object is no message: it is skipped and named to the client's
 * logger for what it is (it used to be named "a response to id undefined … answers no request
 * of that stream", and a scalar broke the stream); the call then fails as the stream ended
 * without its response. Both eras, both forms, against the real dual-era endpoint behind a
 * front that answers `tools/call` with such an event (the call's answer inside the array).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import { eraClient, failure, startDualEraBehind } from '../stateless/helpers.js';

const EVENTS: [string, (id: unknown) => string, string][] = [
  [
    'a JSON array',
    (id) => JSON.stringify([{ jsonrpc: '2.0', id, result: { content: [] } }]),
    'SSE event is a JSON array (a batch), no message: this revision has no batches: [{"jsonrpc":"2.0","id":',
  ],
  ['a JSON number', () => '42', 'SSE event is not a JSON object: 42'],
];

for (const [what, data, warning] of EVENTS)
  for (const era of ['session', 'stateless'] as const)
    for (const form of ['node:http', 'fetch'] as const)
      test(`${era}, ${form}: an SSE event holding ${what} is named for what it is; the call fails`, async () => {
        const s = await startDualEraBehind((method, _req, res, m) => {
          if (method !== 'tools/call') return false;
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`event: message\ndata: ${data(m.id)}\n\n`);
          return true;
        });
        const warned: string[] = [];
        const logger = { warn: (_m: string, d?: Record<string, unknown>) => void warned.push(String(d?.error)) };
        const { c, transport } = eraClient(era, form, s.url, { logger });
        try {
          await c.connect(transport);
          const e = await failure(c.callTool({ name: 'echo', arguments: { text: 'x' } } as never, { retry: false }));
          assert.instance(e, ConnectionClosedError, String(e));
          assert.equal(
            warned.map((w) => w.slice(0, warning.length)),
            [warning],
          );
        } finally {
          await c.close().catch(() => {});
          await s.close();
        }
      });

test.run();
