/**
 * `npm run bench:load [-- --sessions N --calls N --stateless N]`: 1,000 concurrent Streamable
 * HTTP sessions × 20 echo calls against `mcpgen serve --http 0`, then 200 concurrent stateless
 * clients × 20 calls against `mcpgen serve --http 0 --rev draft` (./load-run.ts), every answer
 * matched to its request by id and a per-call token. Prints `name: value unit` figures; exits 1
 * when a call was lost or crossed.
 */
import { parseArgs } from 'node:util';
import { loadFigures, runLoad } from './load-run.js';

const { values } = parseArgs({
  options: { sessions: { type: 'string' }, calls: { type: 'string' }, stateless: { type: 'string' } },
  strict: true,
});
const sessions = Number(values.sessions ?? 1000);
const calls = Number(values.calls ?? 20);
const stateless = Number(values.stateless ?? 200);
const r = await runLoad({ sessions, calls, stateless });
for (const line of [...loadFigures('sessions', r.sessions), ...loadFigures('stateless', r.stateless)])
  console.log(line);
for (const p of [...r.sessions.problems, ...r.stateless.problems]) console.error(`problem: ${p}`);
process.exitCode = r.sessions.lost + r.sessions.crossed + r.stateless.lost + r.stateless.crossed > 0 ? 1 : 0;
