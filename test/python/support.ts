/**
 * The Python side of the tests: the environment of python/venv.sh (hash-locked PyPI packages,
 * built once per lock), the generated Python packages (python/generate.ts) and runners of pytest
 * and mypy whose results become uvu tests (so `N passed, N failed` counts each pytest test).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePython } from '../../python/generate.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PYTHON_DIR = join(ROOT, 'python');
/** Revisions whose generated packages the Python tests import. */
export const PY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

let venv: string | undefined;
/** The environment's folder (python/venv.sh: built on first use, then reused). */
export function pythonEnv(): string {
  if (venv) return venv;
  const r = spawnSync('bash', [join(PYTHON_DIR, 'venv.sh')], {
    encoding: 'utf8',
    timeout: 900_000,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`python/venv.sh failed (exit ${r.status})`);
  venv = r.stdout.trim().split('\n').pop()!;
  return venv;
}

/** The environment's interpreter. */
export const pythonBin = (): string => join(pythonEnv(), 'bin', 'python');

let generated: string | undefined;
/** The folder of the generated Python packages (`<dir>/<rev>/mcp_<rev>/`), written once per run. */
export function pythonGenerated(): string {
  generated ??= generatePython();
  return generated;
}

/** PYTHONPATH for processes that import the generated packages, the runtime and the reference server. */
export function pythonPath(): string {
  const gen = pythonGenerated();
  return [
    ...PY_REVISIONS.map((r) => join(gen, r)),
    join(PYTHON_DIR, 'runtime', 'src'),
    join(PYTHON_DIR, 'reference'),
  ].join(delimiter);
}

/** The environment of a Python child process. */
export function pythonChildEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PYTHONPATH: pythonPath(),
    MCPGEN_PY_GENERATED: pythonGenerated(),
    PYTHONDONTWRITEBYTECODE: '1',
    ...extra,
  };
}

export interface CaseResult {
  id: string;
  status: 'passed' | 'failed' | 'skipped';
  message: string;
  seconds: number;
}

const xmlText = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#10;/g, '\n')
    .replace(/&amp;/g, '&');

/** The test cases of a JUnit XML report (pytest's `--junitxml`). */
export function parseJunit(xml: string): CaseResult[] {
  const out: CaseResult[] = [];
  const re = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (let m = re.exec(xml); m; m = re.exec(xml)) {
    const attrs = m[1];
    const attr = (n: string) => xmlText(new RegExp(`\\b${n}="([^"]*)"`).exec(attrs)?.[1] ?? '');
    const body = m[3] ?? '';
    const failure =
      /<(failure|error)\b[^>]*?(?:message="([^"]*)")?[^>]*>([\s\S]*?)<\/\1>|<(failure|error)\b[^>]*?message="([^"]*)"[^>]*\/>/.exec(
        body,
      );
    const skipped = /<skipped\b/.test(body);
    const message = failure ? xmlText(`${failure[2] ?? failure[5] ?? ''}\n${failure[3] ?? ''}`).trim() : '';
    out.push({
      id: `${attr('classname')}::${attr('name')}`,
      status: failure ? 'failed' : skipped ? 'skipped' : 'passed',
      message,
      seconds: Number(attr('time')) || 0,
    });
  }
  return out;
}

/** Runs pytest on `args` (paths and options, from python/) and returns each case's result and pytest's output. */
export async function runPytest(
  args: string[],
  timeoutMs = 900_000,
): Promise<{ cases: CaseResult[]; output: string; status: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-pytest-'));
  const report = join(dir, 'report.xml');
  try {
    const { status, output } = await run(
      pythonBin(),
      ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--junitxml=${report}`, ...args],
      PYTHON_DIR,
      timeoutMs,
    );
    let xml = '';
    try {
      xml = readFileSync(report, 'utf8');
    } catch {
      // no report: pytest could not start (the output says why)
    }
    return { cases: parseJunit(xml), output, status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs mypy with python/mypy.ini on `targets`; returns its exit status and output. */
export async function runMypy(
  targets: string[],
  extraPath: string[] = [],
): Promise<{ status: number | null; output: string }> {
  const env = {
    MYPYPATH: [join(PYTHON_DIR, 'runtime', 'src'), join(PYTHON_DIR, 'reference'), ...extraPath].join(delimiter),
  };
  return run(
    pythonBin(),
    [
      '-m',
      'mypy',
      '--config-file',
      join(PYTHON_DIR, 'mypy.ini'),
      '--no-error-summary',
      '--hide-error-context',
      '--cache-dir',
      join(ROOT, '.cache', 'python', 'mypy'),
      ...targets,
    ],
    ROOT,
    600_000,
    env,
  );
}

/** Runs a command, collecting stdout and stderr together. */
export function run(
  cmd: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: pythonChildEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}
