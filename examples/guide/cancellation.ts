// docs/guide/cancellation.md: the caller gives up on a request; the handler sees it and stops.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v2025 from '../../generated/2025-11-25/index.js';
import * as draft from '../../generated/draft/index.js';
import { RequestAbortedError, RequestTimeoutError } from '@mcpgen/runtime/jsonrpc';
import type { RequestContext } from '@mcpgen/runtime/engine';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { StatelessHttpClientTransport, createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';
import { createMemoryPair } from '@mcpgen/runtime/memory';

// a handler that works until it is cancelled, and says why it stopped
const stopped: string[] = [];
let started!: () => void;
let running = new Promise<void>((resolve) => (started = resolve));
async function work(ctx: RequestContext): Promise<string> {
  started();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 60_000);
    ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
  stopped.push(ctx.signal.aborted ? 'cancelled' : 'finished');
  return 'done'; // after a cancellation no response is sent
}
const nextRun = () => (running = new Promise<void>((resolve) => (started = resolve)));
/** Waits (up to 2 s) until the handler has stopped `n` times. */
async function stoppedTimes(n: number): Promise<void> {
  for (let i = 0; i < 200 && stopped.length < n; i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

const features = new ServerFeatures<v2025.Protocol>();
features.tool({ name: 'crawl', inputSchema: { type: 'object' }, handler: (_args, ctx) => work(ctx) });
const server = new v2025.Server({
  serverInfo: { name: 'crawler', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers(),
});
const client = new v2025.Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
await client.connect(clientSide);

// abort: the client sends notifications/cancelled and rejects at once with RequestAbortedError (-32800)
const ac = new AbortController();
const call = client.callTool({ name: 'crawl', arguments: {} }, { signal: ac.signal });
await running;
ac.abort('the user pressed stop');
await assert.rejects(call, (e: unknown) => e instanceof RequestAbortedError && e.code === -32800);

// a timeout cancels the same way: RequestTimeoutError (-32001)
nextRun();
await assert.rejects(
  client.callTool({ name: 'crawl', arguments: {} }, { timeout: 200 }),
  (e: unknown) => e instanceof RequestTimeoutError && e.timeoutMs === 200,
);
await stoppedTimes(2); // the notification reaches the server
console.log(stopped); // [ 'cancelled', 'cancelled' ]
assert.deepEqual(stopped, ['cancelled', 'cancelled']);
await client.close();

// draft over stateless HTTP: aborting closes the request's HTTP response, which cancels it
stopped.length = 0;
nextRun();
const modernFeatures = new ServerFeatures<draft.Protocol>();
modernFeatures.tool({ name: 'crawl', inputSchema: { type: 'object' }, handler: (_args, ctx) => work(ctx) });
const handler = createStatelessHttpHandler({ tables: [draft.table] });
const modernServer = new draft.Server({
  serverInfo: { name: 'crawler', version: '1.0.0' },
  capabilities: modernFeatures.capabilities(),
  handlers: modernFeatures.handlers({ table: draft.table }),
});
await modernServer.connect(handler.transport);
const http = createServer(handler);
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const modern = new draft.Client({ clientInfo: { name: 'app', version: '1.0.0' } });
await modern.connect(
  new StatelessHttpClientTransport({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` }),
);
const stop = new AbortController();
const modernCall = modern.callTool({ name: 'crawl', arguments: {} }, { signal: stop.signal });
await running;
stop.abort();
await assert.rejects(modernCall, (e: unknown) => e instanceof RequestAbortedError);
await stoppedTimes(1);
assert.deepEqual(stopped, ['cancelled']);

await modern.close();
await handler.close();
await modernServer.close();
http.closeAllConnections();
await new Promise<void>((resolve) => http.close(() => resolve()));
console.log('ok cancellation');
