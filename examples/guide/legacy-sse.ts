// docs/guide/legacy-sse.md: the deprecated HTTP+SSE transport (2024-11-05): a server for old clients, and a client that falls back to it.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Server, type Protocol } from '../../generated/2025-11-25/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { LegacySseClientTransport, connectHttp, createLegacySseHandler } from '@mcpgen/runtime/http/legacy-sse';

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: ({ text }) => text,
});

// GET /sse opens a session's event stream; its first event names the URL to POST messages to
const legacy = createLegacySseHandler({
  onSession: (transport) =>
    new Server({
      serverInfo: { name: 'echo', version: '1.0.0' },
      capabilities: features.capabilities(),
      handlers: features.handlers(),
    }).connect(transport),
});
const http = createServer((req, res) => void legacy(req, res));
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

// a client that speaks only the old transport
const old = new Client({ clientInfo: { name: 'old-app', version: '1.0.0' } });
await old.connect(new LegacySseClientTransport({ url: `${base}/sse` }));
console.log((await old.callTool({ name: 'echo', arguments: { text: 'hi' } })).content); // [ { type: 'text', text: 'hi' } ]

// a client that tries Streamable HTTP first and falls back when the server answers 400, 404 or 405
const transport = connectHttp(`${base}/sse`);
const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });
await client.connect(transport);
console.log(transport.kind); // legacy

assert.deepEqual((await old.callTool({ name: 'echo', arguments: { text: 'hi' } })).content, [
  { type: 'text', text: 'hi' },
]);
assert.equal(transport.kind, 'legacy');
assert.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'again' } })).content, [
  { type: 'text', text: 'again' },
]);
assert.equal(legacy.sessions.size, 2, 'one session per open event stream');

await Promise.all([old.close(), client.close()]);
await legacy.close();
await new Promise<void>((resolve) => http.close(() => resolve()));
console.log('ok legacy-sse');
