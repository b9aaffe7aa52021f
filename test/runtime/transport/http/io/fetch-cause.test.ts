/**
 * The fetch form of the HTTP clients names the network error where fetch says only "fetch
 * failed" or "terminated", as the node:http form does, against the real dual-era endpoint on
 * 127.0.0.1 behind a front: a reset after the POST (both eras), and a lost reply stream whose
 * resumption is refused at connect (the 2025-11-25 client, both forms: the same words
 * "connect ECONNREFUSED 127.0.0.1:<port>"). The undici error stays the `cause`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as v2025 from '../../../../../generated/2025-11-25/index.js';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { eraClient, failure, startDualEraBehind } from '../stateless/helpers.js';

const info = { clientInfo: { name: 'c', version: '1' } };

for (const era of ['session', 'stateless'] as const)
  test(`${era}, fetch: a reset after the POST names the network error, not "fetch failed"`, async () => {
    const s = await startDualEraBehind((method, req) => {
      if (method !== 'tools/call') return false;
      req.socket.destroy();
      return true;
    });
    const { c, transport } = eraClient(era, 'fetch', s.url);
    try {
      await c.connect(transport);
      const e = await failure(c.callTool({ name: 'echo', arguments: { text: 'x' } } as never, { retry: false }));
      assert.instance(e, ConnectionClosedError, String(e));
      assert.not.match(e!.message, /fetch failed/);
      assert.match(
        e!.message,
        /^Connection lost before the response \(POST tools\/call; the request may have run\): .*(other side closed|ECONNRESET)/,
      );
      assert.instance(e!.cause, TypeError, 'the fetch error is the cause');
    } finally {
      await c.close().catch(() => {});
      await s.close();
    }
  });

for (const form of ['node:http', 'fetch'] as const)
  test(`session, ${form}: a reply stream whose resumption is refused at connect → "connect ECONNREFUSED 127.0.0.1:<port>"`, async () => {
    const s = await startDualEraBehind((method, req, res) => {
      if (method !== 'tools/call') return false;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        'id: e1\nretry: 20\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n',
      );
      // the server goes away: the stream's resumption finds nothing listening
      setTimeout(() => {
        s.http.close();
        s.http.closeAllConnections();
        req.socket.destroy();
      }, 20);
      return true;
    });
    const port = new URL(s.url).port;
    const options = {
      url: s.url,
      standaloneStream: false,
      reconnect: { initialDelayMs: 20, maxDelayMs: 50, refusedForMs: 100 },
      ...(form === 'fetch' ? { fetch: globalThis.fetch } : {}),
    };
    const c = new v2025.Client(info);
    try {
      await c.connect(new HttpClientTransport(options));
      const e = await failure(c.callTool({ name: 'echo', arguments: { text: 'x' } } as never, { retry: false }));
      assert.instance(e, ConnectionClosedError, String(e));
      assert.ok(e!.message.endsWith(`(the request may have run): connect ECONNREFUSED 127.0.0.1:${port}`), e!.message);
    } finally {
      await c.close().catch(() => {});
      await s.close().catch(() => {});
    }
  });

test.run();
