/**
 * `npm run build` (also run by `prepack`): compiles the two packages this repository publishes.
 *
 * - `dist/runtime/`: the `@mcpgen/runtime` package, a folder `npm pack` packs. runtime/*.ts
 *   compiled to ESM JavaScript with declarations, and its manifest derived from
 *   runtime/package.json (the workspace manifest, whose `exports` name the TypeScript sources):
 *   every `./x.ts` target becomes `{ types: './x.d.ts', default: './x.js' }`, `private` is dropped.
 * - `dist/mcpgen/`: the compiled tree of the `mcpgen` package (the root package.json, whose
 *   `files` list it): cli/, generator/, schema/, reference/ and generated/ (the pinned
 *   revisions `mcpgen serve` and `call` load, so `npm run generate` must have run), compiled
 *   against the runtime's declarations (their `@mcpgen/runtime/…` imports stay package
 *   imports), plus what the code reads beside itself: the emitters' templates (the .hbs files
 *   under generator/), schema/pins.json, the generated validators (already JavaScript), and package.json (name, version, licence,
 *   engines, dependencies, and of the devDependencies the @types/node `mcpgen init` puts in a new project). Files sit at the same depth as in the checkout, so every
 *   `new URL('../../x', import.meta.url)` finds the same thing.
 *
 * Exits 1 naming the problem: a compile error, a missing generated revision, versions of the
 * two manifests that differ.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');
const RUNTIME_OUT = join(DIST, 'runtime');
const MCPGEN_OUT = join(DIST, 'mcpgen');

type Json = Record<string, unknown>;
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Json;
const writeJson = (p: string, v: unknown) => writeFileSync(p, `${JSON.stringify(v, null, 2)}\n`);

/** A build problem (compile error, missing input, mismatched versions); the message names it. */
export class BuildError extends Error {}

/** The runtime manifest of the built package: `exports` to compiled files, `files`, no `private`. */
export function runtimeManifest(source: Json): Json {
  // a TypeScript source becomes its compiled pair; a condition map maps each of its targets (null: not exported there)
  const compiled = (target: unknown): unknown => {
    if (typeof target === 'string') {
      if (!target.endsWith('.ts')) return target;
      const base = target.slice(0, -'.ts'.length);
      return { types: `${base}.d.ts`, default: `${base}.js` };
    }
    if (target === null) return null;
    return Object.fromEntries(
      Object.entries(target as Record<string, unknown>).map(([condition, t]) => [condition, compiled(t)]),
    );
  };
  const exports: Record<string, unknown> = {};
  for (const [subpath, target] of Object.entries(source.exports as Record<string, unknown>))
    exports[subpath] = compiled(target);
  const { private: _private, exports: _exports, ...rest } = source;
  const root = exports['.'] as { types?: string; default?: { types: string } } | undefined;
  const types = root?.types ?? root?.default?.types;
  return { ...rest, ...(types ? { types } : {}), exports, files: ['**/*.js', '**/*.d.ts', 'README.md'] };
}

/** Runs tsc on a config file written to `dir` (its paths point at the checkout's folders). */
function tsc(name: string, config: Json, dir = DIST): void {
  const file = join(dir, `tsconfig.${name}.json`);
  writeJson(file, config);
  const bin = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [bin, '-p', file], { cwd: ROOT, stdio: 'inherit' });
  rmSync(file);
  if (r.status !== 0) throw new BuildError(`tsc (${name}) failed (exit ${r.status ?? r.signal})`);
}

/** Every file below `dir` whose name passes `keep`, relative to `dir`. */
function filesBelow(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (keep(name)) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

function copy(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to);
}

/** Every file an `exports` target names, through condition maps. */
function targetFiles(target: unknown): string[] {
  if (typeof target === 'string') return [target];
  if (target === null || typeof target !== 'object') return [];
  return Object.values(target as Record<string, unknown>).flatMap(targetFiles);
}

/** The `{ types, default }` pair Node resolves for a compiled `exports` target (its `default` condition). */
function nodeTarget(target: unknown): { types: string; default: string } | undefined {
  if (typeof target !== 'object' || target === null) return undefined;
  const t = target as Record<string, unknown>;
  if (typeof t.types === 'string' && typeof t.default === 'string') return t as { types: string; default: string };
  return nodeTarget(t.default);
}

/**
 * Builds the `@mcpgen/runtime` package folder into `out` (absolute; default dist/runtime/, which
 * it does not clear first: {@link build} does): the compiled runtime, its manifest and README.
 * Returns the manifest. Throws BuildError on a compile error or an `exports` target not built.
 */
export function buildRuntime(out = RUNTIME_OUT): Json {
  const source = readJson(join(ROOT, 'runtime', 'package.json'));
  mkdirSync(out, { recursive: true });
  // the config file sits in `out`, so every path in it is absolute (types from the checkout's node_modules)
  tsc(
    'runtime',
    {
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        rootDir: join(ROOT, 'runtime'),
        outDir: out,
        noEmitOnError: true,
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      include: [join(ROOT, 'runtime')],
      exclude: [],
    },
    out,
  );
  const manifest = runtimeManifest(source);
  writeJson(join(out, 'package.json'), manifest);
  copy(join(ROOT, 'runtime', 'README.md'), join(out, 'README.md'));
  // modules generated as JavaScript with their declarations (protocol/meta-schema.gen.js) ship as they are
  for (const f of filesBelow(join(ROOT, 'runtime'), (n) => n.endsWith('.gen.js') || n.endsWith('.gen.d.ts')))
    copy(join(ROOT, 'runtime', f), join(out, f));
  for (const [subpath, target] of Object.entries(manifest.exports as Record<string, unknown>)) {
    for (const f of targetFiles(target))
      if (!existsSync(join(out, f)))
        throw new BuildError(`@mcpgen/runtime exports ${subpath} → ${f}, which the build did not produce`);
  }
  return manifest;
}

function buildMcpgen(runtime: Json): void {
  const pkg = readJson(join(ROOT, 'package.json'));
  if (pkg.version !== runtime.version)
    throw new BuildError(
      `package.json version ${String(pkg.version)} ≠ runtime/package.json version ${String(runtime.version)}: release them together`,
    );
  const deps = (pkg.dependencies ?? {}) as Record<string, string>;
  if (deps['@mcpgen/runtime'] !== runtime.version)
    throw new BuildError(
      `package.json depends on @mcpgen/runtime ${deps['@mcpgen/runtime']}, expected ${String(runtime.version)} (the same release)`,
    );
  const pins = readJson(join(ROOT, 'schema', 'pins.json')) as { revisions: Record<string, unknown> };
  const missing = Object.keys(pins.revisions).filter((r) => !existsSync(join(ROOT, 'generated', r, 'index.ts')));
  if (missing.length)
    throw new BuildError(
      `generated/ lacks ${missing.join(', ')}: run \`npm run generate\` first (mcpgen serve ships every pinned revision)`,
    );

  // the runtime's subpaths resolve to its built declarations, so nothing of runtime/ is compiled twice
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(runtime.exports as Record<string, unknown>)) {
    // the CLI runs on Node: the `default` condition's declarations
    const node = nodeTarget(target);
    if (node) paths[`@mcpgen/runtime${subpath.slice(1)}`] = [`./runtime/${node.types.slice(2)}`];
  }
  tsc('mcpgen', {
    extends: '../tsconfig.json',
    compilerOptions: {
      noEmit: false,
      declaration: true,
      rootDir: '..',
      outDir: './mcpgen',
      noEmitOnError: true,
      paths,
    },
    include: ['../cli', '../generator', '../schema', '../reference', '../generated'],
    exclude: ['../generated/*/bindings', '../generated/**/parity.gen.ts'],
  });
  for (const f of filesBelow(join(ROOT, 'generator'), (n) => n.endsWith('.hbs')))
    copy(join(ROOT, 'generator', f), join(MCPGEN_OUT, 'generator', f));
  for (const f of filesBelow(join(ROOT, 'schema'), (n) => n.endsWith('.json')))
    copy(join(ROOT, 'schema', f), join(MCPGEN_OUT, 'schema', f));
  for (const f of filesBelow(
    join(ROOT, 'generated'),
    (n) => n === 'validators.gen.js' || n === 'validators.gen.d.ts',
  )) {
    if (!f.includes('bindings')) copy(join(ROOT, 'generated', f), join(MCPGEN_OUT, 'generated', f));
  }
  const { name, version, type, license, engines, dependencies } = pkg;
  // `mcpgen init` gives a new project the @types/node this repository builds with (typescript is a dependency)
  const dev = (pkg.devDependencies ?? {}) as Record<string, string>;
  if (!dev['@types/node'])
    throw new BuildError('package.json has no devDependencies["@types/node"] (mcpgen init needs it)');
  const devDependencies = { '@types/node': dev['@types/node'] };
  writeJson(join(MCPGEN_OUT, 'package.json'), { name, version, type, license, engines, dependencies, devDependencies });
}

export function build(): void {
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });
  const t0 = performance.now();
  const runtime = buildRuntime();
  const t1 = performance.now();
  buildMcpgen(runtime);
  const t2 = performance.now();
  process.stdout.write(
    `built @mcpgen/runtime ${String(runtime.version)} into dist/runtime (${(t1 - t0).toFixed(0)}ms), mcpgen into dist/mcpgen (${(t2 - t1).toFixed(0)}ms)\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    build();
  } catch (e) {
    if (!(e instanceof BuildError)) throw e;
    process.stderr.write(`build: ${e.message}\n`);
    process.exitCode = 1;
  }
}
