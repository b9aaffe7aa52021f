/**
 * Memory of Streamable HTTP servers holding idle sessions, ours vs the SDK v1 (issue #4 target:
 * idle-session memory ≤ ¼ of SDK v1's). Each server runs in its own child process, started the
 * same way: `node --expose-gc --require bench/gc-probe.cjs <server script>`; the probe reports
 * memory after full garbage collections, i.e. what is retained. A session here is IDLE:
 * initialize + notifications/initialized, no stream open.
 *
 * Per server: WARM sessions are opened and ended again (DELETE), so that code is compiled, caches
 * are filled and V8's young generation has grown to its working size (it grows from 8–16 to
 * 32 MiB under the first thousand sessions' traffic, in both servers: a one-time step, not
 * memory the sessions hold); probe (the baseline); open IDLE sessions and keep them; probe
 * again. Printed (`name: value unit`): total RSS; RSS growth over the baseline; RSS and V8
 * heap-used growth per session (bytes/session); then the comparisons `name: N.NNx` (SDK ÷ ours:
 * above 1 is better for mcpgen).
 *
 * Servers: `ours` is bench/serve-http-server.ts bundled into one plain JS file by esbuild (no
 * TypeScript loader in the process, as the SDK fixture has none); `ours_cli` is
 * `mcpgen serve --http`, whose process also holds tsx and the generator; `sdk` is
 * test/fixtures/sdk-http-server.mjs (one McpServer per session, JSON replies).
 *
 * Linux only (RSS as the kernel counts it). `node --import tsx bench/http-idle.ts`, or the end
 * of `npm run bench:http`.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ratio, startServer, stopChild } from './measure.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const IDLE = 1000;
const WARM = 1000;
const MiB = 1024 * 1024;

interface Probe {
  rss: number;
  heapUsed: number;
}
/** Bytes: RSS after the IDLE sessions, and growth of RSS and heap-used over the baseline. */
export interface IdleFigures {
  rss: number;
  rssGrowth: number;
  heapGrowth: number;
}

/** Asks the child's gc-probe for its memory after gc (SIGUSR2 → one `mcpgen-probe {…}` line on stderr). */
function probe(child: ChildProcess): Promise<Probe> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const look = (d: Buffer) => {
      seen += d.toString();
      const m = /mcpgen-probe (\{.*\})\n/.exec(seen);
      if (!m) return;
      child.stderr!.off('data', look);
      const r = JSON.parse(m[1]) as Probe & { error?: string };
      if (r.error) reject(new Error(r.error));
      else resolve(r);
    };
    child.stderr!.on('data', look);
    child.kill('SIGUSR2');
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One initialized, idle session on `url` (initialize, then notifications/initialized); resolves with its id. */
async function openSession(url: string, i: number): Promise<string> {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: `idle-${i}`, version: '0' } },
  };
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(init) });
  const sid = res.headers.get('mcp-session-id');
  await res.text();
  if (!res.ok || !sid) throw new Error(`initialize: HTTP ${res.status}`);
  const ack = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await ack.text();
  if (!ack.ok) throw new Error(`notifications/initialized: HTTP ${ack.status}`);
  return sid;
}

/** Ends session `sid` (DELETE, 2025-11-25 basic/transports "Session Management"). */
async function endSession(url: string, sid: string): Promise<void> {
  const res = await fetch(url, {
    method: 'DELETE',
    headers: { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' },
  });
  await res.text();
  if (!res.ok) throw new Error(`DELETE: HTTP ${res.status}`);
}

/** The figures of one server script (node arguments after the probe preload). */
export async function idleSessions(script: string[]): Promise<IdleFigures> {
  const { url, child } = await startServer(['--expose-gc', '--require', `${root}bench/gc-probe.cjs`, ...script], root);
  try {
    const openMany = async (from: number, n: number, end: boolean) => {
      for (let i = 0; i < n; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, n - i) }, async (_, k) => {
            const sid = await openSession(url, from + i + k);
            if (end) await endSession(url, sid);
          }),
        );
      }
    };
    await openMany(0, WARM, true);
    await sleep(200);
    const before = await probe(child);
    await openMany(WARM, IDLE, false);
    await sleep(200);
    const after = await probe(child);
    return { rss: after.rss, rssGrowth: after.rss - before.rss, heapGrowth: after.heapUsed - before.heapUsed };
  } finally {
    await stopChild(child);
  }
}

/**
 * bench/serve-http-server.ts as one JS file under .cache/bench (or, when the benches run compiled, the
 * compiled file beside this one): packages stay imports from
 * node_modules, except this repository's own runtime workspace (`@mcpgen/runtime/…`, which the
 * generated code imports and whose exports name TypeScript sources), bundled like the rest.
 */
export async function bundleOurs(): Promise<string> {
  // Compiled benches (bench/build.ts) already hold this server as JavaScript beside this file.
  if (import.meta.url.endsWith('.js')) return `${root}bench/serve-http-server.js`;
  const { build } = await import('esbuild');
  const outfile = `${root}.cache/bench/serve-http-server.mjs`;
  const packagesExternal = {
    name: 'packages-external-but-runtime',
    setup(b: {
      onResolve(
        o: { filter: RegExp },
        f: (a: { path: string }) => { path: string; external: boolean } | undefined,
      ): void;
    }) {
      b.onResolve({ filter: /^[^./]/ }, (a) =>
        a.path === '@mcpgen/runtime' || a.path.startsWith('@mcpgen/runtime/')
          ? undefined
          : { path: a.path, external: true },
      );
    },
  };
  await build({
    entryPoints: [`${root}bench/serve-http-server.ts`],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [packagesExternal],
    logLevel: 'warning',
  });
  return outfile;
}

/** Measures ours, ours_cli and sdk one after another and prints the figures and comparisons. */
export async function idleSessionFigures(): Promise<Record<'ours' | 'ours_cli' | 'sdk', IdleFigures>> {
  const idle = {
    ours: await idleSessions([await bundleOurs()]),
    ours_cli: await idleSessions([`${root}bin/mcpgen.js`, 'serve', '--http', '0']),
    sdk: await idleSessions([`${root}test/fixtures/sdk-http-server.mjs`]),
  };
  const p = `http.idle_sessions_${IDLE}`;
  for (const [name, r] of Object.entries(idle)) {
    console.log(`${p}.rss.${name}: ${(r.rss / MiB).toFixed(1)} MiB`);
    console.log(`${p}.rss_growth.${name}: ${(r.rssGrowth / MiB).toFixed(1)} MiB`);
    console.log(`${p}.rss_growth_per_session.${name}: ${Math.round(r.rssGrowth / IDLE)} bytes/session`);
    console.log(`${p}.heap_growth_per_session.${name}: ${Math.round(r.heapGrowth / IDLE)} bytes/session`);
  }
  const { ours: o, ours_cli: c, sdk: k } = idle;
  ratio(`${p}.rss.ours_vs_sdk`, k.rss / o.rss);
  ratio(`${p}.rss_growth.ours_vs_sdk`, k.rssGrowth / o.rssGrowth);
  ratio(`${p}.heap_growth_per_session.ours_vs_sdk`, k.heapGrowth / o.heapGrowth);
  ratio(`${p}.rss.ours_cli_vs_sdk`, k.rss / c.rss);
  ratio(`${p}.heap_growth_per_session.ours_cli_vs_sdk`, k.heapGrowth / c.heapGrowth);
  return idle;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.platform !== 'linux') console.log('http.idle_sessions: skipped (Linux only)');
  else await idleSessionFigures();
}
