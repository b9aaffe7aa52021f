/**
 * Interop over real stdio pipes with @modelcontextprotocol/sdk 1.32.2:
 * - the SDK Client against `mcpgen serve --rev 2025-11-25 --stdio`;
 * - the generated 2025-11-25 Client (runtime stdio transport spawning the process) against an
 *   SDK McpServer (test/fixtures/sdk-server.mjs) and against @modelcontextprotocol/server-everything.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '../../generated/2025-11-25/index.js';
import { StdioClientTransport } from '../../runtime/transport/stdio.js';
import { RpcError } from '../../runtime/jsonrpc/errors.js';
import { PNG_1X1, STATIC_TEXT } from '../../reference/server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/mcpgen.js');
const sdkFixture = join(root, 'test/fixtures/sdk-server.mjs');
const require = createRequire(import.meta.url);
const everythingPkg = require.resolve('@modelcontextprotocol/server-everything/package.json');
const everythingBin = join(
  dirname(everythingPkg),
  (JSON.parse(readFileSync(everythingPkg, 'utf8')) as { bin: Record<string, string> }).bin['mcp-server-everything'],
);

const textOf = (r: unknown) =>
  ((r as { content?: unknown }).content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

// ---- SDK client → mcpgen serve ------------------------------------------------------------------

const sdkToOurs = suite('interop: SDK Client → mcpgen serve --stdio');
let sdk: SdkClient;

sdkToOurs.before(async () => {
  sdk = new SdkClient({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  sdk.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
    role: 'assistant',
    model: 'stub-model',
    content: { type: 'text', text: `echo of ${(req.params.messages[0].content as { text: string }).text}` },
  }));
  sdk.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { username: 'ada', email: 'ada@example.com' },
  }));
  await sdk.connect(
    new SdkStdioClientTransport({
      command: process.execPath,
      args: [bin, 'serve', '--rev', '2025-11-25', '--stdio'],
      cwd: root,
      stderr: 'inherit',
    }),
  );
});
sdkToOurs.after(async () => {
  await sdk.close();
});

sdkToOurs('initialize: version, server info, capabilities', () => {
  assert.equal(sdk.getServerVersion(), { name: 'mcpgen-reference-server', version: '0.1.0' });
  const caps = sdk.getServerCapabilities()!;
  assert.equal(caps.tools, { listChanged: true });
  assert.equal(caps.resources, { subscribe: true, listChanged: true });
  assert.ok(caps.prompts && caps.completions && caps.logging);
});

sdkToOurs('tools/list and tools/call', async () => {
  const { tools } = await sdk.listTools();
  const names = tools.map((t) => t.name);
  for (const n of [
    'test_simple_text',
    'test_tool_with_progress',
    'test_tool_with_logging',
    'test_error_handling',
    'test_sampling',
    'test_elicitation',
  ])
    assert.ok(names.includes(n), n);
  assert.equal(tools.find((t) => t.name === 'echo')!.inputSchema, {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
  });
  assert.is(
    textOf(await sdk.callTool({ name: 'test_simple_text', arguments: {} })),
    'This is a simple text response for testing.',
  );
  assert.is(textOf(await sdk.callTool({ name: 'echo', arguments: { text: 'über ✓' } })), 'über ✓');
  const err = await sdk.callTool({ name: 'test_error_handling', arguments: {} });
  assert.is(err.isError, true);
  const bad = await sdk.callTool({ name: 'echo', arguments: { text: 5 } });
  assert.is(bad.isError, true);
  assert.match(textOf(bad), /text: must be string/);
  const unknown = await sdk.callTool({ name: 'nope', arguments: {} }).catch((e: unknown) => e);
  assert.instance(unknown, McpError);
  assert.is((unknown as McpError).code, -32602);
});

sdkToOurs('progress notifications reach the SDK onprogress callback', async () => {
  const seen: { progress: number; total?: number; message?: string }[] = [];
  const r = await sdk.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
    onprogress: (p) => void seen.push(p),
  });
  assert.is(textOf(r), 'Progress completed');
  assert.equal(
    seen.map((p) => [p.progress, p.total]),
    [
      [0, 100],
      [50, 100],
      [100, 100],
    ],
  );
  assert.is(seen[2].message, 'Completed step 3 of 3');
});

sdkToOurs('logging: notifications/message at the level the SDK client set', async () => {
  const got: unknown[] = [];
  const { LoggingMessageNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
  sdk.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void got.push(n.params.data));
  await sdk.setLoggingLevel('info');
  assert.is(textOf(await sdk.callTool({ name: 'test_tool_with_logging', arguments: {} })), 'Logging completed');
  assert.equal(got, ['Tool execution started', 'Tool processing data', 'Tool execution completed']);
  await sdk.setLoggingLevel('warning');
  got.length = 0;
  await sdk.callTool({ name: 'test_tool_with_logging', arguments: {} });
  assert.equal(got, []);
});

sdkToOurs('sampling and elicitation round-trip through the SDK client handlers', async () => {
  assert.is(
    textOf(await sdk.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } })),
    'LLM response: echo of hi',
  );
  assert.is(
    textOf(await sdk.callTool({ name: 'test_elicitation', arguments: { message: 'who?' } })),
    'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
  );
});

sdkToOurs('resources: list, templates, read text, binary and templated; unknown is -32002', async () => {
  const { resources } = await sdk.listResources();
  assert.equal(
    resources.map((r) => r.uri),
    ['test://static-text', 'test://static-binary', 'test://watched-resource'],
  );
  const { resourceTemplates } = await sdk.listResourceTemplates();
  assert.equal(
    resourceTemplates.map((t) => t.uriTemplate),
    ['test://template/{id}/data'],
  );
  assert.equal((await sdk.readResource({ uri: 'test://static-text' })).contents, [
    { uri: 'test://static-text', mimeType: 'text/plain', text: STATIC_TEXT },
  ]);
  assert.equal((await sdk.readResource({ uri: 'test://static-binary' })).contents, [
    { uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_1X1 },
  ]);
  const t = await sdk.readResource({ uri: 'test://template/42/data' });
  assert.equal(JSON.parse((t.contents[0] as { text: string }).text), {
    id: '42',
    templateTest: true,
    data: 'Data for ID: 42',
  });
  const e = await sdk.readResource({ uri: 'test://missing' }).catch((x: unknown) => x);
  assert.is((e as McpError).code, -32002);
});

sdkToOurs('prompts: list, get with arguments, missing argument is -32602; completion', async () => {
  const { prompts } = await sdk.listPrompts();
  assert.equal(
    prompts.map((p) => p.name),
    [
      'test_simple_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
    ],
  );
  const simple = await sdk.getPrompt({ name: 'test_simple_prompt' });
  assert.equal(simple.messages, [
    { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
  ]);
  const withArgs = await sdk.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
  assert.is((withArgs.messages[0].content as { text: string }).text, "Prompt with arguments: arg1='a', arg2='b'");
  const missing = await sdk
    .getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a' } })
    .catch((x: unknown) => x);
  assert.is((missing as McpError).code, -32602);
  const c = await sdk.complete({
    ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
    argument: { name: 'arg1', value: 'b' },
  });
  assert.equal(c.completion.values, ['beta']);
});

sdkToOurs.run();

// ---- generated Client → SDK McpServer ----------------------------------------------------------

const oursToSdk = suite('interop: generated Client → SDK McpServer over stdio');
let client: Client;

oursToSdk.before(async () => {
  client = new Client({ clientInfo: { name: 'mcpgen-client', version: '0.1.0' } });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [sdkFixture], cwd: root }));
});
oursToSdk.after(async () => {
  await client.close();
});

oursToSdk('handshake and tools', async () => {
  assert.is(client.server!.protocolVersion, '2025-11-25');
  assert.equal(client.server!.serverInfo, { name: 'sdk-fixture', version: '1.2.3' });
  const { tools } = await client.listTools();
  assert.equal(
    tools.map((t) => t.name),
    ['echo', 'add', 'count'],
  );
  assert.equal(tools[1].outputSchema?.required, ['sum']);
  assert.equal((await client.callTool({ name: 'echo', arguments: { text: 'hi there' } })).content, [
    { type: 'text', text: 'hi there' },
  ]);
  const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
  assert.equal(sum.structuredContent, { sum: 42 });
  const invalid = await client.callTool({ name: 'add', arguments: { a: 'x', b: 1 } }).catch((e: unknown) => e);
  // the SDK reports input validation as an isError result (or -32602 in older releases)
  if (invalid instanceof RpcError) assert.is(invalid.code, -32602);
  else assert.is((invalid as { isError?: boolean }).isError, true);
});

oursToSdk('progress from the SDK server reaches onProgress', async () => {
  const seen: number[] = [];
  const r = await client.callTool(
    { name: 'count', arguments: { n: 3 } },
    { onProgress: (p) => void seen.push(p.progress) },
  );
  assert.equal(r.content, [{ type: 'text', text: 'counted to 3' }]);
  assert.equal(seen, [1, 2, 3]);
});

oursToSdk('resources and prompts', async () => {
  assert.equal(
    (await client.listResources()).resources.map((r) => r.uri),
    ['fixture://greeting'],
  );
  assert.equal((await client.readResource({ uri: 'fixture://greeting' })).contents, [
    { uri: 'fixture://greeting', mimeType: 'text/plain', text: 'hello from the sdk' },
  ]);
  assert.equal(
    (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
    ['fixture://items/{id}'],
  );
  assert.equal((await client.readResource({ uri: 'fixture://items/7' })).contents, [
    { uri: 'fixture://items/7', mimeType: 'application/json', text: '{"id":"7"}' },
  ]);
  const p = await client.getPrompt({ name: 'review', arguments: { code: 'x = 1', language: 'python' } });
  assert.equal(p.messages, [{ role: 'user', content: { type: 'text', text: 'Review this python: x = 1' } }]);
  const e = await client.callTool({ name: 'nope', arguments: {} }).then(
    (r) => r,
    (x: unknown) => x,
  );
  if (e instanceof RpcError) assert.is(e.code, -32602);
  else assert.is((e as { isError?: boolean }).isError, true);
});

oursToSdk.run();

// ---- generated Client → server-everything -------------------------------------------------------

const oursToEverything = suite('interop: generated Client → @modelcontextprotocol/server-everything (stdio)');
let ev: Client;

oursToEverything.before(async () => {
  ev = new Client({ clientInfo: { name: 'mcpgen-client', version: '0.1.0' } });
  await ev.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [everythingBin, 'stdio'],
      cwd: root,
      stderr: 'ignore',
    }),
  );
});
oursToEverything.after(async () => {
  await ev.close();
});

oursToEverything('handshake, tools/list, echo and get-sum', async () => {
  assert.is(ev.server!.protocolVersion, '2025-11-25');
  assert.is(ev.server!.serverInfo?.name, 'mcp-servers/everything');
  const names = (await ev.listTools()).tools.map((t) => t.name);
  for (const n of ['echo', 'get-sum', 'trigger-long-running-operation']) assert.ok(names.includes(n), n);
  assert.equal((await ev.callTool({ name: 'echo', arguments: { message: 'hello' } })).content, [
    { type: 'text', text: 'Echo: hello' },
  ]);
  assert.match(JSON.stringify((await ev.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } })).content), /42/);
});

oursToEverything('progress of trigger-long-running-operation', async () => {
  const seen: [number, number | undefined][] = [];
  const r = await ev.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
    { onProgress: (p) => void seen.push([p.progress, p.total]) },
  );
  assert.equal(seen, [
    [1, 3],
    [2, 3],
    [3, 3],
  ]);
  assert.match(JSON.stringify(r.content), /Steps: 3/);
});

oursToEverything('resources and prompts', async () => {
  const r = await ev.readResource({ uri: 'demo://resource/dynamic/text/1' });
  assert.match((r.contents[0] as { text: string }).text, /^Resource 1: This is a plaintext resource/);
  const p = await ev.getPrompt({ name: 'simple-prompt' });
  assert.equal(p.messages, [
    { role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } },
  ]);
  assert.ok((await ev.listPrompts()).prompts.some((x) => x.name === 'args-prompt'));
});

oursToEverything.run();
