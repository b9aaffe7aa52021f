/**
 * `npm run fuzz:dual-era [-- --messages N] [--seed N] [--transport stdio|http|all] [--run I]`:
 * the dual-era property of ./dual-era.ts over `mcpgen serve --rev draft` (stdio and Streamable
 * HTTP), N messages per transport (default 1 000 000), then its figures (`name: value unit`)
 * and the first violations. The seed is printed first; `--seed N --run I` replays one run.
 * Exits 1 on any double answer, answer to an id never sent as a request, id not echoed,
 * unanswered request, or answer without id beyond the messages whose id cannot be read.
 */
import { parseArgs } from 'node:util';
import { clean, type DualTransport, dualFigures, runDualEra } from './dual-era.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string' },
    seed: { type: 'string' },
    transport: { type: 'string' },
    run: { type: 'string' },
    'restart-every': { type: 'string' },
    lanes: { type: 'string' },
  },
  strict: true,
});
const int = (v: string | undefined, d: number, what: string): number => {
  if (v === undefined) return d;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`fuzz:dual-era: --${what} must be a non-negative integer, not ${v}`);
    process.exit(2);
  }
  return n;
};
const transports: DualTransport[] =
  values.transport === undefined || values.transport === 'all'
    ? ['stdio', 'http']
    : values.transport === 'stdio' || values.transport === 'http'
      ? [values.transport]
      : (console.error('fuzz:dual-era: --transport must be stdio|http|all'), process.exit(2));
const seed = int(values.seed, Math.floor(Math.random() * 2 ** 31), 'seed');
console.log(`dual-era seed: ${seed} (replay a run: npm run fuzz:dual-era -- --seed ${seed} --transport <t> --run <i>)`);
const reports = await runDualEra({
  seed,
  messages: int(values.messages, 1_000_000, 'messages'),
  transports,
  run: values.run === undefined ? undefined : int(values.run, 0, 'run'),
  lanes: values.lanes === undefined ? undefined : int(values.lanes, 4, 'lanes'),
  restartEvery: values['restart-every'] === undefined ? undefined : int(values['restart-every'], 25, 'restart-every'),
  log: (l) => console.error(l),
});
let bad = 0;
for (const r of reports) {
  for (const line of dualFigures(r)) console.log(line);
  for (const v of r.violations) console.log(`  ${v}`);
  if (!clean(r)) bad++;
}
const total = reports.reduce((n, r) => n + r.messages, 0);
const doubles = reports.reduce((n, r) => n + r.doubleAnswers, 0);
console.log(`dual_era.messages: ${total} messages`);
console.log(`dual_era.double_answers: ${doubles} answers`);
process.exitCode = bad ? 1 : 0;
