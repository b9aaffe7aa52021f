/**
 * `mcpgen serve --http` and `mcpgen call --url` end to end: a real `serve` process, the
 * generated Client over Streamable HTTP, and the Host/Origin checks that are on by default.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client as Client1125 } from '../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/mcpgen.js', import.meta.url));

let proc: ChildProcess | undefined;
let url = '';
let stderr = '';

test.before(async () => {
  proc = spawn(process.execPath, [bin, 'serve', '--rev', '2025-11-25', '--http', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`serve --http did not print its URL: ${stderr}`)), 30_000);
    proc!.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    proc!.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
});

test.after(async () => {
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc!.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
});

function call(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return callAt(url, ...args);
}

function callAt(at: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, 'call', '--url', at, ...args],
      { cwd: root, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

test('serve --http prints the loopback /mcp URL to stderr', () => {
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
});

test('serve --http prints the 2024-11-05 HTTP+SSE URL, and call reaches the server through it', async () => {
  for (let i = 0; i < 100 && !/HTTP\+SSE clients: /.test(stderr); i++) await new Promise((r) => setTimeout(r, 50));
  const sse = /HTTP\+SSE clients: (http:\/\/\S+)/.exec(stderr)?.[1] ?? '';
  assert.is(sse, url.replace(/\/mcp$/, '/sse'));
  const r = await callAt(sse, 'tools/call', '{"name":"test_simple_text","arguments":{}}');
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).content[0].type, 'text');
});

test('call --url: tools/call result on stdout; progress to stderr', async () => {
  const r = await call('tools/call', '{"name":"test_tool_with_progress","arguments":{}}', '--progress');
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), { content: [{ type: 'text', text: 'Progress completed' }] });
  const progress = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('progress: '))
    .map((l) => JSON.parse(l.slice(10)).progress);
  assert.equal(progress, [0, 50, 100]);
});

test('call --url: usage errors exit 2', async () => {
  const r = await new Promise<number>((resolve) =>
    execFile(process.execPath, [bin, 'call', '--url', 'ftp://x', 'tools/list'], { cwd: root }, (e) =>
      resolve(e ? Number(e.code) : 0),
    ),
  );
  assert.is(r, 2);
});

test('generated Client over HTTP against serve: one session per client, localhost works', async () => {
  const clients = await Promise.all(
    [url, url.replace('127.0.0.1', 'localhost')].map(async (u) => {
      const transport = new HttpClientTransport({ url: u });
      const client = new Client1125({ clientInfo: { name: 'c', version: '0' } });
      const info = await client.connect(transport);
      assert.is(info.protocolVersion, '2025-11-25');
      return { client, transport };
    }),
  );
  assert.is.not(clients[0].transport.sessionId, clients[1].transport.sessionId);
  for (const { client } of clients) {
    const r = await client.readResource({ uri: 'test://static-text' });
    assert.is((r.contents[0] as { text?: string }).text, 'This is the content of the static text resource.');
    await client.close();
  }
});

test('Host and Origin checks are on: a foreign Host or Origin gets 403', async () => {
  const port = new URL(url).port;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const { request } = await import('node:http');
  const status = (headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  assert.is(await status({ Host: 'evil.example:80' }), 403);
  assert.is(await status({ Host: `localhost:${port}`, Origin: 'http://evil.example' }), 403);
  assert.is(await status({ Host: `localhost:${port}`, Origin: `http://localhost:${port}` }), 200);
});

test.run();
