/**
 * `npm run fuzz [-- --seconds N] [--seed N] [--transport stdio|http|all] [--era 2025-11-25|draft|all]
 * [--batch I] [--frames N] [--hang-ms MS] [--no-minimize] [--no-save]`: the fuzz run of ./run.ts against
 * `mcpgen serve` (one target at a time), then its figures (`name: value unit`) per transport and
 * era. `--seconds` is per target (default 15). The seed is printed first; `--seed N` replays a
 * run, `--seed N --batch I` one batch of it. Failing batches are minimized and saved under
 * test/fuzz/regressions/ (one case per violation kind and target). Exits 1 on any crash, hang
 * or wrong answer.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Era } from './frames.js';
import { figures, fuzz, type TransportName } from './run.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string' },
    seed: { type: 'string' },
    transport: { type: 'string' },
    era: { type: 'string' },
    batch: { type: 'string' },
    frames: { type: 'string' },
    'hang-ms': { type: 'string' },
    'no-minimize': { type: 'boolean' },
    'no-save': { type: 'boolean' },
  },
  strict: true,
});

const pick = <T extends string>(v: string | undefined, all: T[], what: string): T[] => {
  if (v === undefined || v === 'all') return all;
  if (!all.includes(v as T)) {
    console.error(`fuzz: --${what} must be ${all.join('|')}|all`);
    process.exit(2);
  }
  return [v as T];
};
const num = (v: string | undefined, d: number, what: string): number => {
  if (v === undefined) return d;
  const n = Number(v);
  if (!Number.isInteger(n)) {
    console.error(`fuzz: --${what} must be an integer`);
    process.exit(2);
  }
  return n;
};

const seed = num(values.seed, Math.floor(Math.random() * 2 ** 31), 'seed');
const seconds = num(values.seconds, 15, 'seconds');
const transports = pick<TransportName>(values.transport, ['stdio', 'http'], 'transport');
const eras = pick<Era>(values.era, ['2025-11-25', 'draft'], 'era');
console.log(
  `fuzz seed: ${seed} (replay: npm run fuzz -- --seed ${seed}${values.seconds ? ` --seconds ${seconds}` : ''})`,
);

const reports = await fuzz({
  seed,
  seconds,
  transports,
  eras,
  batch: values.batch === undefined ? undefined : num(values.batch, 0, 'batch'),
  maxFrames: num(values.frames, 24, 'frames'),
  hangMs: num(values['hang-ms'], 15_000, 'hang-ms'),
  minimize: !values['no-minimize'],
  saveDir: values['no-save'] ? undefined : fileURLToPath(new URL('./regressions/', import.meta.url)),
  log: (l) => console.error(l),
});
let bad = 0;
for (const r of reports) {
  for (const line of figures(r)) console.log(line);
  bad += r.crashes + r.hangs + r.wrong;
}
console.log(`fuzz.seed: ${seed} seed`);
process.exitCode = bad ? 1 : 0;
