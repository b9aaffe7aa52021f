/**
 * Interop over Streamable HTTP with @modelcontextprotocol/sdk 1.32.2, both ways, JSON and SSE
 * reply modes: the SDK's Client + StreamableHTTPClientTransport against `mcpgen serve --http`
 * (the reference server on the generated Server), and the generated Client +
 * HttpClientTransport against an SDK McpServer on StreamableHTTPServerTransport.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import * as gen from '../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { loadRevision } from '../../cli/revisions.js';
import { serveHttp } from '../../cli/serve/http.js';
import { STATIC_TEXT } from '../../reference/server.js';

for (const reply of ['json', 'sse'] as const) {
  test(`SDK client → serve --http (${reply} replies): tools, progress, logging, sampling, elicitation, resources, prompts, resumption`, async () => {
    const served = await serveHttp(await loadRevision('2025-11-25'), { port: 0, replyMode: reply, retryMs: 20 });
    const sdk = new SdkClient({ name: 'sdk-http', version: '0' }, { capabilities: { sampling: {}, elicitation: {} } });
    const logs: string[] = [];
    sdk.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
    sdk.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'sdk says hi' },
      model: 'm',
    }));
    sdk.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { username: 'u', email: 'e@x' },
    }));
    const transport = new StreamableHTTPClientTransport(new URL(served.url), {
      reconnectionOptions: {
        initialReconnectionDelay: 10,
        maxReconnectionDelay: 100,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 5,
      },
    });
    try {
      await sdk.connect(transport);
      assert.is(sdk.getServerVersion()?.name, 'mcpgen-reference-server');
      const names = (await sdk.listTools()).tools.map((t) => t.name);
      for (const n of ['test_simple_text', 'test_reconnection', 'json_schema_2020_12_tool'])
        assert.ok(names.includes(n), n);
      assert.equal((await sdk.callTool({ name: 'test_simple_text', arguments: {} })).content, [
        { type: 'text', text: 'This is a simple text response for testing.' },
      ]);
      const progress: number[] = [];
      const p = await sdk.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
        onprogress: (x) => void progress.push(x.progress),
      });
      assert.equal(p.content, [{ type: 'text', text: 'Progress completed' }]);
      assert.equal(progress, [0, 50, 100]);
      await sdk.callTool({ name: 'test_tool_with_logging', arguments: {} });
      assert.equal(logs.slice(0, 3), ['Tool execution started', 'Tool processing data', 'Tool execution completed']);
      assert.equal((await sdk.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } })).content, [
        { type: 'text', text: 'LLM response: sdk says hi' },
      ]);
      const el = await sdk.callTool({ name: 'test_elicitation', arguments: { message: 'who?' } });
      assert.match(JSON.stringify(el.content), /action=accept/);
      assert.equal((await sdk.readResource({ uri: 'test://static-text' })).contents, [
        { uri: 'test://static-text', mimeType: 'text/plain', text: STATIC_TEXT },
      ]);
      assert.is((await sdk.getPrompt({ name: 'test_prompt_with_image' })).messages[0].content.type, 'image');
      const r = await sdk.callTool({ name: 'test_reconnection', arguments: {} });
      // JSON replies: nothing to close; SSE replies: the SDK resumes with Last-Event-ID
      assert.equal(r.content, [
        {
          type: 'text',
          text:
            reply === 'sse'
              ? 'Reconnection test completed successfully'
              : 'Reconnection test completed (no SSE connection to close on this transport)',
        },
      ]);
      const many = await Promise.all(
        Array.from({ length: 20 }, (_, i) => sdk.callTool({ name: 'echo', arguments: { text: `m${i}` } })),
      );
      assert.equal(
        many.map((x) => (x.content as { text: string }[])[0].text),
        Array.from({ length: 20 }, (_, i) => `m${i}`),
      );
      await transport.terminateSession();
      assert.is(served.handler.sessions.size, 0);
    } finally {
      await sdk.close().catch(() => undefined);
      await served.close();
    }
  });
}

/** An SDK McpServer per session on StreamableHTTPServerTransport. */
async function sdkHttpServer(enableJsonResponse: boolean) {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const make = () => {
    const server = new McpServer({ name: 'sdk-http-fixture', version: '1.0.0' }, { capabilities: { logging: {} } });
    server.registerTool('echo', { description: 'Echoes', inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
    server.registerTool(
      'count',
      { description: 'Progress 1..n', inputSchema: { n: z.number().int() } },
      async ({ n }, extra) => {
        const token = extra._meta?.progressToken;
        for (let i = 1; i <= n; i++)
          if (token !== undefined)
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: i, total: n },
            });
        return { content: [{ type: 'text', text: `counted to ${n}` }] };
      },
    );
    server.registerTool('ask', { description: 'Samples the client', inputSchema: {} }, async (_a, extra) => {
      const r = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 },
        },
        CreateMessageResultSchema,
      );
      return { content: [{ type: 'text', text: JSON.stringify(r) }] };
    });
    return server;
  };
  const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const sid = req.headers['mcp-session-id'] as string | undefined;
    let t = sid ? transports.get(sid) : undefined;
    if (!t) {
      if (sid) return void res.writeHead(404).end();
      t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse,
        onsessioninitialized: (id) => void transports.set(id, t!),
      });
      await make().connect(t);
    }
    await t.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    async close() {
      for (const t of transports.values()) await t.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

for (const json of [true, false]) {
  test(`generated Client → SDK McpServer over StreamableHTTPServerTransport (${json ? 'JSON' : 'SSE'} replies)`, async () => {
    const srv = await sdkHttpServer(json);
    const transport = new HttpClientTransport({ url: srv.url, standaloneStream: !json });
    const client = new gen.Client({
      clientInfo: { name: 'gen-http', version: '0' },
      capabilities: { sampling: {} },
      handlers: {
        'sampling/createMessage': () => ({ role: 'assistant', content: { type: 'text', text: 'ours' }, model: 'm' }),
      },
    });
    try {
      const info = await client.connect(transport);
      assert.is(info.serverInfo?.name, 'sdk-http-fixture');
      assert.ok(transport.sessionId);
      assert.is(transport.protocolVersion, '2025-11-25');
      assert.equal(
        (await client.listTools()).tools.map((t) => t.name),
        ['echo', 'count', 'ask'],
      );
      const texts = await Promise.all(
        Array.from({ length: 20 }, (_, i) => client.callTool({ name: 'echo', arguments: { text: `t${i}` } })),
      );
      assert.equal(
        texts.map((r) => (r.content[0] as { text: string }).text),
        Array.from({ length: 20 }, (_, i) => `t${i}`),
      );
      const progress: number[] = [];
      const c = await client.callTool(
        { name: 'count', arguments: { n: 3 } },
        { onProgress: (p) => void progress.push(p.progress) },
      );
      assert.equal(c.content, [{ type: 'text', text: 'counted to 3' }]);
      if (!json) assert.equal(progress, [1, 2, 3]);
      if (!json) {
        const a = await client.callTool({ name: 'ask', arguments: {} });
        assert.match((a.content[0] as { text: string }).text, /"text":"ours"/);
      }
    } finally {
      await client.close();
      await srv.close();
    }
  });
}

test.run();
