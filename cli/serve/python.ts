/**
 * `mcpgen serve --lang python [--rev <id>] (--stdio | --http <port> [--host H])`: the Python
 * reference server (python/reference, `python -m mcpgen_reference`) on the generated Python
 * package of the revision, in the environment of python/venv.sh (hash-locked PyPI packages,
 * built on first use). Only in a checkout of mcpgen: the installed npm package carries no Python.
 * Its stdin, stdout and stderr are this process's (cli/serve/child.ts: signals passed on, killed
 * after a grace, never left behind).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runServerChild } from './child.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Revisions whose generated Python packages the reference server may import. */
const PY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', 'draft'];

/** Whether this mcpgen can serve Python (a checkout: python/ is not in the npm package). */
export const hasPython = (): boolean => existsSync(join(ROOT, 'python', 'venv.sh'));

/** Runs the Python reference server with `args` (`--rev`, `--stdio` / `--http`, `--host`); resolves with its exit code. */
export async function servePython(args: {
  rev?: string;
  stdio?: boolean;
  http?: string;
  host?: string;
}): Promise<number> {
  const venvScript = join(ROOT, 'python', 'venv.sh');
  const env = spawnSync('bash', [venvScript], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (env.status !== 0) throw new Error('python/venv.sh failed: the Python environment could not be built');
  const python = join(env.stdout.trim().split('\n').pop()!, 'bin', 'python');
  const { generatePython } = await import('../../python/generate.js');
  const generated = generatePython();
  const path = [
    ...PY_REVISIONS.map((r) => join(generated, r)),
    join(ROOT, 'python', 'runtime', 'src'),
    join(ROOT, 'python', 'reference'),
  ].join(delimiter);
  const argv = ['-m', 'mcpgen_reference', '--rev', args.rev ?? '2025-11-25'];
  if (args.stdio) argv.push('--stdio');
  else argv.push('--http', String(args.http), ...(args.host ? ['--host', args.host] : []));
  return runServerChild(python, argv, { ...process.env, PYTHONPATH: path, PYTHONDONTWRITEBYTECODE: '1' });
}
