/**
 * A stdio server that floods its stdout with lines that are not JSON-RPC (`yes`), or never reads
 * its stdin, cannot stall the client: the request fails (timeout or "the server's output is not
 * JSON-RPC") within a bound, the log stays short, memory stays bounded, and `mcpgen call` exits
 * 1 with one clear line. Each scenario runs in its own process, killed after a guard period: a
 * stalled event loop there cannot stall this one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/stdio-flood-client.ts', import.meta.url));
/** Generous bounds for a loaded machine; before the fix none of these runs ended at all. */
const GUARD_MS = 25_000;
const WITHIN_MS = 10_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  killed: boolean;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let stderrBytes = 0;
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    // keep at most 1 MiB of stderr (the unfixed client writes millions of lines)
    child.stderr.on('data', (c: Buffer) => {
      stderrBytes += c.length;
      if (stderrBytes < 1 << 20) stderr += c;
    });
    let killed = false;
    const guard = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, GUARD_MS);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr, ms: Date.now() - t0, killed });
    });
  });
}

interface Outcome {
  ok: boolean;
  name?: string;
  message?: string;
  cause?: string;
  ms: number;
  warns: number;
  peakRss: number;
  closedMs: number;
}

async function scenario(s: object): Promise<Outcome> {
  const r = await run(['--import', 'tsx', fixture], { SCENARIO: JSON.stringify(s) });
  assert.not.ok(r.killed, `the client process did not end within ${GUARD_MS} ms`);
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout.trim()) as Outcome;
}

/** A server that never reads its stdin and writes `ping` requests as fast as its stdout takes them. */
const PING_FLOOD = [
  '-e',
  'const s=\'{"jsonrpc":"2.0","id":1,"method":"ping"}\\n\'.repeat(4096);(function w(){while(process.stdout.write(s));process.stdout.once(\'drain\',w)})()',
];

test('flood 1: `yes` as the server: the request fails with "not JSON-RPC" promptly, few log lines', async () => {
  const o = await scenario({ command: 'yes', timeout: 1000 });
  assert.not.ok(o.ok);
  assert.is(o.name, 'ConnectionClosedError');
  assert.match(o.message ?? '', /the server's output is not JSON-RPC: 1000 lines in a row/);
  assert.ok(o.ms < WITHIN_MS, `failed after ${o.ms} ms`);
  assert.ok(o.closedMs < WITHIN_MS, `closed after ${o.closedMs} ms`);
  assert.ok(o.warns < 100, `${o.warns} warnings logged`);
});

test('flood 2: `yes` answered line by line with -32700 and no invalid-line limit: the write queue bound ends it', async () => {
  const o = await scenario({
    command: 'yes',
    timeout: 1000,
    options: { maxInvalidLines: Number.MAX_SAFE_INTEGER, answerParseErrors: true, maxQueuedBytes: 4 << 20 },
  });
  assert.not.ok(o.ok);
  assert.is(o.name, 'ConnectionClosedError');
  assert.match(o.message ?? '', /does not read its input: more than 4194304 bytes queued/);
  assert.ok(o.ms < WITHIN_MS, `failed after ${o.ms} ms`);
  assert.ok(o.warns < 100, `${o.warns} warnings logged`);
  assert.ok(o.peakRss < 512 << 20, `peak RSS ${o.peakRss}`);
});

test('flood 2b: `yes` with no invalid-line limit: the request timeout still fires on time', async () => {
  const o = await scenario({ command: 'yes', timeout: 1000, options: { maxInvalidLines: Number.MAX_SAFE_INTEGER } });
  assert.not.ok(o.ok);
  assert.is(o.name, 'RequestTimeoutError');
  assert.match(o.message ?? '', /timed out after 1000 ms/);
  assert.ok(o.ms >= 1000 && o.ms < WITHIN_MS, `failed after ${o.ms} ms`);
  assert.ok(o.closedMs < WITHIN_MS, `closed after ${o.closedMs} ms`);
  assert.ok(o.warns < 100, `${o.warns} warnings logged`);
  assert.ok(o.peakRss < 512 << 20, `peak RSS ${o.peakRss}`);
});

test('flood 3: a server that sends valid requests and never reads its stdin: the write queue is bounded', async () => {
  const o = await scenario({
    command: process.execPath,
    args: PING_FLOOD,
    timeout: 60_000,
    options: { maxQueuedBytes: 4 << 20 },
  });
  assert.not.ok(o.ok);
  assert.is(o.name, 'ConnectionClosedError');
  assert.match(o.message ?? '', /does not read its input/);
  assert.ok(o.ms < WITHIN_MS, `failed after ${o.ms} ms`);
  assert.ok(o.peakRss < 512 << 20, `peak RSS ${o.peakRss}`);
});

test('flood 4: `mcpgen call --stdio yes ping --timeout 1000` exits 1 with one clear line, stderr bounded', async () => {
  const r = await run(['bin/mcpgen.js', 'call', '--stdio', 'yes', 'ping', '--timeout', '1000']);
  assert.not.ok(r.killed, `mcpgen call did not end within ${GUARD_MS} ms`);
  assert.is(r.code, 1);
  assert.is(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.ok(lines.length < 100, `${lines.length} stderr lines`);
  const last = lines[lines.length - 1];
  assert.match(
    last,
    /^mcpgen call: connecting \(initialize\) failed: .*(the server's output is not JSON-RPC|timed out after 1000 ms)/,
  );
  assert.ok(r.ms < WITHIN_MS + 5000, `exited after ${r.ms} ms`);
});

test.run();
