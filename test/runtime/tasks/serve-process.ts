/** A real `mcpgen serve --http 0` child process, for tests that talk to it over sockets. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../..', import.meta.url));
export const bin = fileURLToPath(new URL('../../../bin/mcpgen.js', import.meta.url));

export interface Served {
  proc: ChildProcess;
  /** The /mcp URL the server printed to stderr. */
  url: string;
  /** Resolves with the exit code once the process exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `mcpgen serve --http 0 <args>`; resolves once it printed its URL (30 s at most). */
export async function startServe(...args: string[]): Promise<Served> {
  const proc = spawn(process.execPath, [bin, 'serve', '--http', '0', ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`serve --http did not print its URL: ${stderr}`)), 30_000);
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return {
    proc,
    url,
    exited,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** `mcpgen serve --rev 2025-11-25 --http 0`. */
export const startHttpServe = (): Promise<Served> => startServe('--rev', '2025-11-25');
