/**
 * The short form of `npm run bench:footprint`: the minimal stdio client (bench/footprint/
 * mcpgen-client.ts: imports only `Client`, calls tools/list) bundled by esbuild as a user's build
 * would carries neither ajv nor the JSON Schema compiler module at start (the output check of
 * tools/call imports them on first use: a chunk of their own), and none of the validators only
 * a server uses (the params of what a client sends), while it keeps the ones a client checks.
 * The minimal server (mcpgen-server.ts: one tool with an inputSchema), bundled the same way,
 * starts, answers initialize and tools/list without its ajv chunk, which its first tools/call
 * loads to compile the tool's schema; then bad arguments are refused and good ones served.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle } from '../../../bench/footprint/bundle.js';
import { clientTable, serverTable } from '../../../generated/2025-11-25/index.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpgen-footprint-test-'));

/** The validators `t` references, by the export name they have in validators.gen.js. */
function validatorNames(t: typeof clientTable | typeof serverTable): Set<string> {
  const names = new Set<string>();
  const exportsOf = readFileSync(new URL('../../../generated/2025-11-25/validators.gen.js', import.meta.url), 'utf8');
  // an export is `export const Name = validateN;`, and one function may have several names
  const byFunction = new Map<string, string[]>();
  for (const m of exportsOf.matchAll(/export const (\S+) = (validate\d+);/g)) byFunction.set(m[2]!, [...(byFunction.get(m[2]!) ?? []), m[1]!]);
  for (const group of [t.requests, t.notifications]) {
    for (const entries of [group.clientToServer, group.serverToClient]) {
      for (const e of Object.values(entries) as Array<{ params?: { name: string }; result?: { name: string } }>) {
        for (const v of [e.params, e.result]) for (const n of (v ? byFunction.get(v.name) : undefined) ?? []) names.add(n);
      }
    }
  }
  return names;
}

test('the minimal client bundle loads no ajv and no JSON Schema compiler at start; they wait in a chunk of their own', async () => {
  const b = await bundle('mcpgen', 'client', dir);
  const eager = Object.keys(b.inputs);
  assert.ok(eager.some((p) => p.endsWith('runtime/session/client.ts')), 'the client session is in the bundle');
  assert.equal(eager.filter((p) => /node_modules\/(ajv|ajv-formats|fast-uri)\//.test(p) || p.endsWith('runtime/protocol/json-schema.ts')), []);
  const lazy = Object.keys(b.lazyInputs);
  assert.ok(lazy.includes('runtime/protocol/json-schema.ts'), `json-schema.ts is in a chunk loaded on first use: ${lazy.slice(0, 5).join(', ')}`);
  assert.ok(lazy.some((p) => p.includes('node_modules/ajv/')), 'ajv comes with it');
});

test('the minimal client bundle keeps the validators a client checks and none that only a server checks', async () => {
  const client = validatorNames(clientTable);
  const serverOnly = [...validatorNames(serverTable)].filter((n) => !client.has(n));
  // what a client sends and a server checks: initialize's and tools/call's params among them
  assert.ok(serverOnly.includes('InitializeRequestParams') && serverOnly.includes('CallToolRequestParams'), serverOnly.join(', '));
  const b = await bundle('mcpgen', 'client', join(dir, 'plain'), { minify: false });
  const code = readFileSync(b.file, 'utf8');
  const declared = (name: string) => new RegExp(`\\bvar ${name.replace(/\$/g, '\\$')} = validate\\d+;`).test(code);
  assert.equal(serverOnly.filter(declared), [], 'server-only validators in the client bundle');
  assert.ok(declared('ListToolsResult') && declared('CreateMessageRequestParams'), 'the result of tools/list and the params of sampling (a request the client receives) are checked by the client');
});

/** Starts `node <file>`, sends `requests` one after another (each after the previous answer), resolves with the answers. */
function exchange(file: string, requests: Array<{ method: string; params?: unknown }>): Promise<Array<{ id: number; result?: any; error?: { code: number; message: string } }>> {
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

const initialize = { method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } };
const call = (args: Record<string, unknown>) => ({ method: 'tools/call', params: { name: 'add', arguments: args } });

test('the minimal server bundle starts without ajv; the first tools/call loads it and compiles the tool schema', async () => {
  const b = await bundle('mcpgen', 'server', join(dir, 'server'));
  assert.equal(Object.keys(b.inputs).filter((p) => p.includes('node_modules/ajv/') || p.endsWith('runtime/protocol/json-schema.ts')), []);
  assert.ok(Object.keys(b.lazyInputs).includes('runtime/protocol/json-schema.ts'));
  // without the chunks it only loads on first use, the server still starts and lists its tool;
  // the call needs them (its schema is compiled then) and fails as an internal error
  for (const f of b.lazyFiles) rmSync(f);
  const [init, list, failed] = await exchange(b.file, [initialize, { method: 'tools/list', params: {} }, call({ a: 1, b: 2 })]);
  assert.is(init!.result?.protocolVersion, '2025-11-25');
  assert.equal(list!.result?.tools.map((t: { name: string }) => t.name), ['add']);
  assert.is(failed!.error?.code, -32603);

  const whole = await bundle('mcpgen', 'server', join(dir, 'server-whole'));
  const [, bad, good] = await exchange(whole.file, [initialize, call({ a: 1 }), call({ a: 1, b: 2 })]);
  assert.equal(bad!.result, { content: [{ type: 'text', text: 'Invalid arguments for tool add: b: is required' }], isError: true });
  assert.equal(good!.result?.content, [{ type: 'text', text: '3' }]);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
