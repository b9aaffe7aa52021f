/**
 * `node --import tsx bench/run.ts [<node flag>…] <bench> [<bench args>…]`: builds the compiled
 * tree of the benches (bench/build.ts, .cache/bench/) and runs bench/<bench> there with plain
 * node (with the flags it needs, bench/build.ts `NODE_FLAGS`, and the node flags given), so that the figures are those of the
 * JavaScript users run. Exits with the bench's exit code; 2 on a missing or unknown bench name.
 * `npm run bench:stdio|http|stateless` run through it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildBench, NODE_FLAGS } from './build.js';

const args = process.argv.slice(2);
const at = args.findIndex((a) => !a.startsWith('--'));
const name = args[at];
if (at < 0 || !/^[a-z][a-z0-9-]*$/.test(name)) {
  console.error('usage: node --import tsx bench/run.ts [<node flag>…] <bench> [<bench args>…]');
  process.exit(2);
}
const started = performance.now();
const out = buildBench();
const script = join(out, 'bench', `${name}.js`);
if (!existsSync(script)) {
  console.error(`bench/run: no bench ${JSON.stringify(name)} (bench/${name}.ts)`);
  process.exit(2);
}
console.error(`bench/run: compiled into ${out} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const flags = [...(NODE_FLAGS[name] ?? []), ...args.slice(0, at)];
const child = spawn(process.execPath, [...flags, script, ...args.slice(at + 1)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
