/**
 * Issue 44, request replay and the negotiated revision: a request is claimed for replay only in
 * a session whose revision starts its streams with a priming event (2025-11-25: the event the
 * claim's cursor names), so only there does the `initialize` result advertise
 * `capabilities.experimental["mcpgen/requestReplay"]`. Elsewhere (2025-03-26 with its JSON-RPC
 * batches, 2025-06-18) it is not advertised, and a client does not re-send: an identical re-send
 * there would run again. The property, for each revision the server negotiates: advertised
 * exactly when an identical re-send of a request, and of a 2025-03-26 batch, runs it once.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Obj, runs } from './replay-kit.js';
import {
  messagesOf,
  post,
  readSse,
  req,
  startServer,
  type TestServer,
} from '../runtime/transport/http/session/helpers.js';

let server: TestServer;
test.before(async () => {
  server = await startServer({
    requestReplay: true,
    allowedHosts: ['127.0.0.1'],
    acceptsBatches: (v) => v === '2025-03-26',
  });
});
test.after(async () => {
  await server?.close();
});

/** A session negotiated at `rev`: its id and whether its `initialize` result advertises request replay. */
async function openAt(rev: string): Promise<{ sid: string; advertised: boolean }> {
  const res = await post(server.url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: rev, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const sid = res.headers.get('mcp-session-id')!;
  const type = res.headers.get('content-type') ?? '';
  const body = type.includes('event-stream') ? (messagesOf(await readSse(res))[0] as Obj) : ((await res.json()) as Obj);
  const result = body.result as Obj;
  assert.is(result.protocolVersion, rev);
  const experimental = (result.capabilities as Obj).experimental as Obj | undefined;
  const ack = await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers(sid, rev));
  await ack.text();
  return { sid, advertised: experimental !== undefined && Object.hasOwn(experimental, 'mcpgen/requestReplay') };
}

const headers = (sid: string, rev: string) => ({ 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': rev });

for (const rev of ['2025-03-26', '2025-06-18', '2025-11-25']) {
  test(`${rev}: request replay advertised exactly when an identical re-send runs once`, async () => {
    const { sid, advertised } = await openAt(rev);
    const id = 100 + Number(rev.slice(-2));
    const message = req(id, 'slow', { delayMs: 1 });
    for (let i = 0; i < 2; i++) await (await post(server.url, message, headers(sid, rev))).text();
    const once = runs(server.log, id, 'slow') === 1;
    assert.is(advertised, once, `advertised ${advertised}, ran ${runs(server.log, id, 'slow')} times`);
    assert.is(advertised, rev === '2025-11-25');
    if (rev !== '2025-03-26') return;
    // a re-sent batch: each of its requests runs again, so nothing is advertised in the session
    const batch = [req(id + 1000, 'slow', { delayMs: 1 }), req(id + 1001, 'slow', { delayMs: 1 })];
    for (let i = 0; i < 2; i++) {
      const res = await post(server.url, batch, headers(sid, rev));
      assert.is(res.status, 200);
      await res.text();
    }
    assert.is(runs(server.log, id + 1000, 'slow') === 1, advertised);
  });
}

test.run();
