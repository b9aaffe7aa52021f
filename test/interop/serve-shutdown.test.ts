/**
 * `mcpgen serve --http` on SIGINT/SIGTERM with a request in flight, and what `mcpgen call`
 * says about it: the server stops accepting, lets requests finish within a short grace period,
 * then answers the rest with `-32000 "server shutting down"`; a client that gets a 2xx reply
 * with an empty body reports "connection closed before the response", never a bare "HTTP 200".
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { type AddressInfo, type Socket, connect, createServer as createTcpServer } from 'node:net';
import { bin, root, startServe } from '../runtime/tasks/serve-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const serve = startServe;

/**
 * A TCP relay on 127.0.0.1 in front of `url` (a reverse proxy: it names the server's own
 * host:port in `Host`, which the endpoint checks); `sent` resolves once bytes naming `needle`
 * went through towards the server (so the request is in the server's socket, whatever the load).
 */
async function relay(
  url: string,
  needle: string,
): Promise<{ url: string; sent: Promise<void>; close(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let seen!: () => void;
  const sent = new Promise<void>((r) => (seen = r));
  const server = createTcpServer((down) => {
    const up = connect(Number(target.port), target.hostname);
    sockets.add(down).add(up);
    let text = '';
    down.on('data', (d: Buffer) => {
      const chunk = d.toString('latin1');
      text = (text + chunk).slice(-4096);
      if (text.includes(needle)) seen();
      up.write(Buffer.from(chunk.replace(/^host: [^\r\n]*/gim, `Host: ${target.host}`), 'latin1'));
    });
    up.pipe(down);
    const drop = () => (down.destroy(), up.destroy());
    down.on('error', drop).on('close', drop);
    up.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    sent,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

function call(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, 'call', ...args], { cwd: root, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

const slow = (seconds: number) => ['tools/call', JSON.stringify({ name: 'slow_compute', arguments: { seconds } })];

for (const [rev, reply] of [
  ['draft', 'json'],
  ['draft', 'sse'],
  ['2025-11-25', 'json'],
  ['2025-11-25', 'sse'],
]) {
  test(`serve --rev ${rev} --reply ${reply}: SIGINT mid-call answers it "server shutting down" after the grace period`, async () => {
    const s = await serve('--rev', rev, '--reply', reply);
    const front = await relay(s.url, '"tools/call"');
    const pending = call('--url', front.url, '--rev', rev, ...slow(8));
    // signals once the tools/call request reached the server's socket (plus a moment to read
    // it): a fixed sleep from the start raced the call child's own start-up on a loaded machine
    await Promise.race([front.sent, pending]);
    await sleep(500);
    const signalled = Date.now();
    s.proc.kill('SIGINT');
    const r = await pending;
    await front.close();
    assert.is(await s.exited, 0);
    assert.ok(Date.now() - signalled < 6000, 'server exits within the grace period');
    assert.is(r.code, 1, r.stderr);
    assert.not.match(r.stderr, /HTTP 200/);
    assert.match(r.stderr, /^mcpgen call: tools\/call failed: -32000 server shutting down/m, r.stderr);
  });
}

test('serve --http: a request that ends within the grace period after SIGINT is answered', async () => {
  // (an SSE reply, so progress reaches the client before the result)
  const s = await serve('--rev', '2025-11-25', '--reply', 'sse');
  // signals once the server reports the call's first progress: the request is then in flight
  // whatever the machine's load (a fixed sleep raced the client's own start-up)
  const child = spawn(process.execPath, [bin, 'call', '--url', s.url, '--progress', ...slow(1)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => void (stdout += d.toString()));
  const progressed = new Promise<void>((resolve) =>
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/^progress: /m.test(stderr)) resolve();
    }),
  );
  const code = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  await Promise.race([progressed, code]);
  s.proc.kill('SIGINT');
  assert.is(await code, 0, stderr);
  assert.match(stderr, /^progress: /m);
  assert.match(JSON.parse(stdout).content[0].text, /^Computed sum/);
  assert.is(await s.exited, 0);
});

test('call --url: a 200 reply with an empty body is "connection closed before the response"', async () => {
  // answers initialize, then closes every other request with an empty 200 (a server going away)
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => void (body += c.toString()));
    req.on('end', () => {
      const m = JSON.parse(body || '{}') as { id?: number; method?: string; params?: { protocolVersion?: string } };
      if (m.method === 'initialize') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': 's1' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: m.id,
            result: {
              protocolVersion: m.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'x', version: '0' },
            },
          }),
        );
      } else if (m.id === undefined) res.writeHead(202).end();
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  try {
    for (const rev of ['2025-11-25', 'draft']) {
      const r = await call('--url', url, '--rev', rev, 'tools/list');
      assert.is(r.code, 1, r.stderr);
      assert.not.match(r.stderr, /failed: POST tools\/list: HTTP 200/);
      assert.match(r.stderr, /^mcpgen call: tools\/list failed: -32000 connection closed before the response/im);
    }
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test.run();
