/**
 * Interop: the official TypeScript SDK's StreamableHTTPClientTransport (and Client) against
 * our server transport, over a real node:http server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpServerSession } from '../../../../../runtime/transport/http/session/server.js';
import type { JSONRPCMessage } from '../../../../../runtime/jsonrpc/transport.js';
import { sleep, startServer, waitFor } from './helpers.js';

/** Ids of the tools/call requests the peer received. */
const toolCalls: Array<string | number> = [];

/** A small MCP server peer: initialize, ping, tools/list, tools/call (progress + logs first). */
function mcpPeer(session: HttpServerSession): void {
  const send = (m: Record<string, unknown>, rel?: string | number) =>
    session
      .send({ jsonrpc: '2.0', ...m }, rel === undefined ? undefined : { relatedRequestId: rel })
      .catch(() => undefined);
  void session.start({
    async onMessage(m: JSONRPCMessage) {
      if (typeof m.method !== 'string' || m.id === undefined) return;
      const id = m.id as string | number;
      const params = (m.params ?? {}) as Record<string, any>;
      switch (m.method) {
        case 'initialize':
          await send({
            id,
            result: {
              protocolVersion: params.protocolVersion,
              capabilities: { tools: { listChanged: true }, logging: {} },
              serverInfo: { name: 'mcpgen-test', version: '0' },
            },
          });
          return;
        case 'ping':
          await send({ id, result: {} }, id);
          return;
        case 'tools/list':
          await send({ id, result: { tools: [{ name: 'count', inputSchema: { type: 'object' } }] } }, id);
          return;
        case 'tools/call': {
          toolCalls.push(id);
          const n = Number(params.arguments?.n ?? 3);
          const token = params._meta?.progressToken;
          for (let i = 1; i <= n; i++) {
            if (token !== undefined)
              await send(
                { method: 'notifications/progress', params: { progressToken: token, progress: i, total: n } },
                id,
              );
            await send({ method: 'notifications/message', params: { level: 'info', data: `step ${i}` } }, id);
            if (params.arguments?.gapMs) await sleep(Number(params.arguments.gapMs));
          }
          await send({ id, result: { content: [{ type: 'text', text: `counted to ${n}` }] } }, id);
          return;
        }
        default:
          await send({ id, error: { code: -32601, message: 'Method not found' } }, id);
      }
    },
    onClose() {},
  });
}

async function sdkClient(
  url: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; logs: string[]; listChanged: number[] }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    reconnectionOptions: {
      initialReconnectionDelay: 5,
      maxReconnectionDelay: 50,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 20,
    },
  });
  const client = new Client({ name: 'sdk-interop', version: '0' });
  const logs: string[] = [];
  const listChanged: number[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged.push(Date.now()));
  await client.connect(transport);
  return { client, transport, logs, listChanged };
}

for (const replyMode of ['auto', 'json', 'sse'] as const) {
  test(`SDK client ↔ our server (${replyMode}): initialize, ping, tools, progress, server-initiated, DELETE`, async () => {
    const srv = await startServer({ replyMode, onSession: mcpPeer });
    // the answers to the GETs the server receives (the SDK's standalone stream)
    const gets: ServerResponse[] = [];
    srv.server.prependListener('request', (req, res) => void (req.method === 'GET' && gets.push(res)));
    try {
      const { client, transport, logs, listChanged } = await sdkClient(srv.url);
      assert.ok(transport.sessionId);
      assert.is(srv.sessions[0].protocolVersion, '2025-11-25');
      assert.is(client.getServerVersion()?.name, 'mcpgen-test');
      await client.ping();
      const tools = await client.listTools();
      assert.equal(
        tools.tools.map((t) => t.name),
        ['count'],
      );
      const progress: number[] = [];
      const result = await client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, {
        onprogress: (p) => void progress.push(p.progress),
      });
      assert.equal(result.content, [{ type: 'text', text: 'counted to 3' }]);
      if (replyMode !== 'json') {
        assert.equal(progress, [1, 2, 3]);
        assert.equal(logs, ['step 1', 'step 2', 'step 3']);
      }
      // Server-initiated, on the standalone GET stream, once the SDK holds it (answered 200, headers sent)
      await waitFor("the SDK client's standalone GET stream", () =>
        gets.some((res) => res.statusCode === 200 && res.headersSent),
      );
      await srv.sessions[0].send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      await waitFor('the list_changed notification', () => listChanged.length > 0);
      assert.is(listChanged.length, 1);
      await transport.terminateSession();
      assert.is(srv.handler.sessions.size, 0);
      await client.close();
    } finally {
      await srv.close();
    }
  });
}

test('SDK client resumes our POST stream after the server drops the connection (priming + retry + Last-Event-ID)', async () => {
  const srv = await startServer({ replyMode: 'sse', retryMs: 10, onSession: mcpPeer });
  try {
    const { client, logs } = await sdkClient(srv.url);
    const call = client.callTool({ name: 'count', arguments: { n: 12, gapMs: 10 } });
    let drops = 0;
    for (let i = 0; i < 4; i++) {
      // a step over the (resumed) stream: it is open, so the drop cuts a live connection
      const seen = logs.length;
      await waitFor(`step ${seen + 1} over the POST stream`, () => logs.length > seen);
      await srv.sessions[0].closeSseConnection(toolCalls[toolCalls.length - 1]);
      drops++;
    }
    const result = await call;
    assert.equal(result.content, [{ type: 'text', text: 'counted to 12' }]);
    assert.equal(
      logs,
      Array.from({ length: 12 }, (_, i) => `step ${i + 1}`),
    );
    assert.is(drops, 4);
    await client.close();
  } finally {
    await srv.close();
  }
});

test.run();
