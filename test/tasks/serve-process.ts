/** A real `mcpgen serve --http 0` child process for the task tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const bin = fileURLToPath(new URL('../../bin/mcpgen.js', import.meta.url));

/** Starts `mcpgen serve --http 0`; resolves with the process and its /mcp URL from stderr. */
export async function startHttpServe(): Promise<{ proc: ChildProcess; url: string; stop(): Promise<void> }> {
  const proc = spawn(process.execPath, [bin, 'serve', '--rev', '2025-11-25', '--http', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
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
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return {
    proc,
    url,
    async stop() {
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}
