/**
 * The footprint bundles (`npm run bench:footprint`, test/runtime/footprint.test.ts): the
 * minimal stdio client and server of this folder, for mcpgen and for the official SDKs, each
 * bundled by esbuild as a user's build would (`bundle`, `minify`, platform `node`, format `esm`),
 * with the metafile that says which modules each output carries.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Metafile, build } from 'esbuild';

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
export const entryOf = (impl: Impl, role: Role): string => join(here, `${impl}-${role}.${impl === 'mcpgen' ? 'ts' : 'mjs'}`);

export interface Bundle {
  /** The bundle file (ESM, runnable with `node <file> …`). */
  file: string;
  /** Its size in bytes. */
  bytes: number;
  /** esbuild's metafile: `inputs` of the output are the modules the bundle carries. */
  metafile: Metafile;
  /** Bytes in the output per input module path (relative to the repository root). */
  inputs: Record<string, number>;
}

/**
 * Bundles `impl`'s minimal `role` into `outDir` (created if missing). CommonJS dependencies of
 * the SDKs call `require`: the banner gives them node's, as ESM bundles for node need.
 * @throws the esbuild error when an entry does not bundle.
 */
export async function bundle(impl: Impl, role: Role, outDir: string): Promise<Bundle> {
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${impl}-${role}.mjs`);
  const r = await build({
    entryPoints: [entryOf(impl, role)],
    outfile: file,
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    metafile: true,
    logLevel: 'silent',
    banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  });
  const out = Object.values(r.metafile.outputs).find((o) => o.entryPoint !== undefined)!;
  const inputs: Record<string, number> = {};
  for (const [path, { bytesInOutput }] of Object.entries(out.inputs)) inputs[path] = bytesInOutput;
  return { file, bytes: out.bytes, metafile: r.metafile, inputs };
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
