/**
 * The compiled tree of the benches (bench/build.ts): what `npm run bench:stdio|http|stateless`
 * measure is JavaScript alone. Built into .cache/bench-test/ (not the benches' own folder), then
 * a stateless server of bench/ runs there with plain node (Node 20 cannot load a .ts file: one
 * import of a TypeScript source fails the start) and answers a draft `tools/call` over HTTP, and
 * the `mcpgen serve --stdio` of the compiled CLI answers `initialize`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBench } from '../../bench/build.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let out = '';

/** Every file below `dir`, relative paths. */
const below = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' });

test.before(() => {
  out = buildBench(ROOT, ROOT, 'bench-test');
});
test.after(() => rmSync(out, { recursive: true, force: true }));

test('the tree holds JavaScript only, and the runtime manifest points at it', () => {
  assert.is(out, join(ROOT, '.cache', 'bench-test'));
  const sources = below(out).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('node_modules'));
  assert.equal(sources, []);
  const manifest = JSON.parse(readFileSync(join(out, 'runtime', 'package.json'), 'utf8'));
  assert.equal(manifest.exports['./http/stateless'].default, {
    types: './transport/http/stateless/index.d.ts',
    default: './transport/http/stateless/index.js',
  });
  assert.ok(existsSync(join(out, 'runtime', 'transport', 'http', 'stateless', 'index.js')));
  assert.ok(existsSync(join(out, 'generated', 'draft', 'validators.gen.js')));
  assert.ok(existsSync(join(out, 'node_modules', '@mcpgen', 'runtime', 'package.json')));
});

test('a bench server runs compiled with plain node and answers a draft tools/call', async () => {
  const child = spawn(process.execPath, [join(out, 'bench', 'stateless-server.js'), 'ours'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let seen = '';
    const url = await new Promise<string>((resolve, reject) => {
      const look = (d: Buffer) => {
        seen += d.toString();
        const m = /(http:\/\/\S+\/mcp)/.exec(seen);
        if (m) resolve(m[1]);
      };
      child.stdout.on('data', look);
      child.stderr.on('data', look);
      child.once('exit', (code) => reject(new Error(`server exited ${code}: ${seen}`)));
    });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'test', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'echo',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'compiled' }, _meta: meta },
      }),
    });
    assert.is(res.status, 200);
    const answer = (await res.json()) as { id: number; result: { content: Array<{ text: string }> } };
    assert.is(answer.id, 7);
    assert.is(answer.result.content[0].text, 'compiled');
  } finally {
    child.kill();
  }
});

test('the compiled CLI serves stdio', async () => {
  const child = spawn(process.execPath, [join(out, 'bin', 'mcpgen.js'), 'serve', '--stdio'], {
    cwd: out,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  try {
    let text = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const line = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '0' } },
      })}\n`,
    );
    const answer = JSON.parse(await line) as { id: number; result: { protocolVersion: string } };
    assert.is(answer.id, 1);
    assert.is(answer.result.protocolVersion, '2025-11-25');
  } finally {
    child.kill();
  }
});

test.run();
