/**
 * The same fetch handler (examples/worker.ts, the bundle of ./worker-bundle.ts) served by Bun
 * (`Bun.serve`) and Deno (`Deno.serve`), the runtimes of the npm packages `bun` and `deno`, as
 * real processes on 127.0.0.1; our Node client and the official SDK v2 client
 * (@modelcontextprotocol/client) talk to each over HTTP.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as Sdk2Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '../../generated/2026-07-28/index.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';
import { workerBundle } from './worker-bundle.js';

const bin = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));
const SECRET = 'a secret shared by the instances, 32+ bytes';
const dir = mkdtempSync(join(tmpdir(), 'mcpgen-web-'));
const hosts = {
  bun: `import w from './worker.mjs';
const s = Bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 120, fetch: (r) => w.fetch(r, { MCP_REQUEST_STATE_SECRET: ${JSON.stringify(SECRET)} }) });
console.log('listening on http://127.0.0.1:' + s.port + '/mcp');`,
  deno: `import w from './worker.mjs';
Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log('listening on http://127.0.0.1:' + port + '/mcp') }, (r) => w.fetch(r, { MCP_REQUEST_STATE_SECRET: ${JSON.stringify(SECRET)} }));`,
};
const running: ChildProcess[] = [];

/** Starts `runtime` on the bundle; resolves with the endpoint URL it printed. */
function start(runtime: 'bun' | 'deno'): Promise<string> {
  const args =
    runtime === 'bun'
      ? ['run', join(dir, 'bun-host.mjs')]
      : ['run', '--quiet', '--no-prompt', '--allow-net=127.0.0.1', join(dir, 'deno-host.mjs')];
  const proc = spawn(bin(runtime), args, {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DENO_DIR: join(dir, 'deno-cache'),
      DENO_NO_UPDATE_CHECK: '1',
      BUN_INSTALL_CACHE_DIR: join(dir, 'bun-cache'),
    },
  });
  running.push(proc);
  let out = '';
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${runtime} printed no URL: ${out}`)), 30_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    };
    proc.stdout!.on('data', read);
    proc.stderr!.on('data', read);
    proc.once('exit', (code) => reject(new Error(`${runtime} exited ${code}: ${out}`)));
  });
}

test.before(async () => {
  writeFileSync(join(dir, 'worker.mjs'), await workerBundle());
  writeFileSync(join(dir, 'bun-host.mjs'), hosts.bun);
  writeFileSync(join(dir, 'deno-host.mjs'), hosts.deno);
});

test.after(async () => {
  await Promise.all(
    running.map((p) => (p.exitCode === null ? new Promise((r) => (p.once('exit', r), p.kill('SIGTERM'))) : undefined)),
  );
  rmSync(dir, { recursive: true, force: true });
});

for (const runtime of ['bun', 'deno'] as const) {
  test(`${runtime}: our client (discover, tools, progress, input_required rounds) and the SDK v2 client (list, call)`, async () => {
    const url = await start(runtime);
    const ours = new Client({
      clientInfo: { name: 'ours', version: '1' },
      capabilities: { elicitation: { form: {} } },
      handlers: {
        'elicitation/create': (p: { message: string }) => ({
          action: 'accept',
          content: p.message === 'Your name?' ? { name: runtime } : { mood: 'fast' },
        }),
      } as never,
    });
    const info = await ours.connect(new StatelessHttpClientTransport({ url }));
    assert.is(info.protocolVersion, '2026-07-28');
    assert.equal((await ours.listTools({})).tools.map((t) => t.name).sort(), ['add', 'add_tool', 'count', 'greet']);
    assert.equal((await ours.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).structuredContent, { sum: 3 });
    const progress: number[] = [];
    await ours.callTool(
      { name: 'count', arguments: { to: 3 } },
      { onProgress: (p: { progress: number }) => progress.push(p.progress) },
    );
    assert.equal(progress, [1, 2, 3]);
    const greeting = await ours.callTool({ name: 'greet', arguments: {} });
    assert.is((greeting.content[0] as { text: string }).text, `Hello ${runtime}, glad you are fast!`);
    await ours.close();

    const sdk = new Sdk2Client(
      { name: 'sdk2-client', version: '2.4.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
    assert.equal((await sdk.listTools()).tools.map((t) => t.name).sort(), ['add', 'add_tool', 'count', 'greet']);
    const r = await sdk.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    assert.equal(r.structuredContent, { sum: 42 });
    assert.is((r.content as Array<{ text: string }>)[0].text, '42');
    await sdk.close();
  });
}

test.run();
