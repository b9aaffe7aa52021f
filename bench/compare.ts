/**
 * Runs benches of this tree and of another checkout (`--base <dir>`, e.g. a `git worktree` of an
 * older commit with its own node_modules and `generated/`) alternately, and prints the median
 * of each figure per tree and their ratio:
 *
 *   head.<name>: <median> <unit>
 *   base.<name>: <median> <unit>
 *   compare.<name>: N.NNx      (above 1: this tree is better)
 *
 * "Better" is higher for rates (`calls/s`, `req/s`) and lower for everything else (latencies,
 * CPU time, bytes, warnings); a figure whose unit is missing or whose base median is 0 gets no
 * ratio. Each round runs every bench once per tree, the order of the trees rotating from round
 * to round, so load that others put on the machine falls on every tree alike; medians over
 * rounds absorb the rest. Figures printed by one tree only are listed, not compared.
 *
 * `--base` may be given more than once (e.g. the commit before a fix and an older release): the
 * second tree is `base2` (`base2.<name>`, `compare2.<name>`: this tree against it), and so on.
 *
 * `npm run bench:compare -- --base <dir> [--base <dir>…] [--runs N (default 3)]
 * [--bench stdio,http,stateless] [--quick]` (`--quick` is passed to every bench). Exits 1 naming the bench and tree when a
 * bench exits non-zero, or when `--base` is not a checkout with the bench's script.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  process.exit(1);
}

const BASES = process.argv.flatMap((a, i) => (a === '--base' ? [option('--base', i)!] : [])).map((d) => resolve(d));
if (BASES.length === 0) fail('--base <dir> is required (a checkout of the commit to compare with)');
/** The trees, this one first: `head`, `base`, `base2`, … */
const TREES: ReadonlyArray<readonly [string, string]> = [
  ['head', HEAD],
  ...BASES.map((dir, i) => [i === 0 ? 'base' : `base${i + 1}`, dir] as const),
];
const runsText = option('--runs') ?? '3';
const RUNS = Number(runsText);
if (!Number.isInteger(RUNS) || RUNS < 1) fail(`--runs must be a positive integer, not ${JSON.stringify(runsText)}`);
const BENCHES = (option('--bench') ?? 'stdio,http,stateless').split(',').filter(Boolean);
const QUICK = process.argv.includes('--quick');

for (const bench of BENCHES) {
  if (!/^[a-z][a-z0-9-]*$/.test(bench)) fail(`bad bench name ${JSON.stringify(bench)}`);
  for (const [tree, dir] of TREES) {
    if (!existsSync(join(dir, 'bench', `${bench}.ts`))) fail(`${tree} tree ${dir} has no bench/${bench}.ts`);
    if (!existsSync(join(dir, 'node_modules'))) fail(`${tree} tree ${dir} has no node_modules`);
  }
}

/** One figure line `name: value unit` (comparisons `name: N.NNx` included, unit "x"). */
interface Figure {
  value: number;
  unit: string;
}

function runBench(dir: string, bench: string): Promise<Map<string, Figure>> {
  const args = ['--import', 'tsx', join('bench', `${bench}.ts`), ...(QUICK ? ['--quick'] : [])];
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

const HIGHER_IS_BETTER = new Set(['calls/s', 'req/s', 'x']);
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
for (const name of order) {
  for (const [tree] of TREES) {
    const s = samples.get(tree)!.get(name);
    if (s) console.log(`${tree}.${name}: ${median(s.values)} ${s.unit}`.trimEnd());
  }
  const h = samples.get('head')!.get(name);
  TREES.slice(1).forEach(([tree], i) => {
    const b = samples.get(tree)!.get(name);
    if (!h || !b || !h.unit || /loadavg/.test(name)) return;
    const hm = median(h.values);
    const bm = median(b.values);
    if (bm === 0 || hm === 0) return;
    console.log(
      `compare${i === 0 ? '' : i + 1}.${name}: ${(HIGHER_IS_BETTER.has(h.unit) ? hm / bm : bm / hm).toFixed(2)}x`,
    );
  });
}
