// Guide: several-processes (docs/guide/several-processes.md). Two Streamable HTTP endpoints
// (2025-11-25), each with its own connection to one Redis, as two processes behind a load
// balancer would be: a session initialized on one is served by the other, a sampling answer
// POSTed to one reaches the tool waiting on the other, a DELETE on one ends it on both.
// It starts its own redis-server on a free port of 127.0.0.1 and stops it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Server, table, type Protocol } from '../../generated/2025-11-25/index.js';
import { createStreamableHttpHandler, HttpClientTransport } from '@mcpgen/runtime/http';
import { ServerFeatures } from '@mcpgen/runtime';
import { connectRedisStores, type RedisStores } from '@mcpgen/runtime/stores/redis';

// ---- a throwaway redis-server (no persistence) on a free port
const listen = (server: HttpServer) =>
  new Promise<number>((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));
const probe = createServer();
const redisPort = await listen(probe);
await new Promise((done) => probe.close(done));
const redis = spawn(
  'redis-server',
  ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const redisExited = new Promise((done) => redis.once('exit', done));
await new Promise<void>((ready, failed) => {
  // its log says when it accepts connections
  let log = '';
  redis.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    if ((log += chunk).includes('Ready to accept connections')) ready();
  });
  redis.once('exit', (code) => failed(new Error(`redis-server exited (${code}): ${log}`)));
});
redis.stdout.resume();
const redisUrl = `redis://127.0.0.1:${redisPort}`;

// ---- one endpoint, as each process runs it
const open: { stores: RedisStores; http: HttpServer }[] = [];
async function startEndpoint(name: string): Promise<string> {
  const features = new ServerFeatures<Protocol>();
  features.tool({
    name: 'ask',
    description: 'Asks the client for a completion (sampling) and says which process ran it',
    handler: async (_args, ctx) => {
      const answer = await ctx.sendRequest<{ content: { type: string; text?: string } }>('sampling/createMessage', {
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
        maxTokens: 10,
      });
      return { content: [{ type: 'text', text: `${name}: ${answer.content.text}` }] };
    },
  });
  const stores = await connectRedisStores(redisUrl, { sessionIdleMs: 1_800_000, maxSessions: 10_000 });
  const handler = createStreamableHttpHandler({
    tables: [table],
    onSession: async (transport, info) => {
      const session = new Server({
        serverInfo: { name: 'shared', version: '1.0.0' },
        capabilities: features.capabilities(),
        handlers: features.handlers({ table }),
      });
      await session.connect(transport);
      if (info.restored) session.adoptHandshake(info.restored); // initialized by another process
    },
    shared: { sessions: stores.sessions, bus: stores.bus },
    eventStore: () => stores.events,
  });
  const http = createServer(handler);
  open.push({ stores, http });
  return `http://127.0.0.1:${await listen(http)}/mcp`;
}

try {
  const endpoints = [await startEndpoint('a'), await startEndpoint('b')];

  // ---- a round-robin load balancer (no sticky sessions), here as the client's fetch
  const served: string[] = []; // "<endpoint> <what>" per request, in order
  let next = 0;
  const roundRobin: typeof fetch = (_input, init) => {
    const i = next++ % endpoints.length;
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    served.push(`${'ab'[i]} ${init?.method ?? 'GET'} ${body ? (body.method ?? 'response') : ''}`.trim());
    return fetch(endpoints[i], init);
  };

  const client = new Client({
    clientInfo: { name: 'app', version: '1.0.0' },
    capabilities: { sampling: {} },
    handlers: {
      'sampling/createMessage': () => ({ role: 'assistant', model: 'test', content: { type: 'text', text: 'hi' } }),
    },
  });
  const transport = new HttpClientTransport({ url: endpoints[0], fetch: roundRobin });
  await client.connect(transport);
  assert.equal(served[0], 'a POST initialize');

  // each call lands on either process; the one running the tool awaits the sampling answer,
  // which the client POSTs to whichever process the balancer picks next
  served.length = 0;
  const first = await client.callTool({ name: 'ask', arguments: {} });
  const second = await client.callTool({ name: 'ask', arguments: {} });
  const ranOn = [first, second].map((r) => (r.content[0] as { text: string }).text);
  assert.deepEqual(ranOn.sort(), ['a: hi', 'b: hi']); // both processes served the session
  // and a sampling answer reached the tool through the other process (over the Redis bus)
  const crossed = served.some(
    (entry, i) => entry.endsWith('tools/call') && served.slice(i).find((e) => e.endsWith('response'))?.[0] !== entry[0],
  );
  assert.ok(crossed, served.join('; '));

  // the session record is in Redis: a DELETE through one process ends it on both
  const sessionId = transport.sessionId;
  assert.ok(sessionId);
  await client.close();
  for (const url of endpoints) {
    const r: Response = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
        'Mcp-Session-Id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await r.arrayBuffer();
    assert.equal(r.status, 404);
  }
} finally {
  for (const { stores, http } of open) {
    http.closeAllConnections();
    await new Promise((done) => http.close(done));
    await stores.close();
  }
  redis.kill('SIGTERM');
  await redisExited;
}

console.log('ok several-processes');
