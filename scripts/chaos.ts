/**
 * `npm run chaos [-- --sessions N --calls N --steps N --step-ms MS --resets-per-second N
 * --pause-ms MS --call-timeout-ms MS]`: issue 44's chaos run (test/scale/chaos.ts). Prints each
 * figure as `name: value unit`, the calls without a result by where they were cut
 * (`<phase>.lost.<stage>`: see LostStage in test/scale/chaos.ts), how many of them ran, and how
 * many ran on the killed process and never finished there; exits 1 when an invariant breaks (a duplicate execution, a
 * crossed result, a contradiction, a hang or unexpected error, a call lost to the Redis
 * restart, or a call lost without being told it did not run other than by the killed process).
 */
import { parseArgs } from 'node:util';
import { runChaos } from '../test/scale/chaos.js';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '200' },
    calls: { type: 'string', default: '20' },
    steps: { type: 'string', default: '4' },
    'step-ms': { type: 'string', default: '100' },
    'resets-per-second': { type: 'string', default: '4' },
    'pause-ms': { type: 'string', default: '10000' },
    'call-timeout-ms': { type: 'string', default: '60000' },
  },
});
const num = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < 0) {
    process.stderr.write(`chaos: --${name} needs a number of at least 0, got ${values[name]}\n`);
    process.exit(2);
  }
  return n;
};
const r = await runChaos({
  sessions: num('sessions'),
  calls: num('calls'),
  steps: num('steps'),
  stepMs: num('step-ms'),
  resetsPerSecond: num('resets-per-second'),
  pauseMs: num('pause-ms'),
  callTimeoutMs: num('call-timeout-ms'),
  log: (l) => process.stderr.write(`${l}\n`),
});
let broken = r.restart.ok !== r.restart.calls;
for (const [name, f] of [
  ['restart', r.restart],
  ['chaos', r.chaos],
] as const) {
  for (const [k, v] of Object.entries(f)) {
    if (typeof v !== 'number') continue;
    console.log(`${name}.${k}: ${v} ${k === 'ms' ? 'ms' : k === 'sessionsLost' ? 'sessions' : 'calls'}`);
  }
  for (const e of f.otherErrors) console.log(`${name}.otherError: ${e}`);
  for (const [why, n] of Object.entries(f.mayHaveRunErrors)) console.log(`${name}.mayHaveRun: ${n} calls (${why})`);
  for (const [stage, l] of Object.entries(f.lost)) {
    console.log(`${name}.lost.${stage}: ${l.calls} calls`);
    console.log(`${name}.lost.${stage}.ran: ${l.ran} calls`);
    console.log(`${name}.lost.${stage}.ownerKilled: ${l.ownerKilled} calls`);
  }
  if (f.duplicates || f.crossed || f.contradictions || f.other) broken = true;
  // lost without being told "not run", other than by the killed process
  if (Object.keys(f.lost).some((stage) => !['notSent', 'refused', 'ownerEnded'].includes(stage))) broken = true;
}
console.log(`chaos.resets: ${r.resets} connections`);
process.exit(broken ? 1 : 0);
