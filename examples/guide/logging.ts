// Guide: logging (docs/guide/logging.md). The client sets a level (2025-11-25: logging/setLevel;
// draft: per request in _meta), the server's messages at or above it arrive as notifications/message.
import assert from 'node:assert/strict';
import { Client, Server, table, type Protocol } from '../../generated/2025-11-25/index.js';
import * as draft from '../../generated/draft/index.js';
import { ServerFeatures, createMemoryPair, RpcError, type LogLevel } from '@mcpgen/runtime';

// the revision's levels, least severe first, as its schema lists them
const levels = table.loggingLevels as readonly LogLevel[];
assert.deepEqual(levels, ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'build',
  description: 'Logs one message at every level while it works',
  handler: async (_args, ctx) => {
    const sent: string[] = [];
    for (const level of levels) if (await ctx.log(level, { step: level }, 'builder')) sent.push(level);
    return { content: [{ type: 'text', text: sent.join(',') }] };
  },
});

const server = new Server({
  serverInfo: { name: 'logging-demo', version: '1.0.0' },
  capabilities: { ...features.capabilities(), logging: {} }, // declare logging: setLevel is then answered
  handlers: features.handlers({ table }),
});
const received: { level: string; logger?: string; data: unknown }[] = [];
const client = new Client({
  clientInfo: { name: 'app', version: '1.0.0' },
  notificationHandlers: { 'notifications/message': (params) => void received.push(params) },
});
const [clientEnd, serverEnd] = createMemoryPair();
await server.connect(serverEnd);
await client.connect(clientEnd);

await client.setLevel({ level: 'warning' });
const result = await client.callTool({ name: 'build', arguments: {} });
assert.deepEqual(result.content, [{ type: 'text', text: 'warning,error,critical,alert,emergency' }]);
assert.deepEqual(
  received.map((m) => m.level),
  ['warning', 'error', 'critical', 'alert', 'emergency'],
);
assert.deepEqual(received[0], { level: 'warning', logger: 'builder', data: { step: 'warning' } });

// outside a request: server.log() uses the same threshold
assert.equal(await server.log('info', 'cache warmed'), false); // below 'warning': not sent
assert.equal(await server.log('error', 'disk almost full'), true);
await client.ping(); // the notification has arrived once a later answer has
assert.deepEqual(received.at(-1), { level: 'error', data: 'disk almost full' });

// a level the revision does not define is refused with -32602
const refused = await client.setLevel({ level: 'verbose' as LogLevel }).then(
  () => undefined,
  (e: unknown) => e,
);
assert.ok(refused instanceof RpcError && refused.code === -32602);
await client.close();
await server.close();

// draft (stateless): no logging/setLevel; each request names its level in _meta
const modern = new ServerFeatures<draft.Protocol>();
modern.tool({
  name: 'build',
  handler: async (_args, ctx) => {
    for (const level of levels) await ctx.log(level, { step: level });
    return { content: [{ type: 'text', text: 'built' }] };
  },
});
const draftServer = new draft.Server({
  serverInfo: { name: 'logging-demo', version: '1.0.0' },
  capabilities: { ...modern.capabilities(), logging: {} },
  handlers: modern.handlers({ table: draft.table }),
});
const draftLog: string[] = [];
const draftClient = new draft.Client({
  clientInfo: { name: 'app', version: '1.0.0' },
  notificationHandlers: { 'notifications/message': (params) => void draftLog.push(params.level) },
});
const [c2, s2] = createMemoryPair();
await draftServer.connect(s2);
await draftClient.connect(c2);
assert.equal('logging/setLevel' in draft.table.requests.clientToServer, false);

await draftClient.callTool({ name: 'build', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'error' } });
assert.deepEqual(draftLog, ['error', 'critical', 'alert', 'emergency']); // all before the result
await draftClient.callTool({ name: 'build', arguments: {} }); // no level in _meta: no messages
assert.equal(draftLog.length, 4);
await draftClient.close();
await draftServer.close();

console.log('ok logging');
