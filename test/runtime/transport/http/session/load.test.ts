/**
 * Bounded loopback load: 200 generated Clients, each on its own Streamable HTTP session against
 * `serve --http` (in-process), make 50 calls each, all clients at once. Every call must get its
 * own answer: nothing lost, nothing crossed between requests or sessions.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../../../../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { loadRevision } from '../../../../../cli/revisions.js';
import { serveHttp } from '../../../../../cli/serve/http.js';

const CLIENTS = 200;
const CALLS = 50;

test(`load: ${CLIENTS} concurrent clients × ${CALLS} calls, no lost or crossed responses`, async () => {
  const served = await serveHttp(await loadRevision('2025-11-25'), { port: 0 });
  const started = Date.now();
  try {
    const results = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const transport = new HttpClientTransport({ url: served.url, standaloneStream: false });
        const client = new Client({ clientInfo: { name: `load-${c}`, version: '0' }, timeout: 120_000 });
        await client.connect(transport);
        const session = transport.sessionId;
        const wrong: string[] = [];
        // two calls in flight per client: order within the session is not assumed
        for (let i = 0; i < CALLS; i += 2) {
          const texts = [`${c}:${i}`, `${c}:${i + 1}`];
          const got = await Promise.all(texts.map((text) => client.callTool({ name: 'echo', arguments: { text } })));
          got.forEach((r, k) => {
            const t = (r.content[0] as { text?: string }).text;
            if (t !== texts[k]) wrong.push(`${texts[k]} → ${t}`);
          });
        }
        assert.is(transport.sessionId, session, 'the session did not change under load');
        await client.close();
        return { wrong, session };
      }),
    );
    const wrong = results.flatMap((r) => r.wrong);
    assert.equal(wrong, [], 'every call got its own answer');
    assert.is(new Set(results.map((r) => r.session)).size, CLIENTS, 'one session per client');
    assert.is(served.handler.sessions.size, 0, 'every session ended');
    console.log(`load: ${CLIENTS * CALLS} calls over ${CLIENTS} sessions in ${Date.now() - started} ms`);
  } finally {
    await served.close();
  }
});

test.run();
