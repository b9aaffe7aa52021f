/**
 * Generation time of every pinned revision, inputs from MCP_SPEC_DIR (else ../shared/mcp-spec):
 * - cli: `mcpgen generate --rev all` as a process (startup included), into a fresh folder, then
 *   once more with the same inputs into the same folder (a no-op regeneration: same bytes out);
 * - in-process: resolve + verify + ingest + generate + write for all revisions, first run and
 *   the median of the following runs, with the median time of each generator step.
 * Output: `name: value unit` per figure, `name: N.NNx` per comparison (higher is better for us).
 * `npm run bench:generate [-- --quick]`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveInputs } from '../cli/inputs.js';
import { writeTree } from '../cli/output.js';
import { ingestResolved } from '../generator/ingest.js';
import { type Step, generate } from '../generator/generate.js';
import { median, ratio } from './measure.js';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 3 : 7;
const root = fileURLToPath(new URL('..', import.meta.url));
const specDir = resolve(root, process.env.MCP_SPEC_DIR ?? '../shared/mcp-spec');
const env = { ...process.env, MCP_SPEC_DIR: specDir };
process.env.MCP_SPEC_DIR = specDir;

const print = (name: string, value: number, unit: string) =>
  console.log(`${name}: ${value.toFixed(value >= 100 ? 0 : 1)} ${unit}`);

function treeHash(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else h.update(`${p.slice(dir.length)}\0`).update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

function cliRun(out: string): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'bin', 'mcpgen.js'), 'generate', '--rev', 'all', '--out', out], {
    env,
    encoding: 'utf8',
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`mcpgen generate failed (${r.status}): ${r.stderr}`);
  return ms;
}

const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-bench-'));
try {
  const inputs = resolveInputs({ rev: 'all' });
  console.log(
    `# ${inputs.length} pinned revisions (${inputs.map((r) => r.revision).join(', ')}) from ${specDir}; node ${process.version}`,
  );

  // as a user runs it: a fresh process each time
  const full: number[] = [];
  const noop: number[] = [];
  for (let i = 0; i < Math.max(1, RUNS >> 1); i++) {
    const out = join(tmp, `cli-${i}`);
    full.push(cliRun(out));
    const before = treeHash(out);
    noop.push(cliRun(out));
    if (treeHash(out) !== before) throw new Error('a regeneration with the same inputs changed the output');
  }
  print('generate.cli.full', median(full), 'ms');
  print('generate.cli.noop', median(noop), 'ms');

  // in one process: the generator's own cost, without process startup
  const steps = new Map<Step | 'ingest' | 'write', number[]>();
  const runs: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const out = join(tmp, 'in-process');
    const per = new Map<string, number>();
    const add = (k: string, ms: number) => per.set(k, (per.get(k) ?? 0) + ms);
    const t0 = performance.now();
    for (const r of resolveInputs({ rev: 'all' })) {
      let t = performance.now();
      const model = ingestResolved(r);
      add('ingest', performance.now() - t);
      const files = await generate(model, { onStep: (s, ms) => add(s, ms) });
      t = performance.now();
      writeTree(join(out, model.revision), files);
      add('write', performance.now() - t);
    }
    runs.push(performance.now() - t0);
    if (i > 0) for (const [k, ms] of per) steps.set(k as Step, [...(steps.get(k as Step) ?? []), ms]);
  }
  print('generate.in-process.first', runs[0], 'ms');
  print('generate.in-process.median', median(runs.slice(1)), 'ms');
  for (const [k, xs] of [...steps].sort(([a], [b]) => (a < b ? -1 : 1)))
    print(`generate.in-process.step.${k}`, median(xs), 'ms');

  ratio('generate.cli full/noop', median(full) / median(noop));
  ratio('generate cli/in-process (startup and first-run share)', median(full) / median(runs.slice(1)));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
