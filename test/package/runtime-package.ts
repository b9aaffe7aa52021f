/**
 * The `@mcpgen/runtime` package as a tarball an app installs with npm, made by the real build:
 * scripts/build.ts's {@link buildRuntime} (the one `npm run build` runs for dist/runtime/)
 * into a temporary folder, then packed as `npm pack` would pack it (the manifest's `files`:
 * every `.js`, `.d.ts`, README.md, and package.json) with cli/pack/tarball.ts's deterministic
 * {@link tarball}.
 *
 * Built once per set of inputs: the built folder and the tarball are cached in the system's temporary folder under
 * the sha256 of the runtime's sources, scripts/build.ts, tsconfig.json, package-lock.json and the typescript
 * version, so every test file of a run (and later runs on unchanged sources) reuse one build.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { tarball, tarballName } from '../../cli/pack/tarball.js';
import { buildRuntime } from '../../scripts/build.js';
import { ROOT } from '../generator/support.js';

/** Every file below `dir` (relative, `/`-separated, in code-unit order), `node_modules` left out. */
function filesBelow(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        if (name !== 'node_modules') walk(p);
      } else out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** sha256 (hex) of what the runtime package is built from. */
export function runtimeInputsHash(): string {
  const h = createHash('sha256');
  const feed = (name: string, data: Buffer | string) => h.update(`${name}\0${data.length}\0`).update(data);
  for (const f of filesBelow(join(ROOT, 'runtime'))) feed(`runtime/${f}`, readFileSync(join(ROOT, 'runtime', f)));
  for (const f of ['scripts/build.ts', 'tsconfig.json', 'package-lock.json']) feed(f, readFileSync(join(ROOT, f)));
  feed('typescript', ts.version);
  return h.digest('hex');
}

/** The files `npm pack` takes from a built runtime folder: package.json and what its `files` names. */
export function packedFiles(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const f of filesBelow(dir)) {
    if (f === 'package.json' || f === 'README.md' || f.endsWith('.js') || f.endsWith('.d.ts'))
      files.set(f, readFileSync(join(dir, f)));
  }
  return files;
}

let built: string | undefined;
let builtDir: string | undefined;

/** The cache folder of this checkout's runtime inputs. */
const cacheDir = () => join(tmpdir(), `mcpgen-runtime-package-${runtimeInputsHash().slice(0, 16)}`);

/**
 * The folder of the `@mcpgen/runtime` package built from this checkout's runtime/ by
 * {@link buildRuntime} (`<cache>/runtime`, kept while the inputs are unchanged): what the tarball
 * packs, and what the API reports (test/layout/api-report.test.ts) are made from.
 */
export function runtimeBuild(): string {
  if (builtDir && existsSync(builtDir)) return builtDir;
  const cache = cacheDir();
  const dir = join(cache, 'runtime');
  if (!existsSync(join(dir, 'package.json'))) {
    const work = mkdtempSync(join(tmpdir(), 'mcpgen-runtime-build-'));
    try {
      const out = join(work, 'runtime');
      buildRuntime(out);
      mkdirSync(cache, { recursive: true });
      try {
        renameSync(out, dir); // whole or absent, for a run beside this one
      } catch (e) {
        if (!existsSync(join(dir, 'package.json'))) throw e; // a run beside this one was first
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  builtDir = dir;
  return dir;
}

/**
 * The path of `mcpgen-runtime-<version>.tgz` built from this checkout's runtime/ (from the cache
 * when its inputs are unchanged). Throws the build's error (a compile error is printed by tsc).
 */
export function runtimeTarball(): string {
  if (built && existsSync(built)) return built;
  const cache = cacheDir();
  const { version } = JSON.parse(readFileSync(join(ROOT, 'runtime', 'package.json'), 'utf8')) as { version: string };
  const path = join(cache, tarballName('@mcpgen/runtime', version));
  if (!existsSync(path)) {
    const dir = runtimeBuild();
    const partial = join(cache, `runtime-${process.pid}.tgz`);
    writeFileSync(partial, tarball(packedFiles(dir)));
    renameSync(partial, path); // whole or absent, for a run beside this one
  }
  built = path;
  return path;
}
