/**
 * Footprint of a minimal MCP app, ours beside the official SDKs (bench/footprint/):
 * - bundle size: each minimal stdio client (imports `Client`, calls `tools/list`) and stdio
 *   server (one tool whose arguments are schema-checked) bundled by esbuild (minified, platform
 *   node, format esm, code splitting), in KiB: what loads at start (`bundle`) and the chunks
 *   only `import()` reaches (`on_first_use`). Ours is bundled as a user's project has it: the
 *   generated revision in its tree and `@mcpgen/runtime` installed as `npm pack` ships it (built
 *   first by scripts/build.ts into a temporary node_modules, resolved through its `exports`);
 *   for ours also the bytes of the generated revision (its validators and tables), of the
 *   runtime package and of ajv in each bundle. Every bundled client is run once against its
 *   bundled server before anything is measured.
 * - cold start: spawn of `node <server bundle>` until its answer to `initialize` arrives on
 *   stdout, median of 21 runs (--quick: 5), beside bare `node -e ''` (spawn → exit); the runs of
 *   all of them interleaved.
 * Targets (issue 13): client ≤ 70 KiB, server ≤ 180 KiB, cold start ≤ 2× bare node.
 * Comparisons `name: N.NNx`: `<sdk>_vs_mcpgen` is their size over ours (above 1 is better for
 * mcpgen); `mcpgen_over_bare_node` is our cold start over bare node's (the target: at most 2).
 * `npm run bench:footprint [-- --quick]`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Bundle,
  IMPLS,
  IMPL_NAMES,
  type Impl,
  type Role,
  buildInstalledRuntime,
  bundle,
  byGroup,
} from './footprint/bundle.js';
import { median, ratio } from './measure.js';

const RUNS = process.argv.includes('--quick') ? 5 : 21;
const KiB = (n: number) => (n / 1024).toFixed(1);
const dir = mkdtempSync(join(tmpdir(), 'mcpgen-footprint-'));

/** Runs `client` against `server`; resolves with what it printed. @throws when it fails. */
function run(client: string, server: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [client, process.execPath, server], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => child.kill(), 20_000);
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out.trim());
      else reject(new Error(`${client} against ${server} exited with ${code}`));
    });
  });
}

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'footprint', version: '0' } } })}\n`;

/** ms from spawning `node <server>` to its `initialize` answer on stdout. */
function coldStart(server: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [server], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(
      () => (child.kill(), reject(new Error(`${server}: no initialize answer in 20 s`))),
      20_000,
    );
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (!out.includes('\n')) return;
      const ms = performance.now() - t;
      clearTimeout(timer);
      child.kill();
      if (/"id":1\b/.test(out) && out.includes('"result"')) resolve(ms);
      else reject(new Error(`${server} answered initialize with ${out.trim().slice(0, 200)}`));
    });
    child.stdin.end(INITIALIZE);
  });
}

/** ms from spawning bare `node -e ''` to its exit. */
function bareNode(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(performance.now() - t));
  });
}

try {
  const runtime = await buildInstalledRuntime(join(dir, 'installed'));
  const bundles = {} as Record<Impl, Record<Role, Bundle>>;
  for (const impl of IMPLS) {
    bundles[impl] = {
      client: await bundle(impl, 'client', dir, { runtime }),
      server: await bundle(impl, 'server', dir, { runtime }),
    };
    const listed = await run(bundles[impl].client.file, bundles[impl].server.file);
    if (listed !== '["add"]') throw new Error(`${impl}: the bundled client listed ${listed}, not ["add"]`);
  }
  for (const impl of IMPLS) console.log(`# ${impl}: ${IMPL_NAMES[impl]}`);
  for (const role of ['client', 'server'] as const) {
    for (const impl of IMPLS) console.log(`footprint.${role}.${impl}.bundle: ${KiB(bundles[impl][role].bytes)} KiB`);
    for (const impl of IMPLS)
      console.log(`footprint.${role}.${impl}.on_first_use: ${KiB(bundles[impl][role].lazyBytes)} KiB`);
    const groups = byGroup(bundles.mcpgen[role].inputs);
    console.log(`footprint.${role}.mcpgen.generated: ${KiB(groups['generated/2025-11-25'] ?? 0)} KiB`);
    console.log(`footprint.${role}.mcpgen.runtime: ${KiB(groups['@mcpgen/runtime'] ?? 0)} KiB`);
    console.log(
      `footprint.${role}.mcpgen.ajv: ${KiB((groups.ajv ?? 0) + (groups['ajv-formats'] ?? 0) + (groups['fast-uri'] ?? 0))} KiB`,
    );
    for (const impl of ['sdk1', 'sdk2'] as const)
      ratio(`footprint.${role}.${impl}_vs_mcpgen`, bundles[impl][role].bytes / bundles.mcpgen[role].bytes);
    ratio(`footprint.${role}.mcpgen_of_target`, bundles.mcpgen[role].bytes / ((role === 'client' ? 70 : 180) * 1024));
  }

  const times: Record<Impl | 'bare', number[]> = { mcpgen: [], sdk1: [], sdk2: [], bare: [] };
  await bareNode(); // warms the file cache
  for (const impl of IMPLS) await coldStart(bundles[impl].server.file);
  for (let i = 0; i < RUNS; i++) {
    times.bare.push(await bareNode());
    for (const impl of IMPLS) times[impl].push(await coldStart(bundles[impl].server.file));
  }
  console.log(`footprint.cold_start.bare_node: ${median(times.bare).toFixed(1)} ms`);
  for (const impl of IMPLS) console.log(`footprint.cold_start.${impl}: ${median(times[impl]).toFixed(1)} ms`);
  for (const impl of ['sdk1', 'sdk2'] as const)
    ratio(`footprint.cold_start.${impl}_vs_mcpgen`, median(times[impl]) / median(times.mcpgen));
  ratio('footprint.cold_start.mcpgen_over_bare_node', median(times.mcpgen) / median(times.bare));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
