/**
 * The short form of `npm run bench:footprint`: the minimal stdio client (bench/footprint/
 * mcpgen-client.ts: imports only `Client`, calls tools/list) bundled by esbuild as a user's build
 * would carries neither ajv nor the JSON Schema compiler module at start (the output check of
 * tools/call imports them on first use: a chunk of their own), and none of the validators only
 * a server uses (the params of what a client sends), while it keeps the ones a client checks.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
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

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
