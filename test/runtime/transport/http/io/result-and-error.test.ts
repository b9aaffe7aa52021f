/**
 * A reply that holds both `result` and `error` for the call's id fails the call with one clear
 * message, "Malformed response: a response has either result or error" (-32603), in both eras
 * and both forms, whether it comes as a JSON body or as an SSE event (it used to read "Malformed
 * response: malformed response").
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RpcError } from '../../../../../runtime/jsonrpc/errors.js';
import { eraClient, failure, startDualEraBehind } from '../stateless/helpers.js';

for (const body of ['json', 'sse'] as const)
  for (const era of ['session', 'stateless'] as const)
    for (const form of ['node:http', 'fetch'] as const)
      test(`${era}, ${form}, ${body}: result and error in one reply → "a response has either result or error"`, async () => {
        const s = await startDualEraBehind((method, _req, res, m) => {
          if (method !== 'tools/call') return false;
          const reply = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {}, error: { code: 1, message: 'x' } });
          res.writeHead(200, { 'content-type': body === 'json' ? 'application/json' : 'text/event-stream' });
          res.end(body === 'json' ? reply : `event: message\ndata: ${reply}\n\n`);
          return true;
        });
        const { c, transport } = eraClient(era, form, s.url);
        try {
          await c.connect(transport);
          const e = await failure(c.callTool({ name: 'echo', arguments: { text: 'x' } } as never, { retry: false }));
          assert.instance(e, RpcError, String(e));
          assert.is(
            `${(e as RpcError).code} ${e!.message}`,
            '-32603 Malformed response: a response has either result or error',
          );
        } finally {
          await c.close().catch(() => {});
          await s.close();
        }
      });

test.run();
