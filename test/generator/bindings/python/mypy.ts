/**
 * mypy over a generated Python package (Debian's `mypy`, apt package `mypy`): one
 * `mypy --strict --python-version 3.11` run per package checks the package itself
 * (its folder `mcp_types_<rev>/`) and match_static.py, its `mcp_types_PACKAGE` placeholder replaced by the
 * package name. Runs are kept per package folder, so the tests of one revision share one run;
 * every run uses one cache folder in the temp folder (typeshed is analysed once).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTemp } from '../own.js';

const HERE = fileURLToPath(new URL('./', import.meta.url));

/** The file name the static match check is written to, beside the package. */
export function matchFile(pkg: string): string {
  return `match_static_${pkg}.py`;
}

export interface MypyError {
  /** Relative to the package root: `mcp_types_draft/__init__.py` or `match_static_<pkg>.py`. */
  file: string;
  line: number;
  message: string;
}

export interface MypyRun {
  status: number | null;
  /** The `error:` lines, parsed. */
  errors: MypyError[];
  output: string;
}

let cacheDir: string | undefined;
const runs = new Map<string, MypyRun>();

/**
 * Runs mypy once on `pkg` (a folder under `root`) and the static match check, or returns the
 * run already made for that folder.
 */
export function mypyCheck(root: string, pkg: string): MypyRun {
  const key = join(root, pkg);
  let run = runs.get(key);
  if (run) return run;
  cacheDir ??= writeTemp('mypy-cache', new Map());
  const source = readFileSync(join(HERE, 'match_static.py'), 'utf8');
  writeFileSync(join(root, matchFile(pkg)), source.replaceAll('mcp_types_PACKAGE', pkg));
  const r = spawnSync(
    'mypy',
    [
      '--strict',
      '--python-version',
      '3.11',
      '--no-color-output',
      '--no-error-summary',
      '--show-error-codes',
      '--cache-dir',
      cacheDir,
      pkg,
      matchFile(pkg),
    ],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, MYPYPATH: root },
    },
  );
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  // 0: no error, 1: type errors; anything else (2: usage or crash, null: killed) is no verdict.
  if (r.status !== 0 && r.status !== 1)
    throw new Error(`mypy did not run (status ${r.status}, ${r.error?.message ?? ''}):\n${output.slice(0, 3000)}`);
  const errors: MypyError[] = [];
  for (const line of output.split('\n')) {
    const m = /^(.+?):(\d+): error: (.*)$/.exec(line);
    if (m) errors.push({ file: m[1], line: Number(m[2]), message: m[3] });
  }
  run = { status: r.status, errors, output };
  runs.set(key, run);
  return run;
}

/** The errors of a run in one file (path relative to the package root). */
export function errorsIn(run: MypyRun, file: string): string[] {
  return run.errors.filter((e) => e.file === file).map((e) => `${e.file}:${e.line}: ${e.message}`);
}
