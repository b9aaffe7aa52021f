/**
 * An HTTP endpoint is refused when it is built with a table of the other era, naming both: the
 * stateless endpoint given the 2025-11-25 table (it would refuse that revision's own clients
 * with "Unsupported protocol version … serves 2025-11-25"), the Streamable HTTP endpoint given a
 * stateless revision's table, and a server session of one era connected to the other era's
 * transport. The combinations that fit still serve.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as v2025 from '../../../../../generated/2025-11-25/index.js';
import * as v2026 from '../../../../../generated/2026-07-28/index.js';
import { createStreamableHttpHandler } from '../../../../../runtime/transport/http/session/index.js';
import {
  StatelessHttpClientTransport,
  createStatelessHttpHandler,
} from '../../../../../runtime/transport/http/stateless/index.js';

const serverInfo = { name: 's', version: '1' };

/** The message of what `f` throws (a TypeError), or a failure when it does not throw. */
function thrown(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.instance(e, TypeError);
    return (e as Error).message;
  }
  assert.unreachable('no error thrown');
  return '';
}

test('the stateless endpoint given the 2025-11-25 table is refused when built, naming both', () => {
  const message = thrown(() => createStatelessHttpHandler({ tables: [v2025.table] }));
  assert.match(message, /^createStatelessHttpHandler serves the stateless revisions/);
  assert.match(message, 'cannot serve revision 2025-11-25');
  assert.match(message, 'createStreamableHttpHandler');
  // one table of the wrong era among right ones is refused too
  const mixed = thrown(() => createStatelessHttpHandler({ tables: [v2026.table, v2025.table] }));
  assert.match(mixed, 'cannot serve revision 2025-11-25');
  assert.not.match(mixed, '2026-07-28');
});

test('the Streamable HTTP endpoint given a stateless table is refused when built, naming both', () => {
  const message = thrown(() => createStreamableHttpHandler({ tables: [v2026.table], onSession: () => {} }));
  assert.match(message, /^createStreamableHttpHandler serves the handshake revisions/);
  assert.match(message, 'cannot serve revision 2026-07-28');
  assert.match(message, 'createStatelessHttpHandler');
});

test("a 2025-11-25 server connected to the stateless endpoint's transport is refused, naming both", async () => {
  const endpoint = createStatelessHttpHandler({ supportedVersions: ['2025-11-25'] });
  const server = new v2025.Server({ serverInfo, logger: {} });
  const e = await server.connect(endpoint.transport).then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, TypeError);
  assert.match(
    (e as Error).message,
    /^StatelessHttpServerTransport serves the stateless revisions .* cannot serve revision 2025-11-25/,
  );
  await endpoint.close();
});

test('the combinations that fit serve: a 2026-07-28 client calls the stateless endpoint', async () => {
  const endpoint = createStatelessHttpHandler({ tables: [v2026.table] });
  await new v2026.Server({ serverInfo, logger: {} }).connect(endpoint.transport);
  const http = createServer(endpoint);
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const client = new v2026.Client({ clientInfo: { name: 'c', version: '1' } });
  try {
    const description = await client.connect(new StatelessHttpClientTransport({ url }));
    assert.is(description?.serverInfo?.name, 's');
    assert.ok((await client.discover({})).supportedVersions.includes('2026-07-28'));
  } finally {
    await client.close();
    await endpoint.close();
    http.closeAllConnections();
    await new Promise<void>((done) => http.close(() => done()));
  }
});

test.run();
