/**
 * The footprint bundles (`npm run bench:footprint`, test/runtime/footprint.test.ts): the
 * minimal stdio client and server of this folder, for mcpgen and for the official SDKs, each
 * bundled by esbuild as a user's build would (`bundle`, `minify`, platform `node`, format `esm`,
 * code splitting: what is imported with `import()` goes to chunks loaded when first used), with
 * the metafile that says which modules each output carries.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Metafile, type Plugin, build } from 'esbuild';

/** Which implementation an entry uses. */
export type Impl = 'mcpgen' | 'sdk1' | 'sdk2';
export type Role = 'client' | 'server';
export const IMPLS: readonly Impl[] = ['mcpgen', 'sdk1', 'sdk2'];

/** What each implementation is, for the printed names. */
export const IMPL_NAMES: Record<Impl, string> = {
  mcpgen: 'mcpgen (generated 2025-11-25 + runtime)',
  sdk1: '@modelcontextprotocol/sdk 1.32.2',
  sdk2: '@modelcontextprotocol/client + server 2.4.0',
};

const here = fileURLToPath(new URL('.', import.meta.url));

/** The entry file of `impl`'s minimal `role`. */
export const entryOf = (impl: Impl, role: Role): string =>
  join(here, `${impl}-${role}.${impl === 'mcpgen' ? 'ts' : 'mjs'}`);

export interface Bundle {
  /** The entry file (ESM, runnable with `node <file> …`). */
  file: string;
  /** Bytes loaded at start: the entry and the chunks it imports statically, transitively. */
  bytes: number;
  /** Bytes of the chunks reached only through `import()` (loaded on first use). */
  lazyBytes: number;
  /** Those chunks' files. */
  lazyFiles: string[];
  /** esbuild's metafile. */
  metafile: Metafile;
  /** Bytes loaded at start per input module path (relative to the repository root). */
  inputs: Record<string, number>;
  /** Bytes per input module path of the chunks loaded on first use. */
  lazyInputs: Record<string, number>;
}

const ROOT = join(here, '..', '..');

/**
 * Builds the `@mcpgen/runtime` package as `npm pack` ships it (scripts/build.ts: compiled
 * JavaScript, the built manifest's `exports`) into `<dir>/node_modules/@mcpgen/runtime/`, and
 * returns `dir`, for {@link bundle}'s `runtime`. @throws BuildError on a compile error.
 */
export async function buildInstalledRuntime(dir: string): Promise<string> {
  const { buildRuntime } = await import('../../scripts/build.js');
  buildRuntime(join(dir, 'node_modules', '@mcpgen', 'runtime'));
  return dir;
}

/**
 * An esbuild plugin resolving every `@mcpgen/runtime[/…]` import (the entries' and the generated
 * code's) in `installed/node_modules` (through the built package's `exports`, as a user's
 * bundler does); the runtime's own dependencies (ajv, …) come from this checkout's node_modules.
 */
function installedRuntime(installed: string): Plugin {
  return {
    name: 'installed-runtime',
    setup(b) {
      b.onResolve({ filter: /^@mcpgen\/runtime(\/|$)/ }, (args) => {
        if (args.pluginData === 'installed') return undefined;
        return b.resolve(args.path, {
          kind: args.kind,
          resolveDir: installed,
          importer: args.importer,
          pluginData: 'installed',
        });
      });
    },
  };
}

/**
 * Bundles `impl`'s minimal `role` into `outDir/<impl>-<role>/` (created if missing); `minify:
 * false` keeps the modules' top-level names readable; `runtime` (a folder from
 * {@link buildInstalledRuntime}) bundles mcpgen's entries with the built runtime package instead
 * of the workspace's TypeScript sources. CommonJS dependencies of the SDKs call `require`: the
 * banner gives them node's, as ESM bundles for node need.
 * @throws the esbuild error when an entry does not bundle.
 */
export async function bundle(
  impl: Impl,
  role: Role,
  outDir: string,
  options: { minify?: boolean; runtime?: string } = {},
): Promise<Bundle> {
  const dir = join(outDir, `${impl}-${role}`);
  mkdirSync(dir, { recursive: true });
  const installed = impl === 'mcpgen' && options.runtime !== undefined;
  const r = await build({
    ...(installed ? { plugins: [installedRuntime(options.runtime!)], nodePaths: [join(ROOT, 'node_modules')] } : {}),
    entryPoints: { [`${impl}-${role}`]: entryOf(impl, role) },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    bundle: true,
    minify: options.minify ?? true,
    platform: 'node',
    format: 'esm',
    metafile: true,
    logLevel: 'silent',
    banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  });
  const outputs = r.metafile.outputs;
  const entry = Object.keys(outputs).find((o) => outputs[o]!.entryPoint !== undefined)!;
  // the outputs loaded at start: the entry and what it imports statically, transitively
  const eager = new Set([entry]);
  for (const o of eager)
    for (const i of outputs[o]!.imports)
      if (i.kind === 'import-statement' && Object.hasOwn(outputs, i.path)) eager.add(i.path);
  const sum = (names: string[]) => names.reduce((n, o) => n + outputs[o]!.bytes, 0);
  const inputsOf = (names: string[]) => {
    const out: Record<string, number> = {};
    for (const o of names)
      for (const [path, { bytesInOutput }] of Object.entries(outputs[o]!.inputs))
        out[path] = (out[path] ?? 0) + bytesInOutput;
    return out;
  };
  const lazy = Object.keys(outputs).filter((o) => !eager.has(o) && !o.endsWith('.map'));
  return {
    file: resolve(entry),
    bytes: sum([...eager]),
    lazyBytes: sum(lazy),
    lazyFiles: lazy.map((o) => resolve(o)),
    metafile: r.metafile,
    inputs: inputsOf([...eager]),
    lazyInputs: inputsOf(lazy),
  };
}

/** The bytes of `inputs` grouped by package (`ajv`, `@scope/name`) or repository folder (`generated/2025-11-25`). */
export function byGroup(inputs: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [path, n] of Object.entries(inputs)) {
    const nm = path.lastIndexOf('node_modules/');
    let key: string;
    if (nm >= 0) {
      const parts = path.slice(nm + 'node_modules/'.length).split('/');
      key = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
    } else key = path.slice(0, path.lastIndexOf('/'));
    out[key] = (out[key] ?? 0) + n;
  }
  return out;
}
