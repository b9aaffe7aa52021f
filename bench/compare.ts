/**
 * The side-by-side bench: runs the same benches, compiled (bench/build.ts), on this tree and on
 * the tree of another commit or checkout alternately, and prints the median of each figure per
 * tree and their ratio:
 *
 *   head.<name>: <median> <unit>
 *   base.<name>: <median> <unit>
 *   compare.<name>: N.NNx      (above 1: this tree is better)
 *
 * `--base` names a git ref (default: the merge-base of HEAD and `main`) or a checkout folder
 * with its own node_modules and `generated/`. A ref is checked out in a temporary git worktree
 * (removed at the end), installed with `npm ci` and generated with `npm run generate` (from
 * MCP_SPEC_DIR, as this tree's was). Both trees run this tree's bench/ and its SDK peers: what
 * differs is the code measured (runtime, generated code, CLI), not the benches.
 *
 * "Better" is higher for rates (`calls/s`, `req/s`) and comparisons (`x`) except the cost ratios
 * (`…cpu_cost`, ours over bare), lower for everything else (latencies, CPU time, bytes)
 * (bench/compare-verdict.ts); a figure whose unit is missing or whose base median is 0 gets no
 * ratio. With `--control`, `compare.worse_than_noise: N figures` closes the run, each listed below
 * it with its ratio and its noise. Each round runs every bench once per tree, the order of the trees rotating from
 * round to round, so load that others put on the machine falls on every tree alike; medians over
 * rounds absorb the rest. Figures printed by one tree only are listed, not compared.
 *
 * Each tree is compiled into a folder of this run's own, `.cache/bench-compare-<pid>/`, removed at
 * the end: a bench already running from a tree's `.cache/bench/` (`npm run bench:*`, another
 * `bench:compare` naming that tree as `--base`) keeps its files.
 *
 * `--control` runs this tree a second time as a tree of its own (`control.<name>`,
 * `noise.<name>: N.NNx`, this tree against itself): how far a figure moves with no change at
 * all, the band a `compare.` ratio has to leave before it means something.
 *
 * `--base` may be given more than once (e.g. the commit before a fix and an older release): the
 * second tree is `base2` (`base2.<name>`, `compare2.<name>`: this tree against it), and so on.
 *
 * `npm run bench:compare -- [--base <ref|dir>…] [--control] [--runs N (default 3)]
 * [--bench stdio,http,stateless] [--quick] [--bench-args '<args>']` (`--quick` is passed to every
 * bench; `--bench-args` too, split on spaces, e.g. `'--no-idle --rounds 1'` for bench:http, whose
 * idle-sessions part takes minutes a round). Exits 1 naming
 * the bench and tree when a bench exits non-zero, or when a base cannot be made.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBench, NODE_FLAGS } from './build.js';
import { betterRatio, worseThanNoise } from './compare-verdict.js';
import { median } from './measure.js';

const HEAD = fileURLToPath(new URL('..', import.meta.url));

function option(name: string, at = process.argv.indexOf(name)): string | undefined {
  const i = at;
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) fail(`${name} needs a value`);
  return v;
}

function fail(message: string): never {
  console.error(`bench:compare: ${message}`);
  cleanUp();
  process.exit(1);
}

/** Runs a command in `cwd` (output to stderr); fails naming it when it exits non-zero. */
function run(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0)
    fail(
      `${command} ${args.join(' ')} (in ${cwd}) exited ${r.status ?? r.signal}:\n${`${r.stdout}${r.stderr}`.slice(-2000)}`,
    );
  return r.stdout.trim();
}

/** The folder under each tree's `.cache/` this run compiles into (bench/build.ts `folder`). */
const FOLDER = `bench-compare-${process.pid}`;
const worktrees: string[] = [];
/** The trees compiled into {@link FOLDER} so far. */
const built: string[] = [];
function cleanUp(): void {
  for (const dir of built.splice(0)) rmSync(join(dir, '.cache', FOLDER), { recursive: true, force: true });
  for (const dir of worktrees.splice(0)) {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: HEAD, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    cleanUp();
    process.exit(1);
  });

/** A checkout of `base`: the folder itself, or a temporary worktree of the ref, installed and generated. */
function checkout(base: string): string {
  if (existsSync(base) && statSync(base).isDirectory()) {
    const dir = resolve(base);
    if (!existsSync(join(dir, 'node_modules'))) fail(`${dir} has no node_modules (npm ci there first)`);
    if (!existsSync(join(dir, 'generated'))) fail(`${dir} has no generated/ (npm run generate there first)`);
    return dir;
  }
  const commit = run('git', ['rev-parse', '--verify', `${base}^{commit}`], HEAD);
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-compare-'));
  worktrees.push(dir);
  console.error(`bench:compare: ${base} (${commit.slice(0, 12)}) in ${dir}: npm ci, npm run generate`);
  run('git', ['worktree', 'add', '--detach', dir, commit], HEAD);
  run('npm', ['ci', '--no-audit', '--no-fund'], dir);
  run('npm', ['run', 'generate'], dir);
  return dir;
}

const bases = process.argv.flatMap((a, i) => (a === '--base' ? [option('--base', i)!] : []));
if (bases.length === 0) bases.push(run('git', ['merge-base', 'HEAD', 'main'], HEAD));
const runsText = option('--runs') ?? '3';
const RUNS = Number(runsText);
if (!Number.isInteger(RUNS) || RUNS < 1) fail(`--runs must be a positive integer, not ${JSON.stringify(runsText)}`);
const BENCHES = (option('--bench') ?? 'stdio,http,stateless').split(',').filter(Boolean);
const QUICK = process.argv.includes('--quick');
const CONTROL = process.argv.includes('--control');
/** Passed to every bench after `--quick` (`--bench-args '--no-idle --rounds 1'`). */
const BENCH_ARGS = (() => {
  const i = process.argv.indexOf('--bench-args');
  if (i < 0) return [];
  const v = process.argv[i + 1];
  if (v === undefined) fail('--bench-args needs a value');
  return v.split(' ').filter(Boolean);
})();
for (const bench of BENCHES) {
  if (!/^[a-z][a-z0-9-]*$/.test(bench)) fail(`bad bench name ${JSON.stringify(bench)}`);
  if (!existsSync(join(HEAD, 'bench', `${bench}.ts`))) fail(`no bench/${bench}.ts`);
}

/** The trees, this one first: `head`, `base`, `base2`, …, then `control` (this tree again). */
const TREES: ReadonlyArray<readonly [string, string]> = [
  ['head', HEAD],
  ...bases.map((b, i) => [i === 0 ? 'base' : `base${i + 1}`, checkout(b)] as const),
  ...(CONTROL ? [['control', HEAD] as const] : []),
];
for (const [tree, dir] of TREES) {
  if (tree === 'control') continue;
  const started = performance.now();
  try {
    built.push(dir);
    buildBench(dir, HEAD, FOLDER);
  } catch (e) {
    fail(`building ${tree} (${dir}): ${(e as Error).message}`);
  }
  console.error(`bench:compare: ${tree} compiled in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** One figure line `name: value unit` (comparisons `name: N.NNx` included, unit "x"). */
interface Figure {
  value: number;
  unit: string;
}

function runBench(dir: string, bench: string): Promise<Map<string, Figure>> {
  const script = join(dir, '.cache', FOLDER, 'bench', `${bench}.js`);
  const args = [...(NODE_FLAGS[bench] ?? []), script, ...(QUICK ? ['--quick'] : []), ...BENCH_ARGS];
  const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`bench ${bench} in ${dir} exited ${code}:\n${err.slice(-2000)}`));
      const figures = new Map<string, Figure>();
      for (const line of out.split('\n')) {
        const m = /^([\w.-]+): (-?[\d.]+)(x|\s+(\S+))?/.exec(line.trim());
        if (m) figures.set(m[1], { value: Number(m[2]), unit: m[3] === 'x' ? 'x' : (m[4] ?? '') });
      }
      resolvePromise(figures);
    });
  });
}

const samples = new Map<string, Map<string, { unit: string; values: number[] }>>(
  TREES.map(([tree]) => [tree, new Map()]),
);
const order: string[] = [];

for (let round = 0; round < RUNS; round++) {
  // two trees: head, base, then base, head…; more: each round starts one tree later
  const trees = TREES.map((_, i) => TREES[(i + round) % TREES.length]);
  for (const bench of BENCHES) {
    for (const [tree, dir] of trees) {
      const started = Date.now();
      const figures = await runBench(dir, bench).catch((e: Error) => fail(e.message));
      console.error(`round ${round + 1}/${RUNS} ${bench} ${tree}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
      for (const [name, f] of figures) {
        console.error(`  ${tree}.${name}: ${f.value} ${f.unit}`.trimEnd());
        if (!order.includes(name)) order.push(name);
        const s = samples.get(tree)!.get(name) ?? { unit: f.unit, values: [] };
        s.values.push(f.value);
        samples.get(tree)!.set(name, s);
      }
    }
  }
}

console.log(`compare.runs: ${RUNS} rounds`);
/** Per base tree (`compare`, `compare2`, …): the figures it is worse on than the control moved. */
const worse = new Map<string, string[]>();
for (const name of order) {
  for (const [tree] of TREES) {
    const s = samples.get(tree)!.get(name);
    if (s) console.log(`${tree}.${name}: ${median(s.values)} ${s.unit}`.trimEnd());
  }
  const h = samples.get('head')!.get(name);
  const c = samples.get('control')?.get(name);
  const noise = h && c ? betterRatio(name, h.unit, median(h.values), median(c.values)) : undefined;
  TREES.slice(1).forEach(([tree], i) => {
    const b = samples.get(tree)!.get(name);
    if (!h || !b) return;
    const ratio = betterRatio(name, h.unit, median(h.values), median(b.values));
    if (ratio === undefined) return;
    const label = tree === 'control' ? 'noise' : `compare${i === 0 ? '' : i + 1}`;
    console.log(`${label}.${name}: ${ratio.toFixed(2)}x`);
    if (tree !== 'control' && noise !== undefined && worseThanNoise(ratio, noise))
      worse.set(label, [...(worse.get(label) ?? []), `${name}: ${ratio.toFixed(2)}x (noise ${noise.toFixed(2)}x)`]);
  });
}
// With --control: each base's figures on which this tree is worse by more than it moved against
// itself (compare below 1 and farther from 1 than noise).
if (CONTROL)
  TREES.slice(1).forEach(([tree], i) => {
    if (tree === 'control') return;
    const label = `compare${i === 0 ? '' : i + 1}`;
    const list = worse.get(label) ?? [];
    console.log(`${label}.worse_than_noise: ${list.length} figures`);
    for (const line of list) console.log(`  ${line}`);
  });
cleanUp();
