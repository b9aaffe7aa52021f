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

const USAGE = `usage: npm run chaos -- [options]

Issue 44's chaos run: a real redis-server, three \`serve --redis\` processes of one deployment
behind a resetting round-robin proxy, sessions of the runtime's client calling a tool that records
each execution; first a Redis restart, then connection resets, a kill -9 of one process and a Redis
pause. Prints each figure as \`name: value unit\`; exits 1 when an invariant breaks.

options (numbers of at least 0):
  --sessions N              client sessions at once, per phase (default 200)
  --calls N                 calls per session, one after another (default 20)
  --steps N                 progress notifications per call (default 4)
  --step-ms MS              the pause after each step (default 100)
  --resets-per-second N     connections the proxy resets per second, chaos phase (default 4)
  --pause-ms MS             how long Redis is paused (SIGSTOP) in the chaos phase (default 10000)
  --call-timeout-ms MS      a call without an outcome after this long is a hang (default 60000)
  -h, --help                this text
`;

const options = {
  sessions: { type: 'string', default: '200' },
  calls: { type: 'string', default: '20' },
  steps: { type: 'string', default: '4' },
  'step-ms': { type: 'string', default: '100' },
  'resets-per-second': { type: 'string', default: '4' },
  'pause-ms': { type: 'string', default: '10000' },
  'call-timeout-ms': { type: 'string', default: '60000' },
  help: { type: 'boolean', short: 'h' },
} as const;
let values: ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];
try {
  ({ values } = parseArgs({ options }));
} catch (e) {
  // an unknown option, a value missing or given to a flag, a positional: one line, exit 2
  process.stderr.write(`chaos: ${(e as Error).message.split('\n')[0]} (npm run chaos -- --help)\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const num = (name: Exclude<keyof typeof values, 'help'>): number => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < 0) {
    process.stderr.write(`chaos: --${name} needs a number of at least 0, got ${values[name]}\n`);
    process.exit(2);
  }
  return n;
};
// loaded after the options are read: --help and a usage error start nothing
const { runChaos } = await import('../test/scale/chaos.js');
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
  for (const p of f.partialProgress) console.log(`${name}.partialProgress: ${p}`);
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
