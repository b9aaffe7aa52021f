/**
 * The compiled tree the benchmarks run on, so that their figures are those of the JavaScript a
 * user runs (the built packages), not of TypeScript sources behind a loader.
 *
 * `buildBench(tree)` compiles every TypeScript file of `tree`'s runtime/, generated/ (without the
 * other languages' bindings), cli/, generator/, schema/, reference/ and bench/ one file at a
 * time with the compiler options of `tree`'s tsconfig.json (emit on, no declarations, ES
 * modules: with `isolatedModules` set, a file's JavaScript is the same as `npm run build`'s) into
 * `tree/.cache/bench/`, the folders at the same depth, and copies what that code reads beside
 * itself (templates, JSON, the generated validators, the benches' .mjs peers and the SDK servers
 * of test/fixtures/). The runtime
 * folder gets the manifest of the built `@mcpgen/runtime` package (scripts/build.ts
 * `runtimeManifest`: `exports` to the .js files) and `node_modules/@mcpgen/runtime` links to
 * it, so the generated code's `@mcpgen/runtime/…` imports load compiled files; every other
 * package resolves from the tree's own node_modules. `bin/mcpgen.js` there runs the compiled
 * CLI (`mcpgen serve` of the benches).
 *
 * `tree` may be another checkout: bench/compare.ts builds an older commit with this file, its
 * bench/ and the SDK peers of test/fixtures/ taken from `benches` (this checkout), so that both
 * trees are measured by the same benches.
 * `folder` names the output folder under `tree/.cache/` (default `bench`; it must sit in the tree
 * for the tree's node_modules to resolve). Returns the output folder. Throws naming the file on
 * a syntax error.
 *
 * `node --import tsx bench/build.ts [<tree>]` builds (default: this checkout) and prints the folder.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { runtimeManifest } from '../scripts/build.js';

const HERE = fileURLToPath(new URL('..', import.meta.url));
/** The node flags a compiled bench needs (bench/run.ts and bench/compare.ts pass them). */
export const NODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  http: ['--expose-gc'],
  // (a young generation that 1,000 calls do not fill: their allocation is read with no GC between)
  'http-client': ['--expose-gc', '--max-semi-space-size=128', '--min-semi-space-size=128'],
  'stdio-client-frame': ['--expose-gc', '--max-semi-space-size=128', '--min-semi-space-size=128'],
};
const FOLDERS = ['runtime', 'generated', 'cli', 'generator', 'schema', 'reference', 'bench'];
/** Files copied as they are (what the compiled code reads or imports beside itself). */
const COPIED = /\.(hbs|json|js|mjs|cjs|mts)$/;
/** Folders not built: the other languages' output of generated/<rev>/bindings, caches. */
const SKIPPED_DIRS = /(^|\/)(node_modules|__pycache__|\.venv)$|^generated\/[^/]+\/bindings$/;

function* files(root: string, dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.test(relative(root, p))) yield* files(root, p);
    } else if (entry.isFile()) yield p;
  }
}

function compilerOptions(tree: string): ts.CompilerOptions {
  const file = join(tree, 'tsconfig.json');
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error) throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  const parsed = ts.convertCompilerOptionsFromJson(read.config.compilerOptions ?? {}, tree, file);
  // every file is an ES module (the packages are `"type": "module"`, which a file-at-a-time compile cannot see)
  const { rootDir: _rootDir, outDir: _outDir, ...options } = parsed.options;
  return {
    ...options,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    noEmit: false,
    declaration: false,
    sourceMap: false,
    inlineSourceMap: false,
  };
}

export function buildBench(tree = HERE, benches = tree, folder = 'bench'): string {
  const root = resolve(tree);
  const out = join(root, '.cache', folder);
  rmSync(out, { recursive: true, force: true });
  const options = compilerOptions(root);
  for (const part of FOLDERS) {
    const base = part === 'bench' ? resolve(benches) : root;
    const from = join(base, part);
    if (!existsSync(from)) continue;
    for (const file of files(base, from)) {
      const rel = relative(base, file);
      const to = join(out, rel);
      if (file.endsWith('.ts') && !file.endsWith('.d.ts')) {
        if (file.endsWith('parity.gen.ts')) continue;
        const r = ts.transpileModule(readFileSync(file, 'utf8'), {
          compilerOptions: options,
          fileName: file,
          reportDiagnostics: true,
        });
        const errors = (r.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
        if (errors.length) throw new Error(`${rel}: ${ts.flattenDiagnosticMessageText(errors[0].messageText, '\n')}`);
        mkdirSync(dirname(to), { recursive: true });
        writeFileSync(to.replace(/\.ts$/, '.js'), r.outputText);
      } else if (COPIED.test(file)) {
        mkdirSync(dirname(to), { recursive: true });
        cpSync(file, to);
      }
    }
  }
  // the SDK peers of the benches
  const fixtures = join(resolve(benches), 'test', 'fixtures');
  for (const name of existsSync(fixtures) ? readdirSync(fixtures).filter((n) => n.endsWith('.mjs')) : [])
    cpSync(join(fixtures, name), join(out, 'test', 'fixtures', name));
  const manifest = JSON.parse(readFileSync(join(root, 'runtime', 'package.json'), 'utf8'));
  writeFileSync(join(out, 'runtime', 'package.json'), `${JSON.stringify(runtimeManifest(manifest), null, 2)}\n`);
  writeFileSync(join(out, 'package.json'), '{ "private": true, "type": "module" }\n');
  mkdirSync(join(out, 'node_modules', '@mcpgen'), { recursive: true });
  symlinkSync('../../runtime', join(out, 'node_modules', '@mcpgen', 'runtime'), 'dir');
  mkdirSync(join(out, 'bin'), { recursive: true });
  writeFileSync(
    join(out, 'bin', 'mcpgen.js'),
    "import { main } from '../cli/main.js';\nprocess.exitCode = await main(process.argv.slice(2));\n",
  );
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const out = buildBench(process.argv[2]);
  console.error(`bench build: ${out} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  console.log(out);
}
