/**
 * Bundle sizes of the web-standard runtime beside the official SDK v2's, each bundled by
 * esbuild (ESM, minified, `platform: 'browser'`, conditions worker/browser) from a small app:
 * - client: a browser app connecting to a 2026-07-28 server and calling one tool
 *   (bench/web/ours-client.ts vs bench/web/sdk-client.ts, @modelcontextprotocol/client 2.4.0);
 * - worker: a stateless server as a fetch handler (examples/worker.ts, four tools, vs
 *   bench/web/sdk-worker.ts, @modelcontextprotocol/server 2.4.0 with zod, one tool).
 * Output: `name: value unit` (minified and gzip bytes), `name: N.NNx` (SDK size / ours: above
 * 1 means ours is smaller). `npm run bench:web`.
 */
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const at = (p: string) => fileURLToPath(new URL(p, import.meta.url));

async function size(entry: string): Promise<{ min: number; gzip: number; node: boolean }> {
  const r = await build({
    entryPoints: [at(entry)],
    bundle: true,
    platform: 'browser',
    conditions: ['worker', 'browser'],
    format: 'esm',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  const bytes = r.outputFiles[0].contents;
  return {
    min: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    node: /from\s*["']node:/.test(r.outputFiles[0].text),
  };
}

const rows: Array<[string, string, string]> = [
  ['client', './web/ours-client.ts', './web/sdk-client.ts'],
  ['worker', '../examples/worker.ts', './web/sdk-worker.ts'],
];
for (const [name, ours, sdk] of rows) {
  const [a, b] = await Promise.all([size(ours), size(sdk)]);
  if (a.node) throw new Error(`${name}: our bundle imports a node: module`);
  console.log(`${name} ours minified: ${a.min} bytes`);
  console.log(`${name} ours gzip: ${a.gzip} bytes`);
  console.log(`${name} sdk-v2 minified: ${b.min} bytes`);
  console.log(`${name} sdk-v2 gzip: ${b.gzip} bytes`);
  console.log(`${name} gzip sdk-v2/ours: ${(b.gzip / a.gzip).toFixed(2)}x`);
}
