/**
 * The client lifecycle over Streamable HTTP: the negotiated version goes out as
 * `MCP-Protocol-Version`, and case 006 end to end with the generated Client and Server — after
 * the server ends the session, a request answered 404 fails with SessionExpiredError (not
 * resent), one the server was running fails with ConnectionClosedError (may have run), the
 * client initializes a new session, and later calls use it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import { Client as Client1125, Server as Server1125 } from '../../../../../generated/2025-11-25/index.js';
import { HttpClientTransport, SessionExpiredError } from '../../../../../runtime/transport/http/session/node-client.js';
import { sleep, startServer, waitFor } from './helpers.js';

interface Seen {
  method: string;
  body: string;
  headers: Headers;
}

function server(calls: string[]): Server1125 {
  return new Server1125({
    serverInfo: { name: 'http-server', version: '1.0.0' },
    capabilities: { tools: {} },
    handlers: {
      'tools/list': () => ({ tools: [] }),
      'tools/call': async (p) => {
        calls.push(p.name);
        if (p.name === 'slow') await sleep(300);
        return { content: [{ type: 'text', text: p.name }] };
      },
    },
  });
}

test('006 the negotiated version is sent as MCP-Protocol-Version after the handshake', async () => {
  const calls: string[] = [];
  const srv = await startServer({ onSession: (t) => server(calls).connect(t) });
  const seen: Seen[] = [];
  const transport = new HttpClientTransport({
    url: srv.url,
    standaloneStream: false,
    fetch: (input, init) => {
      seen.push({ method: init?.method ?? 'GET', body: String(init?.body ?? ''), headers: new Headers(init?.headers) });
      return fetch(input, init);
    },
  });
  const client = new Client1125({ clientInfo: { name: 'c', version: '0' } });
  try {
    await client.connect(transport);
    assert.is(transport.protocolVersion, '2025-11-25');
    await client.listTools();
    const init = seen.find((s) => s.body.includes('"initialize"'))!;
    assert.is(init.headers.get('mcp-protocol-version'), null, 'initialize goes before negotiation');
    const list = seen.find((s) => s.body.includes('tools/list'))!;
    assert.is(list.headers.get('mcp-protocol-version'), '2025-11-25');
  } finally {
    await client.close();
    await srv.close();
  }
});

for (const replyMode of ['json', 'sse'] as const)
  test(`006 session expired (${replyMode} replies): the in-flight call fails typed, the client re-initializes, later calls use the new session`, async () => {
    const calls: string[] = [];
    const srv = await startServer({ replyMode, onSession: (t) => server(calls).connect(t) });
    const seen: Seen[] = [];
    const transport = new HttpClientTransport({
      url: srv.url,
      standaloneStream: false,
      fetch: (input, init) => {
        seen.push({
          method: init?.method ?? 'GET',
          body: String(init?.body ?? ''),
          headers: new Headers(init?.headers),
        });
        return fetch(input, init);
      },
    });
    const expired: string[] = [];
    transport.onSessionExpired = ({ sessionId }) => void expired.push(sessionId);
    const client = new Client1125({ clientInfo: { name: 'c', version: '0' } });
    try {
      await client.connect(transport);
      const first = transport.sessionId!;
      assert.ok(first);
      await client.callTool({ name: 'before' });
      // the server forgets the session
      await srv.handler.sessions.get(first)!.close();
      assert.is(srv.handler.sessions.has(first), false);
      seen.length = 0;
      try {
        await client.callTool({ name: 'lost' });
        assert.unreachable('the call in flight must fail');
      } catch (e) {
        assert.instance(e, SessionExpiredError);
        assert.is((e as SessionExpiredError).sessionId, first);
      }
      // a call made right after the failure waits for the new session
      const after = await client.callTool({ name: 'after' });
      assert.equal(after.content, [{ type: 'text', text: 'after' }]);
      const second = transport.sessionId!;
      assert.ok(second);
      assert.is.not(second, first);
      assert.equal(calls, ['before', 'after'], 'the lost call was not resent');
      const posts = seen
        .filter((s) => s.method === 'POST')
        .map((s) => JSON.parse(s.body) as { method?: string; params?: { name?: string } });
      assert.equal(
        posts.map((p) => (p.method === 'tools/call' ? `call ${p.params?.name}` : p.method)),
        ['call lost', 'initialize', 'notifications/initialized', 'call after'],
      );
      const init = seen.find((s) => s.body.includes('"initialize"'))!;
      assert.is(init.headers.get('mcp-session-id'), null, 'the new initialize carries no session id');
      const later = seen.filter((s) => s.body.includes('"after"'))[0];
      assert.is(later.headers.get('mcp-session-id'), second);
      assert.is(later.headers.get('mcp-protocol-version'), '2025-11-25');
      await waitFor('the onSessionExpired hook', () => expired.length > 0);
      assert.equal(expired, [first], 'a hook set before connect still runs');
      assert.is(srv.handler.sessions.size, 1);
    } finally {
      await client.close();
      await srv.close();
    }
  });

test('006 session ended while a call waits on its SSE stream: the call fails "may have run", the next call runs on a new session', async () => {
  const calls: string[] = [];
  const srv = await startServer({ replyMode: 'sse', retryMs: 10, onSession: (t) => server(calls).connect(t) });
  const transport = new HttpClientTransport({
    url: srv.url,
    standaloneStream: false,
    reconnect: { initialDelayMs: 10 },
  });
  const client = new Client1125({ clientInfo: { name: 'c', version: '0' } });
  try {
    await client.connect(transport);
    const first = transport.sessionId!;
    const slow = client.callTool({ name: 'slow' }).then(
      () => 'answered',
      (e: unknown) => e,
    );
    // the slow call is at the server (its tool runs) when the session ends
    await waitFor('the slow call at the server', () => calls.includes('slow'));
    await srv.handler.sessions.get(first)!.close();
    const outcome = await slow;
    // the tool ran: the call may have run, so it is not a SessionExpiredError ("not processed")
    assert.instance(outcome, ConnectionClosedError);
    assert.instance((outcome as Error).cause, SessionExpiredError);
    const next = await client.callTool({ name: 'next' });
    assert.equal(next.content, [{ type: 'text', text: 'next' }]);
    assert.ok(transport.sessionId);
    assert.is.not(transport.sessionId, first);
  } finally {
    await client.close();
    await srv.close();
  }
});

test.run();
