// Guide: web (docs/guide/web.md). A server as a fetch handler and a client over the fetch
// transport, from @mcpgen/runtime/web (no node: import), run here with the web-standard
// Request/Response Node has, exactly as a worker or a browser runs them: the client's `fetch`
// calls the worker's `fetch` directly, no socket in between.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Client, Server, table, type Protocol } from '../../generated/2026-07-28/index.js';
import * as v2025 from '../../generated/2025-11-25/index.js';
import {
  createStatelessHttpHandler,
  createStreamableHttpHandler,
  HttpClientTransport,
  ServerFeatures,
  StatelessHttpClientTransport,
} from '@mcpgen/runtime/web';

// ---- the worker: a module whose default export has fetch(Request) → Response
const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  handler: ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
});
const handler = createStatelessHttpHandler({
  tables: [table],
  toolSchema: (name) => features.inputSchema(name),
  allowedHosts: ['mcp.example.com'], // the public host name(s): the Host check stays on
  cors: { allowedOrigins: ['https://app.example.com'] }, // browser apps allowed to call it
});
const server = new Server({
  serverInfo: { name: 'worker', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
});
await server.connect(handler.transport);
const worker = { fetch: (request: Request) => handler.fetch(request) };

// ---- the browser app's client: its fetch goes to the worker
const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });
await client.connect(
  new StatelessHttpClientTransport({
    url: 'https://mcp.example.com/mcp',
    fetch: (input, init) => worker.fetch(new Request(input, init)),
  }),
);
const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
assert.deepEqual(sum.content, [{ type: 'text', text: '42' }]);

// ---- CORS: the preflight a browser sends before a cross-origin POST
const preflight = await worker.fetch(
  new Request('https://mcp.example.com/mcp', {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://app.example.com',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type, mcp-protocol-version, mcp-method',
    },
  }),
);
assert.equal(preflight.status, 204);
assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example.com');
assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, POST, DELETE');
const foreign = await worker.fetch(
  new Request('https://mcp.example.com/mcp', {
    method: 'OPTIONS',
    headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
  }),
);
assert.equal(foreign.status, 403); // no CORS headers: the browser refuses the call
const otherHost = await worker.fetch(
  new Request('https://other.example.com/mcp', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: '{}',
  }),
);
assert.equal(otherHost.status, 403); // Host not in allowedHosts
await client.close();
await handler.close();

// ---- 2025-11-25: the session endpoint has the same .fetch, HttpClientTransport the same fetch option
const sessions = createStreamableHttpHandler({
  tables: [v2025.table],
  onSession: async (transport) => {
    const s = new v2025.Server({ serverInfo: { name: 'worker', version: '1.0.0' }, capabilities: {}, handlers: {} });
    await s.connect(transport);
  },
});
const legacyClient = new v2025.Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const info = await legacyClient.connect(
  new HttpClientTransport({
    url: 'http://localhost/mcp',
    fetch: (input, init) => sessions.fetch(new Request(input, init)),
  }),
);
assert.equal(info.protocolVersion, '2025-11-25');
assert.deepEqual(await legacyClient.ping(), {});
await legacyClient.close();
await sessions.close();

// ---- export conditions: what @mcpgen/runtime resolves to under the worker condition
const resolve = (conditions: string[], specifier: string) =>
  execFileSync(
    process.execPath,
    [
      ...conditions,
      '--input-type=module',
      '-e',
      `try { console.log(import.meta.resolve(${JSON.stringify(specifier)})) } catch (e) { console.log(e.code) }`,
    ],
    { encoding: 'utf8' },
  ).trim();
assert.match(resolve(['--conditions=worker'], '@mcpgen/runtime'), /\/runtime\/web\.[jt]s$/);
assert.match(resolve([], '@mcpgen/runtime'), /\/runtime\/index\.[jt]s$/);
assert.equal(resolve(['--conditions=worker'], '@mcpgen/runtime/stdio'), 'ERR_PACKAGE_PATH_NOT_EXPORTED');

console.log('ok web');
