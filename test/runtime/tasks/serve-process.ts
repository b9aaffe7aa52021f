/**
 * Real `mcpgen serve` child processes, for tests that talk to them over pipes or sockets: `--stdio`
 * (spawned, with a line reader for its stdout) and `--http 0` (the URL read from its stderr).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { type IncomingMessage, request } from 'node:http';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../..', import.meta.url));
export const bin = fileURLToPath(new URL('../../../bin/mcpgen.js', import.meta.url));

/**
 * How long (ms) {@link Served.stop} waits after SIGTERM before SIGKILL: above `mcpgen serve`'s own
 * grace for its Python or Go server (5 s, cli/serve/child.ts), with room for a loaded machine.
 */
export const STOP_GRACE_MS = 15_000;

export interface Served {
  proc: ChildProcess;
  /** The /mcp URL the server printed to stderr. */
  url: string;
  /** Resolves with the exit code once the process exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then waits for the exit; SIGKILL after {@link STOP_GRACE_MS} (a stuck server cannot hang a suite). */
  stop(): Promise<void>;
}

/**
 * Spawns `mcpgen serve --stdio <args>` with its stdin and stdout as pipes (stderr piped unless
 * `stderr: 'ignore'`).
 */
export function spawnStdioServe(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; stderr?: 'pipe' | 'ignore' } = {},
): ChildProcess {
  return spawn(process.execPath, [bin, 'serve', '--stdio', ...args], {
    cwd: root,
    stdio: ['pipe', 'pipe', options.stderr ?? 'pipe'],
    env: options.env ?? process.env,
  });
}

/** Calls `onLine` with each non-blank line `stream` carries (newline-delimited, UTF-8). */
export function onLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffer = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      if (line.trim()) onLine(line);
    }
  });
}

/**
 * How long (ms) {@link startHttpServeProcess} waits for the URL while the process runs: `serve
 * --lang go` first runs go/toolchain.sh, writes the generated Go packages and builds the Go
 * reference server (`go build`): at load 15-18 that took 40 s after the generated Go changed
 * and 198 s with an empty Go build cache (7-9 s when nothing changed); `--lang python` starts an
 * interpreter. The wait ends as soon as the URL is printed or the process exits; this bound only
 * catches a process that does neither.
 */
export const START_TIMEOUT_MS = 600_000;

/**
 * Resolves with the URL `proc` prints on its stderr (`listening on http://…`); rejects as soon as
 * the process exits without one (its exit code and stderr in the message), or, when it neither
 * printed nor exited within `timeoutMs`, kills it (SIGKILL: nothing is left running) and rejects
 * naming the wait and the stderr so far.
 */
export function waitForUrl(proc: ChildProcess, exited: Promise<number | null>, timeoutMs: number): Promise<string> {
  let stderr = '';
  const t0 = performance.now();
  return new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`serve --http did not print its URL within ${timeoutMs} ms (still running: killed): ${stderr}`));
    }, timeoutMs);
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    void exited.then(async (code) => {
      clearTimeout(t);
      const ms = (performance.now() - t0).toFixed(0);
      // what it wrote last (the exit can come before its stderr is read): until the pipe closes,
      // at most 1 s (a child of it may hold the pipe open)
      if (!proc.stderr!.closed)
        await new Promise((r) => {
          proc.stderr!.once('close', r);
          setTimeout(r, 1_000);
        });
      reject(new Error(`serve exited ${code} after ${ms} ms without a URL: ${stderr}`));
    });
  });
}

/**
 * Starts `mcpgen serve --http 0 <args>` (environment `env`); resolves once it printed its URL,
 * rejects when it exits first, or prints none within {@link START_TIMEOUT_MS} while it runs
 * (then it is killed).
 */
export async function startHttpServeProcess(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Served> {
  const proc = spawn(process.execPath, [bin, 'serve', '--http', '0', ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = await waitForUrl(proc, exited, START_TIMEOUT_MS);
  return {
    proc,
    url,
    exited,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const kill = setTimeout(() => proc.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(kill);
    },
  };
}

/** Starts `mcpgen serve --http 0 <args>` (see {@link startHttpServeProcess}). */
export const startServe = (...args: string[]): Promise<Served> => startHttpServeProcess(args);

/**
 * One `mcpgen serve --http 0 <args>` for a whole uvu suite: started in `suite.before`, stopped
 * in `suite.after`. Returns its getter (which throws outside the suite's tests).
 */
export function servedDuring(
  suite: { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void },
  ...args: string[]
): () => Served {
  let served: Served | undefined;
  suite.before(async () => {
    served = await startServe(...args);
  });
  suite.after(async () => {
    await served?.stop();
  });
  return () => {
    if (!served) throw new Error('mcpgen serve --http is not running (outside the suite)');
    return served;
  };
}

/** `mcpgen serve --rev 2025-11-25 --http 0`. */
export const startHttpServe = (): Promise<Served> => startServe('--rev', '2025-11-25');

/** Sends one request to `url` on a connection of its own; resolves status, headers and body, rejects with the connection's error. */
export function sendOnce(
  url: string,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
