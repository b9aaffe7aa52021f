/**
 * The Go side of the tests: the toolchain (go/toolchain.sh: Go 1.26 from the machine or the Go
 * module proxy), runners of `go` commands in the modules of go/, and `go test -json` results
 * turned into one case per Go test (so that `N passed, N failed` counts each).
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const GO_DIR = join(ROOT, 'go');

let goBin: string | undefined;
/** The go binary (go/toolchain.sh: found or downloaded once). */
export function goBinary(): string {
  if (goBin) return goBin;
  const r = spawnSync('bash', [join(GO_DIR, 'toolchain.sh')], {
    encoding: 'utf8',
    timeout: 600_000,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`go/toolchain.sh failed (exit ${r.status})`);
  goBin = r.stdout.trim().split('\n').pop()!;
  return goBin;
}

/** The environment of go commands: the toolchain as found, no switching, no VCS stamping. */
export function goEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-buildvcs=false', ...extra };
}

/** Runs a command (stdout and stderr together) and resolves with its exit status and output. */
export function run(
  cmd: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = goEnv(),
): Promise<{ status: number | null; output: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output, stdout });
    });
  });
}

/** Runs `go <args>` in a module folder of go/. */
export function go(args: string[], module: string, timeoutMs = 900_000, env?: NodeJS.ProcessEnv) {
  return run(goBinary(), args, join(GO_DIR, module), timeoutMs, env ?? goEnv());
}

/**
 * Runs staticcheck (pinned in go/tools/go.mod) on `./...` of a module folder of go/; resolves with
 * its exit status and its report: what it printed, without the `go: downloading <module>` lines
 * the go command writes while it fetches the tool's modules into an empty module cache.
 */
export async function staticcheck(module: string): Promise<{ status: number | null; report: string }> {
  const r = await go(['tool', '-modfile=../tools/go.mod', 'staticcheck', './...'], module);
  const report = r.output
    .split('\n')
    .filter((line) => !/^go: downloading \S+ \S+$/.test(line))
    .join('\n')
    .trim();
  return { status: r.status, report };
}

export interface GoTestCase {
  /** `<package> <Test>` (the package's import path without the module path). */
  id: string;
  status: 'pass' | 'fail' | 'skip';
  output: string;
  seconds: number;
}

interface TestEvent {
  Action: string;
  Package?: string;
  Test?: string;
  Output?: string;
  Elapsed?: number;
}

/** The top-level tests of `go test -json` output (subtests fold into their parent), and the packages that failed to build or failed outside a test. */
export function parseTestJSON(stdout: string, modulePath: string): { cases: GoTestCase[]; broken: string[] } {
  const cases = new Map<string, GoTestCase>();
  const packageOutput = new Map<string, string>();
  const packageFailed = new Set<string>();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    let e: TestEvent;
    try {
      e = JSON.parse(line) as TestEvent;
    } catch {
      continue;
    }
    const pkg = (e.Package ?? '').replace(`${modulePath}/`, '').replace(modulePath, '.');
    if (!e.Test) {
      if (e.Action === 'output') packageOutput.set(pkg, (packageOutput.get(pkg) ?? '') + (e.Output ?? ''));
      if (e.Action === 'fail') packageFailed.add(pkg);
      continue;
    }
    const top = e.Test.split('/')[0];
    const id = `${pkg} ${top}`;
    let c = cases.get(id);
    if (!c) {
      c = { id, status: 'pass', output: '', seconds: 0 };
      cases.set(id, c);
    }
    if (e.Action === 'output') c.output += e.Output ?? '';
    if (e.Test === top) {
      if (e.Action === 'pass' || e.Action === 'fail' || e.Action === 'skip') {
        c.status = e.Action;
        c.seconds = e.Elapsed ?? 0;
      }
    } else if (e.Action === 'fail') c.status = 'fail';
  }
  const broken = [...packageFailed].filter(
    (p) => ![...cases.values()].some((c) => c.id.startsWith(`${p} `) && c.status === 'fail'),
  );
  return {
    cases: [...cases.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    broken: broken.map((p) => `${p}:\n${packageOutput.get(p) ?? ''}`),
  };
}

/** Where the Go commands the tests run are built (go build's cache makes a rebuild cheap). */
export const GO_BIN = join(ROOT, '.cache', 'go', 'bin');

/**
 * Builds a command of the reference module (`./cmd/<name>`) into {@link GO_BIN}, after writing
 * the generated packages (go/generate.ts); returns its path. Throws with go build's output when
 * it fails.
 */
export async function buildGoCommand(name: string): Promise<string> {
  const { generateGo } = await import('../../go/generate.js');
  generateGo();
  const out = join(GO_BIN, name);
  const r = await go(['build', '-o', out, `./cmd/${name}`], 'reference');
  if (r.status !== 0) throw new Error(`go build ./cmd/${name} failed:\n${r.output}`);
  return out;
}
