/**
 * A draft server checks a handler's complete `tools/call` result against CallToolResult (the
 * table's `complete`), not the union with InputRequiredResult: a `tools/call` handler returning
 * `{}` (read as `{"resultType":"complete"}`) is answered -32603 and logged, as a 2025-11-25 server
 * answers it, for the same handler served to both eras (the dual-era endpoint on a real node:http
 * server; the draft client in both transport forms).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../generated/draft/index.js';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { createDualEraHttpHandler } from '../../../runtime/stateless/dual-era.js';
import { createStatelessHttpHandler } from '../../../runtime/transport/http/stateless/server.js';
import { createStreamableHttpHandler } from '../../../runtime/transport/http/session/server.js';
import { StatelessHttpClientTransport } from '../../../runtime/transport/http/stateless/node-client.js';
import { HttpClientTransport } from '../../../runtime/transport/http/session/node-client.js';
import { SESSION_TABLES, STATELESS_TABLES } from '../transport/http/tables.js';

/** What the servers logged as errors. */
const logged: string[] = [];
const logger = { error: (m: string) => void logged.push(m) };
let http: HttpServer;
let url = '';
let modernServer: draft.Server;

test.before(async () => {
  const f = new ServerFeatures();
  f.tool({ name: 'empty', handler: () => 'listed' });
  const modern = createStatelessHttpHandler({ tables: STATELESS_TABLES, toolSchema: (n) => f.inputSchema(n) });
  modernServer = new draft.Server({
    serverInfo: { name: 'dual', version: '1' },
    capabilities: f.capabilities(),
    handlers: { ...f.handlers({ table: draft.table }), 'tools/call': () => ({}) } as never,
    logger,
  });
  f.attach(modernServer);
  await modernServer.connect(modern.transport);
  const legacy = createStreamableHttpHandler({
    tables: SESSION_TABLES,
    onSession: async (t) => {
      const s = new v2025.Server({
        serverInfo: { name: 'dual', version: '1' },
        capabilities: f.capabilities(),
        handlers: { ...f.handlers({ table: v2025.table }), 'tools/call': () => ({}) } as never,
        logger,
      });
      f.attach(s);
      await s.connect(t);
    },
  });
  http = createServer(createDualEraHttpHandler({ modern, legacy }) as never);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
test.after(async () => {
  await modernServer.close();
  http.closeAllConnections();
  await new Promise<void>((r) => http.close(() => r()));
});

async function call(era: 'draft-node' | 'draft-fetch' | '2025', name: string): Promise<string> {
  const c =
    era === '2025'
      ? new v2025.Client({ clientInfo: { name: 'c', version: '1' } })
      : new draft.Client({ clientInfo: { name: 'c', version: '1' } });
  const options = { url, ...(era === 'draft-fetch' ? { fetch: globalThis.fetch } : {}) };
  await c.connect(era === '2025' ? new HttpClientTransport(options) : new StatelessHttpClientTransport(options));
  try {
    return await c.callTool({ name, arguments: {} }, { timeout: 5000 }).then(
      (r) => `resolved ${JSON.stringify(r)}`,
      (e: Error & { code?: number }) => `${e.name} ${e.code} ${e.message}`,
    );
  } finally {
    await c.close();
  }
}

for (const era of ['draft-node', 'draft-fetch'] as const) {
  test(`${era}: a tool returning {} is answered -32603 and logged, as the 2025-11-25 server answers it`, async () => {
    logged.length = 0;
    const mine = await call(era, 'empty');
    const theirs = await call('2025', 'empty');
    const want = 'RpcError -32603 Internal error: tool empty returned a result that is not a valid tools/call result';
    assert.is(mine, want);
    assert.is(theirs, want);
    assert.equal(logged, ['handler result fails the result schema', 'handler result fails the result schema']);
  });
}

test.run();
