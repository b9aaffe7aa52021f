// docs/guide/stateless-http.md: a stateless HTTP server (draft) and its client: no session, no handshake.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Server, protocolVersion, table, type Protocol } from '../../generated/draft/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { StatelessHttpClientTransport, createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'greet',
  inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
  handler: ({ who }) => ({ content: [{ type: 'text', text: `hello, ${who}` }] }),
});
// one Server serves every request: each request carries what a session used to hold
const handler = createStatelessHttpHandler({ tables: [table], toolSchema: (name) => features.inputSchema(name) });
const server = new Server({
  serverInfo: { name: 'greeter', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
});
await server.connect(handler.transport);
const http = createServer(handler);
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const discovered = await client.connect(new StatelessHttpClientTransport({ url })); // server/discover
console.log(discovered.protocolVersion, Object.keys(discovered.capabilities)); // 2026-07-28 [ 'tools' ]
const result = await client.callTool({ name: 'greet', arguments: { who: 'Ada' } });
console.log(result.content); // [ { type: 'text', text: 'hello, Ada' } ]

assert.equal(discovered.protocolVersion, protocolVersion);
assert.equal(discovered.serverInfo?.name, 'greeter');
assert.ok('tools' in discovered.capabilities);
assert.deepEqual(result.content, [{ type: 'text', text: 'hello, Ada' }]);
assert.equal(result.resultType, 'complete');

// on the wire: one POST per request, the metadata in _meta and mirrored in headers
const body = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'greet',
    arguments: { who: 'Grace' },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': protocolVersion,
      'io.modelcontextprotocol/clientInfo': { name: 'curl', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
};
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': protocolVersion,
  'mcp-method': 'tools/call',
  'mcp-name': 'greet',
};
const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
const answer = (await response.json()) as { id: number; result: { content: unknown } };
console.log(response.status, answer.result.content); // 200 [ { type: 'text', text: 'hello, Grace' } ]
assert.equal(response.status, 200);
assert.deepEqual(answer.result.content, [{ type: 'text', text: 'hello, Grace' }]);

// a header that does not match the body is refused before the handler runs
const mismatch = await fetch(url, {
  method: 'POST',
  headers: { ...headers, 'mcp-name': 'other' },
  body: JSON.stringify(body),
});
const refused = (await mismatch.json()) as { error: { code: number } };
console.log(mismatch.status, refused.error.code); // 400 -32020
assert.equal(mismatch.status, 400);
assert.equal(refused.error.code, -32020);

// a client that listed the tools before a tool's argument became a header
const warnings: string[] = [];
const logger = {
  warn: (message: string, data?: Record<string, unknown>) => void warnings.push(`${message}: ${data?.error}`),
};
const later = new Client({ clientInfo: { name: 'app', version: '1.0.0' }, logger });
await later.connect(new StatelessHttpClientTransport({ url }));
features.tool({
  name: 'forecast',
  inputSchema: { type: 'object', properties: { region: { type: 'string' } } },
  handler: ({ region }) => `sunny in ${region}`,
});
await later.listTools({}); // forecast: no x-mcp-header
features.removeTool('forecast');
features.tool({
  name: 'forecast',
  inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
  handler: ({ region }) => `sunny in ${region}`,
});
// POST without Mcp-Param-Region: 400 -32020; the transport lists the tools, then posts the call once more
const forecast = await later.callTool({ name: 'forecast', arguments: { region: 'eu' } });
console.log(forecast.content, warnings); // [ { type: 'text', text: 'sunny in eu' } ] []
assert.deepEqual(forecast.content, [{ type: 'text', text: 'sunny in eu' }]);
assert.deepEqual(warnings, []);

await later.close();
await client.close();
await handler.close();
await server.close();
http.closeAllConnections();
await new Promise<void>((resolve) => http.close(() => resolve()));

console.log('ok stateless-http');
