/**
 * The stateless client transport's `tools/list` refresh after a -32020 refusal of `tools/call`
 * ("Client Behavior"), when the refresh itself gets a bad reply: the reply is named to the
 * client's logger (as a skipped SSE event is), and the call is posted again with the
 * annotations known, its answer the caller's; so too when the refresh gets a 500, or its connection
 * is reset before the reply or cut within it (the call's -32020 is not lost to a raw network error).
 * Both forms (node:http, fetch), against the
 * dual-era endpoint behind a front that gives the bad reply to the refresh.
 */
import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import { StatelessHttpClientTransport } from '../../../../../runtime/transport/http/stateless/node-client.js';
import { startDualEraBehind, type Running } from './helpers.js';

/** The bad replies to the refresh, by the `query` argument of the call that causes it. */
const REPLIES: Record<string, (id: unknown, res: ServerResponse) => void> = {
  plain: (_id, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('hello there');
  },
  rpcError: (id, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'lister broke' } }));
  },
  status500: (_id, res) => {
    res.writeHead(500, { 'Content-Type': 'text/html' });
    res.end('<h1>oops</h1>');
  },
  reset: (_id, res) => void res.socket?.destroy(),
  cut: (_id, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
    res.write('{"jsonrpc":"2.0",');
    setTimeout(() => res.socket?.destroy(), 20);
  },
};

let s: Running;
/** The `query` of the last `tools/call`: which bad reply the refresh after it gets. */
let query = '';
test.before(async () => {
  s = await startDualEraBehind((method, _req, res, m) => {
    if (method === 'tools/call') query = String(m.params?.arguments?.query);
    if (method !== 'tools/list' || !Object.hasOwn(REPLIES, query)) return false;
    REPLIES[query]!(m.id, res);
    return true;
  });
});
test.after(async () => {
  await s.close();
});

for (const form of ['node', 'fetch'] as const) {
  test(`${form}: a bad reply to the tools/list refresh after -32020 is warned of; the call is sent again`, async () => {
    const warned: string[] = [];
    // (a lost connection's network error, after "may have run)", is the form's own: not compared)
    const logger = {
      warn: (_m: string, data?: Record<string, unknown>) =>
        void warned.push(String(data?.error).replace(/(may have run\)).*$/, '$1')),
    };
    // (the session's own output-schema listing is off: the transport's refresh is the only tools/list)
    const c = new draft.Client({ clientInfo: { name: 'c', version: '1' }, logger, checkToolOutput: false });
    await c.connect(
      new StatelessHttpClientTransport({ url: s.url, ...(form === 'fetch' ? { fetch: globalThis.fetch } : {}) }),
    );
    try {
      const got: Record<string, [string, string[]]> = {};
      for (const q of Object.keys(REPLIES)) {
        warned.length = 0;
        const e = await c.callTool({ name: 'sql', arguments: { region: 'eu', query: q } }).then(
          () => undefined,
          (x: Error & { code?: number }) => x,
        );
        got[q] = [`${e?.name} ${e?.code} ${e?.message}`, [...warned]];
      }
      const mismatch = 'RpcError -32020 Header mismatch: Mcp-Param-Region header is missing';
      assert.equal(got, {
        plain: [mismatch, ['POST tools/list (the refresh after -32020): no result: HTTP 200']],
        rpcError: [mismatch, ['POST tools/list (the refresh after -32020): no result: HTTP 200 (lister broke)']],
        status500: [mismatch, ['POST tools/list (the refresh after -32020): no result: HTTP 500']],
        reset: [mismatch, ['Connection lost before the response (POST tools/list; the request may have run)']],
        cut: [
          mismatch,
          [
            'Connection lost before the response (POST tools/list (the refresh after -32020); the request may have run)',
          ],
        ],
      });
    } finally {
      await c.close();
    }
  });
}

test.run();
