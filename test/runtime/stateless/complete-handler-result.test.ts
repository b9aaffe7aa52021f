/**
 * A draft server checks a handler's complete `tools/call` result against CallToolResult (the
 * table's `complete`), not the union with InputRequiredResult: a `tools/call` handler returning
 * `{}` (read as `{"resultType":"complete"}`) is answered -32603 and logged, as a 2025-11-25 server
 * answers it, for the same handler served to both eras (the dual-era endpoint on a real node:http
 * server; the draft client in both transport forms).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../generated/draft/index.js';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { StatelessHttpClientTransport } from '../../../runtime/transport/http/stateless/node-client.js';
import { HttpClientTransport } from '../../../runtime/transport/http/session/node-client.js';
import { type Running, startDualEra } from '../transport/http/stateless/helpers.js';

/** What the servers logged as errors. */
const logged: string[] = [];
let s: Running;
let url = '';

test.before(async () => {
  s = await startDualEra({ handlers: { 'tools/call': () => ({}) }, logger: { error: (m) => void logged.push(m) } });
  s.features.tool({ name: 'empty', handler: () => 'listed' });
  url = s.url;
});
test.after(async () => {
  await s.close();
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
