/**
 * The short form of `npm run bench:footprint`: the minimal stdio client (bench/footprint/
 * mcpgen-client.ts: imports only `Client`, calls tools/list) bundled by esbuild as a user's build
 * would carries neither ajv nor the JSON Schema compiler module at start (the output check of
 * tools/call imports them on first use: a chunk of their own) nor the TaskHandle of task-augmented
 * requests (../../../runtime/tasks/handle.ts, imported by the first one), and none of the validators only
 * a server uses (the params of what a client sends), while it keeps the ones a client checks.
 * A tool's input schema is compiled by its first call (registering and listing it compile
 * nothing), once; the minimal server (mcpgen-server.ts), bundled the same way, carries no ajv
 * at start either (the first tool call imports the compiler), refuses bad arguments and serves
 * good ones; a first call cancelled while the compiler loads never starts its handler.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../../../bench/footprint/bundle.js';
import { Client, Server, clientTable, serverTable, validators } from '../../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { compiledSchemas } from '../../../runtime/protocol/json-schema.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpgen-footprint-test-'));

/** The validators `t` references, by the export name they have in validators.gen.js. */
function validatorNames(t: typeof clientTable | typeof serverTable): Set<string> {
  const names = new Set<string>();
  // one validator may have several export names (an alias of a named type)
  const byValidator = new Map<unknown, string[]>();
  for (const [name, v] of Object.entries(validators)) byValidator.set(v, [...(byValidator.get(v) ?? []), name]);
  for (const group of [t.requests, t.notifications]) {
    for (const entries of [group.clientToServer, group.serverToClient]) {
      for (const e of Object.values(entries) as Array<{ params?: unknown; result?: unknown }>) {
        for (const v of [e.params, e.result]) for (const n of (v ? byValidator.get(v) : undefined) ?? []) names.add(n);
      }
    }
  }
  return names;
}

test('the minimal client bundle loads no ajv and no JSON Schema compiler at start; they wait in a chunk of their own', async () => {
  const b = await bundle('mcpgen', 'client', dir);
  const eager = Object.keys(b.inputs);
  assert.ok(
    eager.some((p) => p.endsWith('runtime/session/client.ts')),
    'the client session is in the bundle',
  );
  assert.equal(
    eager.filter(
      (p) => /node_modules\/(ajv|ajv-formats|fast-uri)\//.test(p) || p.endsWith('runtime/protocol/json-schema.ts'),
    ),
    [],
  );
  const lazy = Object.keys(b.lazyInputs);
  assert.ok(
    lazy.includes('runtime/protocol/json-schema.ts'),
    `json-schema.ts is in a chunk loaded on first use: ${lazy.slice(0, 5).join(', ')}`,
  );
  assert.ok(
    lazy.some((p) => p.includes('node_modules/ajv/')),
    'ajv comes with it',
  );
  // the TaskHandle of task-augmented requests: imported by the first one
  assert.ok(
    !eager.includes('runtime/tasks/handle.ts') && lazy.includes('runtime/tasks/handle.ts'),
    'tasks/handle.ts is in a chunk loaded on first use',
  );
  // the requestor (first task-augmented request) and the answer to an over-long stdio line (first such line) wait too
  for (const f of [
    'runtime/tasks/requestor.ts',
    'runtime/tasks/status-router.ts',
    'runtime/transport/stdio-too-long.ts',
    'runtime/jsonrpc/peek.ts',
  ]) {
    assert.ok(!eager.includes(f) && lazy.includes(f), `${f} is in a chunk loaded on first use`);
  }
  // a revision without JSON-RPC batches bundles no batch dispatch (it comes with 2025-03-26's tables)
  assert.ok(
    !eager.includes('runtime/engine/batch.ts') && !lazy.includes('runtime/engine/batch.ts'),
    'engine/batch.ts is not in the bundle',
  );
});

test('the minimal client bundle keeps the validators a client checks and none that only a server checks', async () => {
  const client = validatorNames(clientTable);
  const serverOnly = [...validatorNames(serverTable)].filter((n) => !client.has(n));
  // what a client sends and a server checks: initialize's and tools/call's params among them
  assert.ok(
    serverOnly.includes('InitializeRequestParams') && serverOnly.includes('CallToolRequestParams'),
    serverOnly.join(', '),
  );
  const b = await bundle('mcpgen', 'client', join(dir, 'plain'), { minify: false });
  const code = readFileSync(b.file, 'utf8');
  // a validator export of either form: ajv's (`var X = validate12;`) or the compact one (`var X = v(() => …)`)
  const declared = (name: string) =>
    new RegExp(`\\bvar ${name.replace(/\$/g, '\\$')} = (validate\\d+;|/\\* @__PURE__ \\*/ v\\(|v\\()`).test(code);
  assert.equal(serverOnly.filter(declared), [], 'server-only validators in the client bundle');
  assert.ok(
    declared('ListToolsResult') && declared('CreateMessageRequestParams'),
    'the result of tools/list and the params of sampling (a request the client receives) are checked by the client',
  );
});

/** Starts `node <file>`, sends `requests` one after another (each after the previous answer), resolves with the answers. */
function exchange(
  file: string,
  requests: Array<{ method: string; params?: unknown }>,
): Promise<Array<{ id: number; result?: any; error?: { code: number; message: string } }>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { stdio: ['pipe', 'pipe', 'pipe'] });
    const answers: Array<{ id: number; result?: any; error?: { code: number; message: string } }> = [];
    let buffered = '';
    let stderr = '';
    const timer = setTimeout(() => (child.kill(), reject(new Error(`no answer in 15 s; stderr: ${stderr}`))), 15_000);
    const send = (i: number) => {
      if (i === 1) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: i, ...requests[i] })}\n`);
    };
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.stdout.on('data', (d: Buffer) => {
      buffered += d;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        answers.push(JSON.parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
        if (answers.length < requests.length) send(answers.length);
        else {
          clearTimeout(timer);
          child.kill();
          resolve(answers);
        }
      }
    });
    send(0);
  });
}

const initialize = {
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};
const call = (args: Record<string, unknown>) => ({ method: 'tools/call', params: { name: 'add', arguments: args } });

test('a tool schema is compiled on the first call, not at registration', async () => {
  const features = new ServerFeatures();
  const before = compiledSchemas();
  // a schema no other test of this process compiles (schemas are cached by their text)
  const key = `n${process.pid}x${Date.now()}`;
  features.tool<Record<string, number>>({
    name: 'add',
    inputSchema: { type: 'object', properties: { [key]: { type: 'number' } }, required: [key] },
    handler: (a) => String(a[key]! + 1),
  });
  assert.is(compiledSchemas(), before, 'registration compiled the schema');
  const server = new Server({
    serverInfo: { name: 's', version: '0' },
    capabilities: features.capabilities(),
    handlers: features.handlers({ table: serverTable }) as never,
  });
  const client = new Client({ clientInfo: { name: 'c', version: '0' } });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  await client.connect(a);
  assert.equal(
    (await client.listTools()).tools.map((t) => t.name),
    ['add'],
  );
  assert.is(compiledSchemas(), before, 'listing compiled the schema');
  assert.equal(await client.callTool({ name: 'add', arguments: { [key]: 'x' } }), {
    content: [{ type: 'text', text: `Invalid arguments for tool add: ${key}: must be number` }],
    isError: true,
  });
  assert.is(compiledSchemas(), before + 1);
  assert.equal((await client.callTool({ name: 'add', arguments: { [key]: 2 } })).content, [
    { type: 'text', text: '3' },
  ]);
  assert.is(compiledSchemas(), before + 1, 'compiled once');
  await client.close();
});

test('the bundled minimal server refuses bad arguments and serves good ones', async () => {
  const b = await bundle('mcpgen', 'server', join(dir, 'server'));
  const [init, list, bad, good] = await exchange(b.file, [
    initialize,
    { method: 'tools/list', params: {} },
    call({ a: 1 }),
    call({ a: 1, b: 2 }),
  ]);
  assert.is(init!.result?.protocolVersion, '2025-11-25');
  assert.equal(
    list!.result?.tools.map((t: { name: string }) => t.name),
    ['add'],
  );
  assert.equal(bad!.result, {
    content: [{ type: 'text', text: 'Invalid arguments for tool add: b: is required' }],
    isError: true,
  });
  assert.equal(good!.result?.content, [{ type: 'text', text: '3' }]);
});

test('the minimal server bundle loads no ajv and no JSON Schema compiler at start; its first tool call imports them from a chunk of their own', async () => {
  const b = await bundle('mcpgen', 'server', join(dir, 'server-eager'));
  const eager = Object.keys(b.inputs);
  assert.ok(
    eager.some((p) => p.endsWith('runtime/features/tools.ts')) &&
      eager.some((p) => p.endsWith('runtime/protocol/schema-check.ts')),
    'the tools registry and the registration check are in the bundle',
  );
  assert.equal(
    eager.filter(
      (p) =>
        /node_modules\/(ajv|ajv-formats|fast-uri|@cfworker\/json-schema)\//.test(p) ||
        p.endsWith('runtime/protocol/json-schema.ts'),
    ),
    [],
  );
  const lazy = Object.keys(b.lazyInputs);
  assert.ok(
    lazy.includes('runtime/protocol/json-schema.ts') && lazy.some((p) => p.includes('node_modules/ajv/')),
    `the compiler and ajv wait in a chunk: ${lazy.slice(0, 5).join(', ')}`,
  );
  assert.ok(
    !eager.includes('runtime/tasks/handle.ts') && lazy.includes('runtime/tasks/handle.ts'),
    'tasks/handle.ts is in a chunk loaded on first use',
  );
});

test('a first tool call cancelled while the compiler loads does not start its handler and is not answered; the next call is served', async () => {
  const fixture = fileURLToPath(new URL('./fixtures/cancel-first-call.ts', import.meta.url));
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    const timer = setTimeout(() => child.kill(), 20_000);
    child.stdout.on('data', (d: Buffer) => (text += d));
    child.on(
      'close',
      (code) => (
        clearTimeout(timer), code === 0 ? resolve(text) : reject(new Error(`fixture exited with ${code}: ${text}`))
      ),
    );
  });
  assert.equal(JSON.parse(out), { started: [2], answered: ['init', 2], compiled: 1 });
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
