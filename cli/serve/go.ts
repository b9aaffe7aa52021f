/**
 * `mcpgen serve --lang go [--rev <id>] (--stdio | --http <port> [--host H])`: the Go reference
 * server (go/reference/cmd/mcpgen-reference) on the generated Go packages of the revisions
 * (go/generate.ts, from generated/<rev>/model.json), built with the Go toolchain of
 * go/toolchain.sh into .cache/go/bin/ (go build's cache makes a rebuild cheap). Only in a
 * checkout of mcpgen: the installed npm package carries no Go. Its stdin, stdout and stderr are
 * this process's (cli/serve/child.ts: signals passed on, killed after a grace, never left behind).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runServerChild } from './child.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The revisions the Go reference server serves. */
export const GO_REVISIONS = ['2025-11-25', '2026-07-28', 'draft'];

/** Whether this mcpgen can serve Go (a checkout: go/ is not in the npm package). */
export const hasGo = (): boolean => existsSync(join(ROOT, 'go', 'toolchain.sh'));

/** Builds the Go reference server; returns its path. Throws with go build's output when it fails. */
export async function buildGoReference(): Promise<string> {
  const toolchain = spawnSync('bash', [join(ROOT, 'go', 'toolchain.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (toolchain.status !== 0) throw new Error('go/toolchain.sh failed: no Go toolchain of the version go/ needs');
  const goBin = toolchain.stdout.trim().split('\n').pop()!;
  const { generateGo } = await import('../../go/generate.js');
  generateGo();
  const out = join(ROOT, '.cache', 'go', 'bin', 'mcpgen-reference');
  const build = spawnSync(goBin, ['build', '-o', out, './cmd/mcpgen-reference'], {
    cwd: join(ROOT, 'go', 'reference'),
    encoding: 'utf8',
    env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-buildvcs=false' },
  });
  if (build.status !== 0)
    throw new Error(`go build of the Go reference server failed:\n${build.stdout}${build.stderr}`);
  return out;
}

/** Runs the Go reference server with `args` (`--rev`, `--stdio` / `--http`, `--host`); resolves with its exit code. */
export async function serveGo(args: { rev?: string; stdio?: boolean; http?: string; host?: string }): Promise<number> {
  const bin = await buildGoReference();
  const argv = ['--rev', args.rev ?? '2025-11-25'];
  if (args.stdio) argv.push('--stdio');
  else argv.push('--http', String(args.http), ...(args.host ? ['--host', args.host] : []));
  return runServerChild(bin, argv);
}
