/**
 * The Go fuzz targets (go test -fuzz) and their runner: the runtime's codecs (ndjson lines and
 * SSE events, whatever the chunking; SSE events written and read back), the JSON-RPC message
 * decoder (against encoding/json) and generated decoders (decode, encode, decode again: the
 * same bytes). npm test runs each briefly (test/go/fuzz.test.ts); `npm run fuzz:go` long:
 *
 *   npm run fuzz:go [-- --seconds N] [--target FuzzName]     (default 120 s per target)
 *
 * A failing input is written by go test under the package's testdata/fuzz/<target>/ (commit it:
 * `go test` then replays it as a regression case). Exits 1 when a target fails.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** A fuzz target: its Go module (a folder of go/), package and function. */
export interface FuzzTarget {
  module: 'runtime' | 'reference';
  pkg: string;
  name: string;
}

export const FUZZ_TARGETS: FuzzTarget[] = [
  { module: 'runtime', pkg: './codec', name: 'FuzzLineReader' },
  { module: 'runtime', pkg: './codec', name: 'FuzzSSEReader' },
  { module: 'runtime', pkg: './codec', name: 'FuzzAppendEvent' },
  { module: 'runtime', pkg: './jsonrpc', name: 'FuzzDecode' },
  { module: 'reference', pkg: './sdk', name: 'FuzzCallToolRequestParams' },
  { module: 'reference', pkg: './sdk', name: 'FuzzCallToolResult' },
  { module: 'reference', pkg: './sdk', name: 'FuzzStatelessCallToolResult' },
  { module: 'reference', pkg: './sdk', name: 'FuzzTool' },
];

/** The `go test` arguments fuzzing one target for a number of `seconds` or of `inputs` (`-fuzztime Ns` / `Nx`). */
export function fuzzArgs(t: FuzzTarget, budget: { seconds: number } | { inputs: number }): string[] {
  const fuzztime = 'inputs' in budget ? `${budget.inputs}x` : `${budget.seconds}s`;
  return ['test', '-run', '^$', '-fuzz', `^${t.name}$`, '-fuzztime', fuzztime, t.pkg];
}

const main = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (main) {
  const { values } = parseArgs({
    options: { seconds: { type: 'string' }, target: { type: 'string' } },
    strict: true,
  });
  const seconds = Number(values.seconds ?? 120);
  if (!Number.isInteger(seconds) || seconds < 1) {
    console.error(`fuzz:go: --seconds ${values.seconds}: a whole number of seconds, at least 1`);
    process.exit(2);
  }
  const targets = FUZZ_TARGETS.filter((t) => !values.target || t.name === values.target);
  if (!targets.length) {
    console.error(`fuzz:go: no target ${values.target} (${FUZZ_TARGETS.map((t) => t.name).join(', ')})`);
    process.exit(2);
  }
  const { goBinary, goEnv } = await import('../test/go/support.js');
  const { generateGo } = await import('./generate.js');
  generateGo();
  const root = fileURLToPath(new URL('.', import.meta.url));
  let failed = 0;
  for (const t of targets) {
    console.log(`fuzz:go: ${t.module} ${t.pkg} ${t.name} for ${seconds} s`);
    const status = await new Promise<number | null>((resolve) => {
      const child = spawn(goBinary(), fuzzArgs(t, { seconds }), {
        cwd: join(root, t.module),
        env: goEnv(),
        stdio: 'inherit',
      });
      child.on('close', resolve);
    });
    if (status !== 0) failed++;
  }
  console.log(`fuzz:go: ${targets.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
