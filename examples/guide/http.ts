// docs/guide/http.md: a Streamable HTTP server with sessions (2025-11-25) and its client.
import assert from 'node:assert/strict';
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Server, table, type Protocol } from '../../generated/2025-11-25/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { HttpClientTransport, answerClientError, createStreamableHttpHandler } from '@mcpgen/runtime/http';

// one Server per session: `initialize` opens a session, onSession connects a server to it
const handler = createStreamableHttpHandler({
  tables: [table],
  onSession: async (transport) => {
    let calls = 0; // state of this session only
    const features = new ServerFeatures<Protocol>();
    features.tool({
      name: 'count',
      inputSchema: { type: 'object' },
      handler: () => ({ content: [{ type: 'text', text: String(++calls) }] }),
    });
    const server = new Server({
      serverInfo: { name: 'counter', version: '1.0.0' },
      capabilities: features.capabilities(),
      handlers: features.handlers(),
    });
    await server.connect(transport);
  },
});
const http = createServer(handler);
// a request node:http cannot parse (a bad Content-Length, say) gets 400 with a JSON-RPC body
http.on('clientError', answerClientError);
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

const alice = new Client({ clientInfo: { name: 'alice', version: '1.0.0' } });
const aliceTransport = new HttpClientTransport({ url });
await alice.connect(aliceTransport);
const bob = new Client({ clientInfo: { name: 'bob', version: '1.0.0' } });
const bobTransport = new HttpClientTransport({ url });
await bob.connect(bobTransport);

console.log(aliceTransport.sessionId !== bobTransport.sessionId); // true: a session each
const count = async (client: Client) => (await client.callTool({ name: 'count', arguments: {} })).content;
await count(alice);
console.log(await count(alice), await count(bob)); // alice's 2nd call, bob's 1st

assert.equal(typeof aliceTransport.sessionId, 'string');
assert.notEqual(aliceTransport.sessionId, bobTransport.sessionId);
assert.deepEqual(await count(alice), [{ type: 'text', text: '3' }]);
assert.deepEqual(await count(bob), [{ type: 'text', text: '2' }]);
assert.equal(handler.sessions.size, 2);

// close() ends the session (DELETE); the server forgets its id
const aliceSession = aliceTransport.sessionId!;
await alice.close();
assert.equal(handler.sessions.has(aliceSession), false);
// a request naming an unknown session gets 404
const stale = await fetch(url, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': aliceSession,
    'mcp-protocol-version': '2025-11-25',
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
});
assert.equal(stale.status, 404);
await stale.body?.cancel();

// your own node:http Agent: every request of this client goes through it (its GET stream too);
// `timeout` closes its idle sockets before a Node.js server (5 s) would
const agent = new Agent({ keepAlive: true, maxSockets: 8, timeout: 4000 });
const carol = new Client({ clientInfo: { name: 'carol', version: '1.0.0' } });
await carol.connect(new HttpClientTransport({ url, agent }));
await count(carol);
await carol.close();
agent.destroy(); // its pooled sockets; the default agents' need nothing (unref'd, closed when idle)

// done: the last client, every session left, then the HTTP server (its open connections first)
await bob.close();
await handler.close();
http.closeAllConnections();
await new Promise<void>((resolve) => http.close(() => resolve()));

console.log('ok http');
