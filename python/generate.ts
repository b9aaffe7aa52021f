/**
 * Writes the Python SDK packages of the generated revisions (generated/<rev>/model.json, made by
 * `npm run generate`) into a folder: `<out>/<rev>/` holds `pyproject.toml` and `mcp_<rev>/`.
 * The Python tests, the reference server and `mcpgen serve --lang python` read them from there.
 *
 *   node --import tsx python/generate.ts [--out DIR] [rev ...]    (default: .cache/python/generated, every revision)
 *
 * Prints the folder. Idempotent: a revision whose files are unchanged is not rewritten; files are
 * written beside and renamed, so a reader never sees half a file.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitPythonSdk } from '../generator/emit/python/sdk.js';
import type { ProtocolModel } from '../generator/model.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Writes the packages of `revisions` (default: every generated one) under `out`; returns `out`. */
export function generatePython(out = join(ROOT, '.cache/python/generated'), revisions?: string[]): string {
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
    for (const [path, text] of emitPythonSdk(model)) {
      const file = join(out, rev, path.replace(/^python\//, ''));
      if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
      mkdirSync(dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, text);
      renameSync(tmp, file);
    }
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--out');
  const out = i >= 0 ? resolve(args[i + 1]) : undefined;
  const revs = args.filter((a, j) => (a !== '--out' && j !== i + 1) || (i < 0 && a !== '--out'));
  if (out && i >= 0) rmSync(join(out, '.stale'), { force: true });
  console.log(generatePython(out, revs.length ? revs : undefined));
}
