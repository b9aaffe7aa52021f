/**
 * `mcpgen serve --lang python|go --http 0` ends with its server process: SIGTERM to `mcpgen serve`
 * while a client holds a standalone GET SSE stream open ends both within the grace
 * (cli/serve/child.ts: 5 s, then SIGKILL), and SIGKILL to `mcpgen serve` (which no handler
 * sees) leaves no server behind: the server watches its parent (MCPGEN_PARENT_PID) and ends
 * once it is gone (3 s after, at most). A server that ignores SIGTERM is killed after the grace.
 * Real processes, real sockets.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CHILD_GRACE_MS } from '../../../cli/serve/child.js';
import { goEnv } from '../../go/support.js';
import { pythonChildEnv } from '../../python/support.js';
import { startHttpServeProcess, type Served } from '../tasks/serve-process.js';

/** Room (ms) on top of a grace for a machine under load: the bounds below are about seconds, a hang is about minutes. */
const SLACK_MS = 10_000;
/** How long (ms) a server may outlive its parent killed with SIGKILL: 0.5 s poll, 3 s grace. */
const ORPHAN_BOUND_MS = 3_500 + SLACK_MS;

/** The ids of the processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
}

/** Whether process `pid` still runs (a zombie, ended but not yet reaped, does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (running(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

const HEADERS = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };

/** Begins a 2025-11-25 session and opens its standalone GET SSE stream (left open, unread). */
async function openStream(url: string): Promise<AbortController> {
  const init = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'signals', version: '1' } },
    }),
  });
  await init.text();
  const session = { 'Mcp-Session-Id': init.headers.get('mcp-session-id')!, 'Mcp-Protocol-Version': '2025-11-25' };
  const initialized = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...session },
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  assert.is(initialized.status, 202);
  const abort = new AbortController();
  const stream = await fetch(url, {
    method: 'GET',
    headers: { Accept: 'text/event-stream', ...session },
    signal: abort.signal,
  });
  assert.is(stream.status, 200);
  assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
  return abort;
}

/** Starts `serve --lang <lang>`, opens a stream, returns the served process and its server's id. */
async function start(
  lang: string,
  env: NodeJS.ProcessEnv,
): Promise<{ s: Served; server: number; abort: AbortController }> {
  const s = await startHttpServeProcess(['--lang', lang, '--rev', '2025-11-25'], env);
  const abort = await openStream(s.url);
  const [server] = childrenOf(s.proc.pid!);
  assert.ok(server && running(server), `${lang}: the server process runs under mcpgen serve`);
  return { s, server, abort };
}

for (const [lang, env] of [
  ['python', () => pythonChildEnv()],
  ['go', () => goEnv()],
] as const) {
  test(`serve --lang ${lang}: SIGTERM with a GET SSE stream open ends mcpgen serve and its server within the grace`, async () => {
    const { s, server, abort } = await start(lang, env());
    try {
      const t0 = Date.now();
      s.proc.kill('SIGTERM');
      const exited = await Promise.race([
        s.exited.then(() => true),
        new Promise((r) => setTimeout(() => r(false), CHILD_GRACE_MS + SLACK_MS)),
      ]);
      assert.ok(exited, `${lang}: mcpgen serve still runs ${Date.now() - t0} ms after SIGTERM`);
      assert.ok(await gone(server, 1_000), `${lang}: its server ${server} outlived mcpgen serve`);
    } finally {
      abort.abort();
      if (running(server)) process.kill(server, 'SIGKILL');
      await s.stop();
    }
  });

  test(`serve --lang ${lang}: SIGKILL to mcpgen serve leaves no server behind (it ends once its parent is gone)`, async () => {
    const { s, server, abort } = await start(lang, env());
    try {
      s.proc.kill('SIGKILL');
      await s.exited;
      assert.ok(
        await gone(server, ORPHAN_BOUND_MS),
        `${lang}: server ${server} still runs ${ORPHAN_BOUND_MS} ms after its parent was killed`,
      );
    } finally {
      abort.abort();
      if (running(server)) process.kill(server, 'SIGKILL');
    }
  });
}

test('a server that ignores SIGTERM is killed (SIGKILL) the grace after mcpgen serve passed SIGTERM on', async () => {
  const stubborn = "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000);";
  const runner = `import { runServerChild } from ${JSON.stringify(new URL('../../../cli/serve/child.ts', import.meta.url).href)};
process.exitCode = await runServerChild(process.execPath, ['-e', ${JSON.stringify(stubborn)}]);`;
  const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', runner], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => parent.once('exit', (code) => r(code)));
  let server: number | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      parent.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      void exited.then((code) => reject(new Error(`the runner exited ${code} before its child was ready`)));
    });
    [server] = childrenOf(parent.pid!);
    assert.ok(server && running(server));
    const t0 = Date.now();
    parent.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise((r) => setTimeout(() => r('still running'), CHILD_GRACE_MS + SLACK_MS)),
    ]);
    const took = Date.now() - t0;
    assert.is(code, 1, 'the child ended by a signal: exit code 1');
    assert.ok(took >= CHILD_GRACE_MS - 100, `killed after the grace, not before (${took} ms)`);
    assert.not.ok(running(server), 'the stubborn server is gone');
  } finally {
    if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
    if (server && running(server)) process.kill(server, 'SIGKILL');
  }
});

test.run();
