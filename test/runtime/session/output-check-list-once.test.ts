/**
 * The output check's own `tools/list` (runtime/session/client.ts: listed after a session's first
 * `tools/call` result when the tool's outputSchema is unknown) is sent once: a server that
 * refuses it (a drain: 503 with `Retry-After`) or is gone (its process exited after it wrote the
 * result: connection refused) does not hold the call's result for the transport's retries; the
 * result comes unchecked, the warning logged, and the listing is not asked again. Both eras
 * (session transport: 2025-11-25 client; stateless transport: draft client), both forms
 * (node:http, fetch), against the real dual-era endpoint on 127.0.0.1. The attempts are counted
 * (by the server for a refusal; by the client's fetch or Agent for a server gone), not timed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent } from 'node:http';
import * as draft from '../../../generated/draft/index.js';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../../runtime/transport/http/stateless/node-client.js';
import { startDualEraBehind } from '../transport/http/stateless/helpers.js';

type Mode = 'refuse' | 'gone';

/** The dual-era endpoint behind a front that, once `armed`, refuses `tools/list` (503 + Retry-After) or closes after the `tools/call` result. */
async function start(mode: Mode) {
  const seen = { lists: 0, armed: false, gone: false };
  const s = await startDualEraBehind((method, _req, res) => {
    if (method === 'tools/list' && seen.armed) {
      seen.lists++;
      if (mode === 'refuse') {
        res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' }).end('draining');
        return true;
      }
    }
    // no connection is kept (fetch's pool included): the listing needs a new one, refused once the server is gone
    if (mode === 'gone') res.setHeader('connection', 'close');
    if (method === 'tools/call' && seen.armed && mode === 'gone') {
      res.on('finish', () => {
        seen.gone = true;
        s.http.close();
      });
    }
    return false;
  });
  return { ...s, seen };
}

/** A client of `era` over `form`; `attempts()` counts the POSTs of tools/list it made after the server was gone. */
function client(era: 'session' | 'stateless', form: 'node:http' | 'fetch', url: string, seen: { gone: boolean }) {
  const warnings: unknown[][] = [];
  let attempts = 0;
  const fetch: typeof globalThis.fetch = (input, init) => {
    if (seen.gone && String(init?.body).includes('"tools/list"')) attempts++;
    return globalThis.fetch(input, init);
  };
  // node:http: each POST opens a connection of its own (none kept), so each attempt on a server
  // gone is one connection opened (a session's GET stream keeps its own, still open)
  const agent = new Agent({ keepAlive: false });
  const open = (agent as unknown as { createConnection: (...a: unknown[]) => unknown }).createConnection;
  (agent as unknown as { createConnection: (...a: unknown[]) => unknown }).createConnection = function (...a) {
    if (seen.gone) attempts++;
    return open.apply(this, a);
  };
  const options = { url, ...(form === 'fetch' ? { fetch } : { agent }) };
  const logger = { warn: (...a: unknown[]) => void warnings.push(a), info() {}, debug() {}, error() {} };
  const c =
    era === 'session'
      ? new v2025.Client({ clientInfo: { name: 'c', version: '1' }, logger: logger as never })
      : new draft.Client({ clientInfo: { name: 'c', version: '1' }, logger: logger as never });
  const transport = era === 'session' ? new HttpClientTransport(options) : new StatelessHttpClientTransport(options);
  return { c, transport, warnings, attempts: () => attempts, agent };
}

for (const era of ['session', 'stateless'] as const)
  for (const form of ['node:http', 'fetch'] as const) {
    test(`${era}, ${form}: tools/list refused with 503 + Retry-After after the first call → sent once, the result unchecked`, async () => {
      const s = await start('refuse');
      const { c, transport, warnings, agent } = client(era, form, s.url, s.seen);
      try {
        await c.connect(transport);
        s.seen.armed = true;
        const r = (await c.callTool({ name: 'echo', arguments: { text: 'hi' } } as never)) as {
          content: { text: string }[];
        };
        assert.is(r.content[0].text, 'hi');
        assert.is(s.seen.lists, 1, 'tools/list attempts the server saw');
        assert.is(warnings.length, 1);
        assert.match(String(warnings[0][0]), /tools\/list failed/);
        await c.callTool({ name: 'echo', arguments: { text: 'again' } } as never);
        assert.is(s.seen.lists, 1, 'not asked again until list_changed');
      } finally {
        await c.close();
        agent.destroy();
        await s.close();
      }
    });

    test(`${era}, ${form}: the server gone after it wrote the result → tools/list sent once, the result unchecked`, async () => {
      const s = await start('gone');
      const { c, transport, warnings, attempts, agent } = client(era, form, s.url, s.seen);
      try {
        await c.connect(transport);
        s.seen.armed = true;
        const r = (await c.callTool({ name: 'echo', arguments: { text: 'bye' } } as never)) as {
          content: { text: string }[];
        };
        assert.is(r.content[0].text, 'bye');
        assert.ok(s.seen.gone);
        assert.is(attempts(), 1, 'tools/list attempts after the server was gone');
        assert.is(warnings.length, 1);
      } finally {
        await c.close().catch(() => {});
        agent.destroy();
        await s.close().catch(() => {});
      }
    });
  }

test.run();
