/**
 * Issue 44, crossed answers, the client side: a Streamable HTTP client's request ids are its
 * connection's own, and a response whose id it never sent (or sent as another JSON type, or
 * already answered) completes nothing: it is dropped with a debug log and reported once to the
 * transport's onError (it fails nothing), and the request it does not answer still gets its own
 * response. A raw `node:http`
 * server sends such responses on a request's SSE reply stream;
 * the node:http and fetch forms of the client transport, under the real engine.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Peer } from '../../runtime/engine/peer.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { HttpClientTransport as FetchHttpClientTransport } from '../../runtime/transport/http/session/fetch-client.js';
import { table } from '../../generated/2025-11-25/index.js';
import { recordingLogger } from '../runtime/support.js';

type Obj = Record<string, unknown>;
const V = '2025-11-25';
const SID = 'session-1';
const INIT_RESULT = { protocolVersion: V, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } };
const TOOLS = { tools: [{ name: 'mine', inputSchema: { type: 'object' } }] };
const OTHER = { tools: [{ name: 'NOT MINE', inputSchema: { type: 'object' } }] };

/** Responses to ids the client never sent (or sent as another JSON type: `"1"` is not `1`). */
const strays = (id: number): Obj[] => [
  { jsonrpc: '2.0', id: id + 1000, result: OTHER },
  { jsonrpc: '2.0', id: String(id), result: OTHER },
  { jsonrpc: '2.0', id: `${SID}:${id}`, result: OTHER },
  { jsonrpc: '2.0', id: id + 2000, error: { code: -32603, message: 'not yours' } },
];

/**
 * The server: `initialize` and `ping` answered with JSON; `tools/list` answered on an SSE stream
 * whose events before the response are stray responses, then the response. (A JSON reply holds
 * one message since 2025-11-25 removed batching: an array reply is refused, io/reply-rules.)
 */
async function rawServer() {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') return void res.writeHead(405).end();
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = JSON.parse(Buffer.concat(chunks).toString()) as Obj;
      const json = (body: unknown) =>
        res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': SID }).end(JSON.stringify(body));
      if (m.id === undefined) return void res.writeHead(202).end();
      const id = m.id as number;
      if (m.method === 'initialize') return json({ jsonrpc: '2.0', id, result: INIT_RESULT });
      if (m.method === 'ping') return json({ jsonrpc: '2.0', id, result: {} });
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Mcp-Session-Id': SID });
      const own = { jsonrpc: '2.0', id, result: TOOLS };
      for (const e of [...strays(id), own]) res.write(`data: ${JSON.stringify(e)}\n\n`);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

for (const form of ['node:http', 'fetch'] as const) {
  test(`${form} client: responses to ids it never sent are dropped and logged; each request gets its own`, async () => {
    const srv = await rawServer();
    const transport =
      form === 'fetch'
        ? new FetchHttpClientTransport({ url: srv.url, standaloneStream: false })
        : new HttpClientTransport({ url: srv.url, standaloneStream: false });
    const logger = recordingLogger();
    const errors: Error[] = [];
    const peer = new Peer({ side: 'client', table, transport, logger, onError: (e) => errors.push(e) });
    try {
      await peer.start();
      assert.equal(
        await peer.request('initialize', {
          protocolVersion: V,
          capabilities: {},
          clientInfo: { name: 'strays', version: '1' },
        }),
        INIT_RESULT,
      );
      await peer.notify('notifications/initialized');
      transport.setProtocolVersion(V);
      // several at once: each gets its own response, none another's
      const [a, b, c] = await Promise.all([
        peer.request('tools/list', {}),
        peer.request('tools/list', {}),
        peer.request('ping'),
      ]);
      assert.equal([a, b, c], [TOOLS, TOOLS, {}]);
      assert.ok(!peer.closed);
      // each stray is reported once, as what it is (the transport's onError), and fails nothing
      const reported = errors.map((e) => e.message).sort();
      const strayIds = [1, 2].flatMap((id) => strays(id).map((s) => JSON.stringify(s.id)));
      assert.equal(
        reported,
        strayIds.map((id) => `SSE response stream: a response to id ${id} answers no request of that stream`).sort(),
      );
      const dropped = logger.entries
        .filter((e) => e.level === 'debug' && e.message.includes('unknown id'))
        .map((e) => JSON.stringify(e.data?.id))
        .sort();
      // the tools/list requests (ids 1, 2): four strays each
      assert.equal(dropped, strayIds.sort());
    } finally {
      await peer.close();
      await srv.close();
    }
  });
}

test.run();
