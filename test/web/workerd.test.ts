/**
 * The stateless server as a `fetch` handler inside workerd (Cloudflare's runtime, through
 * miniflare): examples/worker.ts bundled by esbuild, no `node:` module, no `nodejs_compat`, and
 * code generation refused (so the tool schemas are interpreted, not compiled by ajv). Our Node
 * client talks to it over real HTTP: discovery, tools with input and output schemas, progress,
 * two input_required rounds with a sealed requestState, and a listen stream; and CORS on the
 * fetch path (preflight, allowed and refused origins).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Miniflare } from 'miniflare';
import { Client } from '../../generated/2026-07-28/index.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';
import type { RpcError } from '../../runtime/jsonrpc/errors.js';
import { workerBundle } from './worker-bundle.js';

let mf: Miniflare | undefined;
let url = '';
let client: InstanceType<typeof Client> | undefined;
const answers: Record<string, unknown> = { 'Your name?': { name: 'Ada' } };

test.before(async () => {
  const script = await workerBundle();
  assert.not.match(script, /from\s*["']node:/, 'the worker bundle imports no node: module');
  mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-09-01',
    host: '127.0.0.1',
    port: 0,
    bindings: {
      MCP_REQUEST_STATE_SECRET: 'a worker secret of at least 32 bytes, shared',
      MCP_CORS_ORIGINS: 'https://app.example',
    },
  });
  url = new URL('/mcp', await mf.ready).href;
  client = new Client({
    clientInfo: { name: 'node-client', version: '1.0.0' },
    capabilities: { elicitation: { form: {} } },
    handlers: {
      'elicitation/create': (p: { message: string }) => {
        if (p.message.startsWith('How are you')) return { action: 'accept', content: { mood: 'curious' } };
        return { action: 'accept', content: answers[p.message] as Record<string, string> };
      },
    } as never,
  });
});

test.after(async () => {
  await client?.close().catch(() => undefined);
  await mf?.dispose();
});

test('discover: the worker answers server/discover with its version and capabilities', async () => {
  const info = await client!.connect(new StatelessHttpClientTransport({ url }));
  assert.is(info.protocolVersion, '2026-07-28');
  assert.equal((info as { serverInfo?: unknown }).serverInfo, { name: 'worker-example', version: '1.0.0' });
  assert.equal((info as { capabilities?: unknown }).capabilities, { tools: { listChanged: true } });
});

test('tools: listed, called with structured output; bad arguments refused by the interpreted schema', async () => {
  const tools = (await client!.listTools({})).tools.map((t) => t.name).sort();
  assert.equal(tools, ['add', 'add_tool', 'count', 'greet']);
  const r = await client!.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
  assert.equal(r.structuredContent, { sum: 42 });
  let refused: unknown;
  try {
    const bad = await client!.callTool({ name: 'add', arguments: { a: 'two', b: 40, c: 1 } });
    refused = bad.isError ? (bad.content[0] as { text: string }).text : bad;
  } catch (e) {
    refused = (e as RpcError).message;
  }
  assert.match(String(refused), /a: .*number/i);
  assert.match(String(refused), /c: is not allowed/);
});

test("progress: notifications on the POST's SSE response, in order", async () => {
  const seen: Array<[number, number | undefined]> = [];
  const r = await client!.callTool(
    { name: 'count', arguments: { to: 4 } },
    { onProgress: (p: { progress: number; total?: number }) => seen.push([p.progress, p.total]) },
  );
  assert.equal((r.content[0] as { text: string }).text, 'counted to 4');
  assert.equal(seen, [
    [1, 4],
    [2, 4],
    [3, 4],
    [4, 4],
  ]);
});

test('input_required: two rounds, the second carrying the requestState sealed in workerd', async () => {
  const r = await client!.callTool({ name: 'greet', arguments: {} });
  assert.is((r.content[0] as { text: string }).text, 'Hello Ada, glad you are curious!');
});

test('input_required: a tampered requestState is refused with -32602', async () => {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'greet',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'greet',
        arguments: {},
        requestState: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  const body = (await res.json()) as { error?: { code: number } };
  assert.is(body.error?.code, -32602);
});

test('listen: a tool registered in the worker reaches the open listen stream', async () => {
  const got: string[] = [];
  const sub = client!.listen({ toolsListChanged: true }, { onNotification: (m) => got.push(m) });
  await sub.acknowledged;
  await client!.callTool({ name: 'add_tool', arguments: {} });
  for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(got, ['notifications/tools/list_changed']);
  await sub.close();
  const tools = (await client!.listTools({})).tools.map((t) => t.name);
  assert.ok(tools.includes('extra'));
});

test('CORS on the fetch path: preflight answered, headers exposed to the allowed origin, another origin refused', async () => {
  const pre = await fetch(url, {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://app.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region',
    },
  });
  assert.is(pre.status, 204);
  assert.is(pre.headers.get('access-control-allow-origin'), 'https://app.example');
  assert.is(
    pre.headers.get('access-control-allow-headers'),
    'content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region',
  );
  assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28',
    'Mcp-Method': 'server/discover',
  };
  const ok = await fetch(url, { method: 'POST', headers: { ...headers, Origin: 'https://app.example' }, body });
  assert.is(ok.status, 200);
  assert.is(ok.headers.get('access-control-allow-origin'), 'https://app.example');
  assert.match(ok.headers.get('access-control-expose-headers') ?? '', /Mcp-Session-Id, MCP-Protocol-Version/);
  await ok.text();
  const evil = await fetch(url, { method: 'POST', headers: { ...headers, Origin: 'https://evil.example' }, body });
  assert.is(evil.status, 403);
  assert.is(evil.headers.get('access-control-allow-origin'), null);
  await evil.text();
});

test.run();
