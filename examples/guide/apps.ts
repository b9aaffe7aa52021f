// Guide: apps (docs/guide/apps.md). MCP Apps on MCP 2026-07-28: a server with a UI resource and
// the tools linked to it (`extensions` in server/discover, the client's per-request capability
// read by the tool), a host that calls the UI tool and serves the view with AppHost, and the view
// (App) on the other end of the channel; here the channel is an in-memory pair, in a browser it
// is the postMessage transport of mountAppFrame (test/apps/browser.test.ts runs examples/apps/).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APPS_EXTENSION, App, AppHost, clientRendersApps, withAppsCapability } from '@mcpgen/runtime/apps';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { StatelessHttpClientTransport, createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';
import { createMemoryPair } from '@mcpgen/runtime/memory';
import { RpcError } from '@mcpgen/runtime';
import { Client, Server, table, type Protocol } from '../../generated/2026-07-28/index.js';
import {
  appsTable,
  type AppClientCapabilities,
  type AppTool,
  type AppsProtocol,
} from '../../generated/2026-07-28/apps/index.js';

// ---- the server: a UI resource and the tools linked to it ----
const features = new ServerFeatures<Protocol>();
features.appResource({
  uri: 'ui://board/view.html',
  name: 'board',
  html: '<!doctype html><html><body><script type="module">/* the view bundle */</script></body></html>',
  ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true },
});
features.appTool({
  name: 'show_board',
  inputSchema: { type: 'object', properties: { team: { type: 'string' } }, required: ['team'] },
  ui: { resourceUri: 'ui://board/view.html' },
  handler: ({ team }, ctx) => ({
    content: [{ type: 'text', text: `${team}: 3 open tasks` }],
    // a client that renders views gets the data the view draws
    structuredContent: clientRendersApps(ctx) ? { team, open: 3 } : undefined,
  }),
});
features.appTool({
  name: 'close_task',
  inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
  ui: { resourceUri: 'ui://board/view.html', visibility: ['app'] }, // for the view only
  handler: ({ id }) => ({ content: [{ type: 'text', text: `closed ${id}` }] }),
});
features.appTool({
  name: 'wipe_board',
  inputSchema: { type: 'object' },
  ui: { visibility: ['model'] }, // never from a view
  handler: () => ({ content: [{ type: 'text', text: 'wiped' }] }),
});
const server = new Server({
  serverInfo: { name: 'board', version: '1.0.0' },
  capabilities: withAppsCapability(features.capabilities()), // + extensions["io.modelcontextprotocol/ui"]
  handlers: features.handlers({ table }),
});
const endpoint = createStatelessHttpHandler({ tables: [table], toolSchema: (name) => features.inputSchema(name) });
await server.connect(endpoint.transport);
const http = createServer(endpoint);
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

// ---- the host's MCP client: declares that it renders views ----
const capabilities: AppClientCapabilities = {
  extensions: { [APPS_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] } },
};
const client = new Client({ clientInfo: { name: 'desk', version: '1.0.0' }, capabilities });
await client.connect(new StatelessHttpClientTransport({ url }));
assert.deepEqual(client.server?.capabilities.extensions, { [APPS_EXTENSION]: {} });

const tools = (await client.listTools({})).tools as AppTool[];
const show = tools.find((t) => t.name === 'show_board')!;
assert.equal(show._meta?.ui?.resourceUri, 'ui://board/view.html');
const result = await client.callTool({ name: 'show_board', arguments: { team: 'core' } });
assert.deepEqual(result.structuredContent, { team: 'core', open: 3 });
const read = await client.readResource({ uri: 'ui://board/view.html' });
assert.equal(read.contents[0].mimeType, 'text/html;profile=mcp-app');

// ---- the host's bridge and the view, on the two ends of a channel ----
const [hostEnd, viewEnd] = createMemoryPair();
const host = new AppHost<AppsProtocol>({
  table: appsTable,
  hostInfo: { name: 'desk', version: '1.0.0' },
  hostCapabilities: { serverTools: {}, message: { text: {} } },
  hostContext: { theme: 'dark', displayMode: 'inline' },
  server: { request: (method, params, options) => client.request(method as never, params as never, options) },
});
const said: string[] = [];
host.onmessage = async ({ content }) => {
  said.push(content.map((c) => ('text' in c ? c.text : '')).join(''));
  return {};
};
await host.connect(hostEnd);

const view = new App<AppsProtocol>({ table: appsTable, appInfo: { name: 'board-view', version: '1.0.0' } });
const drawn = new Promise<string>((resolve) => {
  view.ontoolresult = (r) => resolve(JSON.stringify(r.structuredContent));
});
const init = await view.connect(viewEnd);
assert.equal(init.hostInfo.name, 'desk');
assert.equal(view.hostContext.theme, 'dark');

await host.sendToolInput({ arguments: { team: 'core' } });
await host.sendToolResult(result);
assert.equal(await drawn, '{"team":"core","open":3}');

// the view calls a tool for views through the host, and talks to the conversation
const closed = await view.callServerTool({ name: 'close_task', arguments: { id: 7 } });
assert.deepEqual(closed.content, [{ type: 'text', text: 'closed 7' }]);
await view.sendMessage({ role: 'user', content: [{ type: 'text', text: 'closed task 7' }] });
assert.deepEqual(said, ['closed task 7']);

// a tool for the model only never reaches the server from a view
const refused = await view.callServerTool({ name: 'wipe_board', arguments: {} }).catch((e: unknown) => e);
assert.ok(refused instanceof RpcError);
assert.equal(refused.code, -32602);
assert.match(refused.message, /not callable from apps/);
// nor does a request the host did not declare a capability for
const link = await view.openLink({ url: 'https://example.com' }).catch((e: unknown) => e);
assert.ok(link instanceof Error);

await view.close();
await host.close();
await client.close();
await server.close();
http.closeAllConnections();
await new Promise<void>((resolve) => http.close(() => resolve()));
console.log('ok apps');
