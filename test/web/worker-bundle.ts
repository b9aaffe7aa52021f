/**
 * The esbuild bundles of test/web/: the worker example (examples/worker.ts) for workerd, Bun
 * and Deno (`conditions` worker, browser; no `node:` module), built once per process.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

export const workerEntry = fileURLToPath(new URL('../../examples/worker.ts', import.meta.url));
let worker: Promise<string> | undefined;

/** The worker example as one ES module (minified), or a rejection naming esbuild's errors. */
export function workerBundle(): Promise<string> {
  return (worker ??= build({
    entryPoints: [workerEntry],
    bundle: true,
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    format: 'esm',
    minify: true,
    write: false,
    logLevel: 'silent',
  }).then((r) => r.outputFiles[0].text));
}
