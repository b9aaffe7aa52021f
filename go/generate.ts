/**
 * Writes the Go SDK packages of the generated revisions (generated/<rev>/model.json, made by
 * `npm run generate`) into the reference module: `go/reference/gen/<pkg>/` (mcp20251125 …),
 * importable there as `mcpgen.dev/reference/gen/<pkg>`. The Go tests, the reference server and
 * `mcpgen serve --lang go` build on them.
 *
 *   node --import tsx go/generate.ts [rev ...]    (default: every generated revision)
 *
 * Prints the folder. Idempotent: unchanged files are not rewritten; files are written beside
 * and renamed, so a build never sees half a file.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitGoSdk } from '../generator/emit/go/sdk.js';
import type { ProtocolModel } from '../generator/model.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The folder the packages go to. */
export const GO_GENERATED = join(ROOT, 'go', 'reference', 'gen');

/** Writes the packages of `revisions` (default: every generated one); returns the folder. */
export function generateGo(revisions?: string[]): string {
  const gen = join(ROOT, 'generated');
  const revs =
    revisions ??
    (existsSync(gen)
      ? readdirSync(gen)
          .filter((r) => existsSync(join(gen, r, 'model.json')))
          .sort()
      : []);
  if (!revs.length) throw new Error('generated/ has no revision: run npm run generate first');
  for (const rev of revs) {
    const modelPath = join(gen, rev, 'model.json');
    if (!existsSync(modelPath)) throw new Error(`${modelPath} is missing: run npm run generate first`);
    const model = JSON.parse(readFileSync(modelPath, 'utf8')) as ProtocolModel;
    for (const [path, text] of emitGoSdk(model)) {
      const file = join(GO_GENERATED, path.replace(/^go\//, ''));
      if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
      mkdirSync(dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, text);
      renameSync(tmp, file);
    }
  }
  return GO_GENERATED;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const revs = process.argv.slice(2);
  console.log(generateGo(revs.length ? revs : undefined));
}
