/**
 * Test entry: runs every `test/**\/*.test.ts` suite (or those whose path contains one of the
 * arguments) in one uvu run, then prints the closing line `N passed, N failed`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from 'uvu/run';

const root = fileURLToPath(new URL('.', import.meta.url));

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'fixtures') out.push(...walk(p));
    } else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

// The upstream spec inputs: $MCP_SPEC_DIR (CI sets it), else ../shared/mcp-spec beside the project.
if (!process.env.MCP_SPEC_DIR) {
  const beside = resolve(root, '../../shared/mcp-spec');
  if (existsSync(beside)) process.env.MCP_SPEC_DIR = beside;
}

const filters = process.argv.slice(2);
const files = walk(root).filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

let total = 0;
let passed = 0;
let skipped = 0;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
  const t = /Total:\s+(\d+)/.exec(plain);
  if (t) total = Number(t[1]);
  const p = /Passed:\s+(\d+)/.exec(plain);
  if (p) passed = Number(p[1]);
  const s = /Skipped:\s+(\d+)/.exec(plain);
  if (s) skipped = Number(s[1]);
  return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
}) as typeof process.stdout.write;

await run(
  files.map((file) => ({ name: relative(resolve(root, '..'), file), file })),
  { bail: false },
);
process.stdout.write = write;
const failed = Math.max(0, total - passed - skipped) + (process.exitCode && total === passed ? 1 : 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
